// verifier/documents/entry.ts: log entries (docs/design.md §4, Core §5 "log event", kind `Event`):
// {kind:"Event", log, seq, prev, sequencedAt, ce:{source, id, type, subject?, cookwalaseq?},
// eventHash, eventSignature, hash}. An entry holds no payload, so its hash, the chain and the
// Merkle tree never depend on payloads, and the device signature (over the event hash) still
// verifies after erasure. The chain rule: seq starts at 1 with no gaps and `prev` is the previous
// entry's hash (the descriptor's hash for seq 1). The Merkle leaf data is the 32 raw bytes of the
// entry hash. Reading entries strictly is read.ts's job; here they are built and checked. The
// sequencer builds one entry per event, so buildEntry writes the JCS text of the usual shape
// directly (entryCanonicalText) and leaves every other shape to the generic canonicalization;
// both give the same bytes (entry.test.ts).

import { fail, ok, type Result } from '../errors.ts';
import { parseHash } from '../encoding/wire.ts';
import { computeHash, type JsonObject } from '../signing/document-hash.ts';
import { isPlainJsonString } from '../encoding/jcs.ts';
import { defaultBackend } from '../crypto/default.ts';
import type { Signature } from '../signing/signature.ts';
import type { KeyRecord } from '../signing/keys.ts';
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

const CE_NAMES = new Set(['source', 'id', 'type', 'subject', 'cookwalaseq']);
const SIGNATURE_NAMES = new Set(['alg', 'kid', 'sig', 'signedAt']);

/** True when every own member name of `o` is in `names` and every one present is listed `n` times. */
function onlyMembers(o: object, names: ReadonlySet<string>, n: number): boolean {
  const keys = Object.keys(o);
  if (keys.length !== n) return false;
  for (let i = 0; i < keys.length; i++) if (!names.has(keys[i])) return false;
  return true;
}

/**
 * The JCS text of an entry without its hash, written directly for the shape buildEntry makes (the
 * member names below in RFC 8785 order), or undefined when any member is not of that shape (a
 * vendor member in the signature, an extra attribute, a number where a string belongs, a string
 * that needs an escape): then the generic canonicalization decides. entry.test.ts checks
 * the two agree byte for byte on random entries. `stringsPlain`: the caller read `b` from JSON text
 * that isPlainJsonText accepted, so every string in it is plain already (the type checks stay).
 */
export function entryCanonicalText(b: Omit<Entry, 'hash'>, stringsPlain = false): string | undefined {
  const c = b.ce;
  const g = b.eventSignature;
  if (!c || typeof c !== 'object' || !g || typeof g !== 'object' || b.kind !== 'Event') return undefined;
  if (!Number.isSafeInteger(b.seq)) return undefined;
  const hasSubject = c.subject !== undefined;
  const hasSeq = c.cookwalaseq !== undefined;
  if (!onlyMembers(c, CE_NAMES, 3 + (hasSubject ? 1 : 0) + (hasSeq ? 1 : 0)) || !onlyMembers(g, SIGNATURE_NAMES, 4)) return undefined;
  if (hasSeq && !Number.isSafeInteger(c.cookwalaseq)) return undefined;
  // Every string a plain one (no escape needed, so none can hide a lone surrogate): the text in one
  // template, each string between the quotes of its literal (this runs once per sequenced event).
  // Anything else, even a string JSON would merely escape, goes to the generic path.
  const { id, source, subject, type } = c;
  const { alg, kid, sig, signedAt } = g;
  const { eventHash, log, prev, sequencedAt } = b;
  if (stringsPlain) {
    if (
      typeof id !== 'string' ||
      typeof source !== 'string' ||
      (hasSubject && typeof subject !== 'string') ||
      typeof type !== 'string' ||
      typeof eventHash !== 'string' ||
      typeof alg !== 'string' ||
      typeof kid !== 'string' ||
      typeof sig !== 'string' ||
      typeof signedAt !== 'string' ||
      typeof log !== 'string' ||
      typeof prev !== 'string' ||
      typeof sequencedAt !== 'string'
    )
      return undefined;
  } else if (
    !isPlainJsonString(id) ||
    !isPlainJsonString(source) ||
    (hasSubject && !isPlainJsonString(subject)) ||
    !isPlainJsonString(type) ||
    !isPlainJsonString(eventHash) ||
    !isPlainJsonString(alg) ||
    !isPlainJsonString(kid) ||
    !isPlainJsonString(sig) ||
    !isPlainJsonString(signedAt) ||
    !isPlainJsonString(log) ||
    !isPlainJsonString(prev) ||
    !isPlainJsonString(sequencedAt)
  )
    return undefined;
  return `{"ce":{${hasSeq ? `"cookwalaseq":${String(c.cookwalaseq)},` : ''}"id":"${id}","source":"${source}",${
    hasSubject ? `"subject":"${subject as string}",` : ''
  }"type":"${type}"},"eventHash":"${eventHash}","eventSignature":{"alg":"${alg}","kid":"${kid}","sig":"${sig}","signedAt":"${signedAt}"},"kind":"Event","log":"${log}","prev":"${prev}","seq":${String(b.seq)},"sequencedAt":"${sequencedAt}"}`;
}

/**
 * Build an entry and compute its hash. Throws only for a value with no canonical JSON form. The
 * entry's members keep the order given (the signature's too), so a caller may hand over the
 * order its store encodes best; the hash does not depend on it. The entry is the one object
 * built here, its hash filled in last; `ce` and `eventSignature` are copied unless `owned` says
 * the caller made them for this entry alone (the sequencer's committer does).
 */
export function buildEntry(f: Omit<Entry, 'kind' | 'hash'>, owned = false): Entry {
  const entry: Entry = {
    kind: 'Event' as const,
    log: f.log,
    seq: f.seq,
    prev: f.prev,
    sequencedAt: f.sequencedAt,
    ce: owned ? f.ce : { ...f.ce },
    eventHash: f.eventHash,
    eventSignature: owned ? f.eventSignature : { ...f.eventSignature },
    hash: '',
  };
  const text = entryCanonicalText(entry);
  if (text !== undefined) entry.hash = 'sha256:' + defaultBackend().sha256Hex(text);
  else {
    const { hash: _h, ...body } = entry;
    const h = computeHash(body as unknown as JsonObject);
    if (!h.ok) throw new TypeError(`${h.code}: ${h.detail}`);
    entry.hash = h.value;
  }
  return entry;
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
