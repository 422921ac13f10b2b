// sequencer/system-events.ts: the entries the sequencer appends itself (docs/design.md §4, §5):
// `cookwala.log.erased` (data {seq, eventHash, reason}) and `cookwala.hub.device_lost`
// (subject = the device source, data {source, lastSeen}). They are ordinary CloudEvents from the
// sequencer's own source `cookwala:sequencer/<log>`, signed with the sequencer key through the
// same signEvent a device uses, so the entry's eventSignature verifies with the sequencer's
// KeyRecord (role sequencer; owner `cookwala:sequencer`, hence verifiers skip the owner rule for
// them). They carry no cookwalaseq, so per-subject order does not apply.

import { randomUUID } from 'node:crypto';
import { formatTime } from '../verifier/encoding/index.ts';
import { decodeCookwalasig, eventHash, signEvent, type CloudEvent } from '../verifier/cloudevent/index.ts';
import type { Signer } from '../verifier/signing/index.ts';
import type { Candidate } from './committer.ts';

export const ERASED_TYPE = 'cookwala.log.erased';
export const DEVICE_LOST_TYPE = 'cookwala.hub.device_lost';
/** Types that only the sequencer appends (devices may not send them). */
export const SEQUENCER_TYPES: readonly string[] = [ERASED_TYPE, DEVICE_LOST_TYPE];
/** Sources under this prefix belong to the sequencer; no device key may own one. */
export const SEQUENCER_SOURCE_PREFIX = 'cookwala:sequencer';

/** The source of the events a sequencer appends to `log` itself. */
export function sequencerSource(log: string): string {
  return `${SEQUENCER_SOURCE_PREFIX}/${log}`;
}

export function buildSystemEvent(
  f: { log: string; type: string; id: string; subject?: string; data: Record<string, unknown>; atMs: number },
  signer: Signer,
): Candidate {
  const time = formatTime(f.atMs);
  const ce: CloudEvent = {
    specversion: '1.0',
    id: f.id,
    source: sequencerSource(f.log),
    type: f.type,
    time,
    datacontenttype: 'application/json',
    data: f.data,
  };
  if (f.subject !== undefined) ce.subject = f.subject;
  const signed = signEvent(ce, signer, time);
  const sig = decodeCookwalasig(signed.cookwalasig!);
  const hash = eventHash(signed);
  if (!sig.ok || !hash.ok) throw new TypeError('a sequencer event could not be signed');
  return { ce: signed, eventHash: hash.value, signature: sig.value };
}

export function erasedEvent(f: { log: string; seq: number; eventHash: string; reason: string; atMs: number }, signer: Signer): Candidate {
  return buildSystemEvent(
    { log: f.log, type: ERASED_TYPE, id: `erased-${f.seq}`, data: { seq: f.seq, eventHash: f.eventHash, reason: f.reason }, atMs: f.atMs },
    signer,
  );
}

export function deviceLostEvent(f: { log: string; source: string; lastSeenMs: number; atMs: number }, signer: Signer): Candidate {
  return buildSystemEvent(
    {
      log: f.log,
      type: DEVICE_LOST_TYPE,
      id: `lost-${randomUUID()}`,
      subject: f.source,
      data: { source: f.source, lastSeen: formatTime(f.lastSeenMs) },
      atMs: f.atMs,
    },
    signer,
  );
}
