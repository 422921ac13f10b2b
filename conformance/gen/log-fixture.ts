// conformance/gen/log-fixture.ts: one small, fixed log that several vector files share: a signed
// descriptor, three device-signed CloudEvents, their entries chained from the descriptor, the
// Merkle root over the entry hashes, and a sequencer checkpoint at seq 3. The descriptor declares
// the time window TIME_BOUNDS (5 min skew, 72 h delivery; fixed here, not taken from the code's
// defaults, so the vectors never move with them). Built with the project's own builders
// (buildLogDescriptor, signEvent, buildEntry, buildCheckpoint, verifier/merkle/index.ts); the vectors then mutate
// copies of it. Everything derives from fixed keys and times, so it is reproducible.

import { buildCheckpoint, type Checkpoint } from '../../verifier/documents/index.ts';
import { decodeCookwalasig, eventHash, signEvent, type CloudEvent } from '../../verifier/cloudevent/index.ts';
import { formatHash } from '../../verifier/encoding/index.ts';
import { buildEntry, entryCeOf, entryLeaf, type Entry } from '../../verifier/documents/index.ts';
import { buildLogDescriptor, type LogDescriptor } from '../../verifier/documents/index.ts';
import { createMemoryTree, hashLeaf } from '../../verifier/merkle/index.ts';
import type { Signature, Signer } from '../../verifier/signing/index.ts';
import { DEVICE, LOG, shiftMs, T, type Keys } from './fixtures.ts';

export const TIME_BOUNDS = { maxClockSkewMs: 300_000, maxDeliveryDelayMs: 259_200_000 };

export interface LogFixture {
  descriptor: LogDescriptor;
  events: CloudEvent[];
  entries: Entry[];
  checkpoint: Checkpoint;
}

export function must<T>(r: { ok: true; value: T } | { ok: false; code: string; detail: string }): T {
  if (!r.ok) throw new TypeError(`fixture: ${r.code}: ${r.detail}`);
  return r.value;
}

/** A device event: subject x-0001, cookwalaseq n, JSON data. */
export function deviceEvent(n: number, signer: Signer, source = DEVICE, data: unknown = { step: n, tempC: 90 + n }): CloudEvent {
  const ce: CloudEvent = {
    specversion: '1.0',
    id: `evt-${String(n).padStart(4, '0')}`,
    source,
    type: 'cookwala.execution.running',
    subject: 'x-0001',
    time: shiftMs(T.t0, n * 1000 - 500),
    cookwalaseq: n,
    datacontenttype: 'application/json',
    data: data as CloudEvent['data'],
  };
  return signEvent(ce, signer, shiftMs(T.t0, n * 1000 - 400));
}

export function signatureOf(ce: CloudEvent): Signature {
  return must(decodeCookwalasig(String(ce.cookwalasig)));
}

/** Entries for events, chained from `prevHash`, seq starting at `firstSeq`. */
export function chain(log: string, prevHash: string, events: CloudEvent[], firstSeq = 1): Entry[] {
  const out: Entry[] = [];
  let prev = prevHash;
  events.forEach((ce, i) => {
    const e = buildEntry({
      log,
      seq: firstSeq + i,
      prev,
      sequencedAt: shiftMs(T.t0, (firstSeq + i) * 1000),
      ce: entryCeOf(ce),
      eventHash: must(eventHash(ce)),
      eventSignature: signatureOf(ce),
    });
    out.push(e);
    prev = e.hash;
  });
  return out;
}

export function rootOf(entries: Entry[]): string {
  const tree = createMemoryTree();
  for (const e of entries) tree.append(hashLeaf(entryLeaf(e)));
  return formatHash(tree.root());
}

export function createLogFixture(k: Keys): LogFixture {
  const descriptor = buildLogDescriptor({ log: LOG, mode: 'hash_only', createdAt: T.genesis, timeBounds: TIME_BOUNDS }, k.seq.signer);
  const events = [1, 2, 3].map((n) => deviceEvent(n, k.dev.signer));
  const entries = chain(LOG, descriptor.hash, events);
  const checkpoint = buildCheckpoint({ log: LOG, seq: 3, head: entries[2].hash, root: rootOf(entries) }, k.seq.signer, T.t3);
  return { descriptor, events, entries, checkpoint };
}
