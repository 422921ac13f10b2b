// verifier/documents/entry.ts: log entries (DESIGN §4, Core §5 "log event", kind `Event`):
// {kind:"Event", log, seq, prev, sequencedAt, ce:{source, id, type, subject?, cookwalaseq?},
// eventHash, eventSignature, hash}. An entry holds no payload, so its hash, the chain and the
// Merkle tree never depend on payloads, and the device signature (over the event hash) still
// verifies after erasure. The chain rule: seq starts at 1 with no gaps and `prev` is the previous
// entry's hash (the descriptor's hash for seq 1). The Merkle leaf data is the 32 raw bytes of the
// entry hash. Reading entries strictly is read.ts's job; here they are built and checked.

import { fail, ok, type Result } from '../errors.ts';
import { parseHash } from '../encoding/wire.ts';
import { computeHash, type JsonObject } from './document-hash.ts';
import type { Signature } from './signature.ts';
import type { KeyRecord } from './keys.ts';
import { verifyEventHashSignature, type CloudEvent, type EventVerifyOptions, type VerifiedEvent } from '../cloudevent/read.ts';

/** The CloudEvent attributes an entry keeps: enough to deduplicate and order without the payload. */
export interface EntryCe {
  source: string;
  id: string;
  type: string;
  subject?: string;
  cookwalaseq?: number;
}

export interface Entry {
  kind: 'Event';
  log: string;
  seq: number;
  prev: string;
  sequencedAt: string;
  ce: EntryCe;
  eventHash: string;
  eventSignature: Signature;
  hash: string;
}

/** The entry's copy of the event's identifying attributes (null or absent ones left out). */
export function entryCeOf(ce: CloudEvent): EntryCe {
  const out: EntryCe = { source: ce.source, id: ce.id, type: ce.type };
  if (ce.subject !== undefined && ce.subject !== null) out.subject = ce.subject;
  if (ce.cookwalaseq !== undefined && ce.cookwalaseq !== null) out.cookwalaseq = ce.cookwalaseq;
  return out;
}

/** Build an entry and compute its hash. Throws only for a value with no canonical JSON form. */
export function buildEntry(f: Omit<Entry, 'kind' | 'hash'>): Entry {
  const body = {
    kind: 'Event' as const,
    log: f.log,
    seq: f.seq,
    prev: f.prev,
    sequencedAt: f.sequencedAt,
    ce: { ...f.ce },
    eventHash: f.eventHash,
    eventSignature: { ...f.eventSignature },
  };
  const h = computeHash(body as unknown as JsonObject);
  if (!h.ok) throw new TypeError(`${h.code}: ${h.detail}`);
  return { ...body, hash: h.value };
}

/** The recomputed hash equals `hash` (entry_hash_mismatch; invalid_hash for a malformed one). */
export function verifyEntryHash(e: Entry): Result<true> {
  const h = computeHash(e as unknown as JsonObject);
  if (!h.ok) return h;
  if (h.value !== e.hash) {
    const p = parseHash(e.hash);
    if (!p.ok) return fail('invalid_hash', `entry ${e.seq}: ${p.detail}`, { seq: e.seq });
    return fail('entry_hash_mismatch', `entry ${e.seq}: hash ${e.hash} is not the hash of its contents ${h.value}`, { seq: e.seq });
  }
  return ok(true);
}

/** `e` follows `prev` (seq + 1 and prev = its hash), else chain_broken naming the seq. */
export function checkLink(prev: { seq: number; hash: string }, e: Pick<Entry, 'seq' | 'prev'>): Result<true> {
  if (e.seq !== prev.seq + 1)
    return fail('chain_broken', `seq ${e.seq} follows seq ${prev.seq}; expected ${prev.seq + 1}`, { seq: e.seq, expected: prev.seq + 1 });
  if (e.prev !== prev.hash)
    return fail('chain_broken', `entry ${e.seq}: prev ${e.prev} is not the hash of entry ${prev.seq} (${prev.hash})`, { seq: e.seq });
  return ok(true);
}

/** The Merkle leaf data of an entry: the 32 raw bytes of its hash (throws if `hash` is malformed). */
export function entryLeaf(e: Pick<Entry, 'hash'>): Uint8Array {
  const b = parseHash(e.hash);
  if (!b.ok) throw new TypeError(`${b.code}: ${b.detail}`);
  return b.value;
}

/**
 * The entry's `eventSignature` over {alg, hash: eventHash, kid, kind: "Event", signedAt}, by a
 * `device` key owned by `ce.source` unless opts say otherwise (entries the sequencer appends
 * itself: role `sequencer`, checkSource false). Codes as verifyEventSignature.
 */
export function verifyEntryEventSignature(
  e: Entry,
  lookup: (kid: string) => KeyRecord | undefined,
  opts: EventVerifyOptions = {},
): Result<VerifiedEvent> {
  return verifyEventHashSignature(e.eventHash, e.eventSignature, e.ce.source, lookup, opts);
}
