// testkit/events.ts: CloudEvent factories for tests and benches. makeEvent builds the JSON
// event format; signed() adds the device's cookwalasig with verifier/cloudevent/read.ts signEvent (the
// signer's one encoder); eventStream(key) hands out events with per-subject cookwalaseq 1, 2, 3…
// the way a device's outbox would. The default signedAt is one minute before this test file was
// loaded: a sequencer on the real clock holds every log to a time window (verifier/documents/time-bounds.ts),
// so a fixed date would be refused as delivery_too_late once it lies maxDeliveryDelay behind.
// A sequencer on a manual clock gets events signed on that clock (`signedAt` as a function).

import { randomUUID } from 'node:crypto';
import { signEvent, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import type { TestKey } from './keys.ts';

/** One minute before this module was loaded, whole seconds: the same for every event of a test file. */
export const FIXTURE_SIGNED_AT = formatTime(Math.floor(Date.now() / 1000) * 1000 - 60_000);

export interface EventFields {
  source: string;
  id?: string;
  type?: string;
  subject?: string;
  cookwalaseq?: number;
  time?: string;
  data?: unknown;
  datacontenttype?: string;
  extra?: Record<string, unknown>;
}

export function makeEvent(f: EventFields): CloudEvent {
  const ce: CloudEvent = { specversion: '1.0', id: f.id ?? randomUUID(), source: f.source, type: f.type ?? 'cookwala.execution.running' };
  if (f.subject !== undefined) ce.subject = f.subject;
  if (f.cookwalaseq !== undefined) ce.cookwalaseq = f.cookwalaseq;
  if (f.time !== undefined) ce.time = f.time;
  if (f.data !== undefined) {
    ce.datacontenttype = f.datacontenttype ?? 'application/json';
    ce.data = f.data;
  }
  return { ...ce, ...f.extra };
}

export function signed(ce: CloudEvent, key: TestKey, signedAt = FIXTURE_SIGNED_AT): CloudEvent {
  return signEvent(ce, key.signer, signedAt);
}

/** A device's events: signed, from its source, cookwalaseq counting per subject from 1. */
export function eventStream(key: TestKey, opts: { signedAt?: string | (() => string) } = {}) {
  const seqs = new Map<string, number>();
  const at = () => (typeof opts.signedAt === 'function' ? opts.signedAt() : opts.signedAt);
  return {
    next(subject: string, f: Partial<EventFields> = {}): CloudEvent {
      const n = (seqs.get(subject) ?? 0) + 1;
      seqs.set(subject, n);
      return signed(makeEvent({ source: key.owner, subject, cookwalaseq: n, data: { step: n }, ...f }), key, at());
    },
    heartbeat(): CloudEvent {
      return signed(makeEvent({ source: key.owner, type: 'cookwala.device.heartbeat' }), key, at());
    },
  };
}
