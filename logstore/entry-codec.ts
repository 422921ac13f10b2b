// logstore/entry-codec.ts: the stored form of an Entry (DESIGN §4), about 40% of its JSON. An
// entry of the exact shape buildEntry makes (no other members, canonical times, a canonical
// base64url signature of a known alg) is stored in binary: hashes as 32 raw bytes, times as
// milliseconds, strings length-prefixed; `kind`, `log` and `seq` are not stored at all (the kind
// is always Event, the log is the store's, the seq is the key). Anything else is stored as its
// JSON text, so no entry is ever refused or changed by the codec. Leaves out: checking the entry
// hash (the sequencer built it). Invariant: decodeEntry(encodeEntry(e), e.log, e.seq) deep-equals
// e, members in buildEntry's order (codecs.test.ts, fast-check).

import { formatHash, isHashString, isTime } from '../verifier/encoding/wire.ts';
import type { Entry, EntryCe } from '../verifier/documents/entry.ts';
import type { Signature } from '../verifier/documents/signature.ts';
import { isWellFormed, readU64, writeU64 } from './keys.ts';

const BINARY = 0x01;
const JSON_OPEN = 0x7b; // '{'
const ALGS = ['EdDSA', 'ES256'] as const;
const ENTRY_KEYS = 'kind,log,seq,prev,sequencedAt,ce,eventHash,eventSignature,hash';
const SIG_KEYS = 'alg,kid,signedAt,sig';
const HAS_SUBJECT = 1;
const HAS_COOKWALASEQ = 2;

// The entries of one append usually share sequencedAt; remembering the last time checked saves
// most of the parsing (isTime parses and re-formats to prove the spelling canonical).
let lastTime = '';
let lastMs = 0;

function canonicalMs(t: unknown): number | undefined {
  if (t === lastTime) return lastMs;
  if (!isTime(t)) return undefined;
  const ms = Date.parse(t);
  if (ms < 0) return undefined;
  lastTime = t;
  lastMs = ms;
  return ms;
}

function ceFits(ce: EntryCe): boolean {
  if (!ce || typeof ce !== 'object') return false;
  const keys = Object.keys(ce);
  const want = ['source', 'id', 'type'];
  if (ce.subject !== undefined) want.push('subject');
  if (ce.cookwalaseq !== undefined) want.push('cookwalaseq');
  if (keys.join() !== want.join()) return false;
  if (typeof ce.source !== 'string' || typeof ce.id !== 'string' || typeof ce.type !== 'string') return false;
  if (ce.subject !== undefined && typeof ce.subject !== 'string') return false;
  return ce.cookwalaseq === undefined || (Number.isSafeInteger(ce.cookwalaseq) && ce.cookwalaseq >= 0);
}

function sigBytes(s: Signature): Buffer | undefined {
  if (!s || typeof s !== 'object' || Object.keys(s).join() !== SIG_KEYS || typeof s.kid !== 'string' || typeof s.sig !== 'string')
    return undefined;
  if (!ALGS.includes(s.alg as (typeof ALGS)[number])) return undefined;
  const raw = Buffer.from(s.sig, 'base64url');
  return raw.length < 256 && raw.toString('base64url') === s.sig ? raw : undefined;
}

/** The binary form when `e` has exactly buildEntry's shape, else undefined. */
function binaryParts(
  e: Entry,
): { sig: Buffer; strings: string[]; lengths: number[]; flags: number; sequencedMs: number; signedMs: number } | undefined {
  if (Object.keys(e).join() !== ENTRY_KEYS || e.kind !== 'Event') return undefined;
  if (!isHashString(e.prev) || !isHashString(e.eventHash) || !isHashString(e.hash) || !ceFits(e.ce)) return undefined;
  const sequencedMs = canonicalMs(e.sequencedAt);
  const sig = sigBytes(e.eventSignature);
  const signedMs = sig && canonicalMs(e.eventSignature.signedAt);
  if (sequencedMs === undefined || signedMs === undefined || !sig) return undefined;
  const strings = [e.ce.source, e.ce.id, e.ce.type, e.eventSignature.kid];
  if (e.ce.subject !== undefined) strings.push(e.ce.subject);
  // UTF-8 cannot carry a lone surrogate (it would come back as U+FFFD); JSON can (as \udXXX).
  if (!strings.every(isWellFormed)) return undefined;
  const lengths = strings.map((x) => Buffer.byteLength(x, 'utf8'));
  if (lengths.some((n) => n > 0xffff)) return undefined;
  return {
    sig,
    strings,
    lengths,
    flags: (e.ce.subject !== undefined ? HAS_SUBJECT : 0) | (e.ce.cookwalaseq !== undefined ? HAS_COOKWALASEQ : 0),
    sequencedMs,
    signedMs,
  };
}

/**
 * [0x01][flags u8][alg u8][prev 32][eventHash 32][hash 32][sequencedAt u64 ms][signedAt u64 ms]
 * [cookwalaseq u64, if flagged][sig: u8 length + bytes][source, id, type, kid, subject?: u16
 * length + UTF-8 each]. Otherwise the JSON text (which starts with '{').
 */
export function encodeEntry(e: Entry): Buffer {
  const parts = binaryParts(e);
  if (!parts) return Buffer.from(JSON.stringify(e), 'utf8');
  const { sig, strings, lengths, flags, sequencedMs, signedMs } = parts;
  let size = 1 + 1 + 1 + 96 + 16 + (flags & HAS_COOKWALASEQ ? 8 : 0) + 1 + sig.length;
  for (const n of lengths) size += 2 + n;
  const b = Buffer.allocUnsafe(size);
  let o = 0;
  b[o++] = BINARY;
  b[o++] = flags;
  b[o++] = ALGS.indexOf(e.eventSignature.alg as (typeof ALGS)[number]);
  for (const h of [e.prev, e.eventHash, e.hash]) o += b.write(h.slice(7), o, 'hex');
  writeU64(b, sequencedMs, o);
  writeU64(b, signedMs, o + 8);
  o += 16;
  if (flags & HAS_COOKWALASEQ) {
    writeU64(b, e.ce.cookwalaseq!, o);
    o += 8;
  }
  b[o++] = sig.length;
  o += sig.copy(b, o);
  strings.forEach((x, i) => {
    b.writeUInt16BE(lengths[i], o);
    o += 2 + b.write(x, o + 2, lengths[i], 'utf8');
  });
  return b;
}

export function decodeEntry(v: Uint8Array, log: string, seq: number): Entry {
  const b = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  // JSON.parse, not verifier/encoding/strict-json.ts: these are bytes our own encoder wrote (JSON.stringify
  // of a value read as I-JSON at ingest, so no name repeats), not untrusted text.
  if (b[0] === JSON_OPEN) return JSON.parse(b.toString('utf8')) as Entry;
  if (b[0] !== BINARY) throw new Error(`logstore: entry ${seq} has an unknown encoding ${b[0]}`);
  const flags = b[1];
  const alg = ALGS[b[2]];
  let o = 3;
  const hash = () => formatHash(b.subarray(o, (o += 32)));
  const prev = hash();
  const eventHash = hash();
  const entryHash = hash();
  const sequencedAt = new Date(readU64(b, o)).toISOString();
  const signedAt = new Date(readU64(b, o + 8)).toISOString();
  o += 16;
  let cookwalaseq: number | undefined;
  if (flags & HAS_COOKWALASEQ) {
    cookwalaseq = readU64(b, o);
    o += 8;
  }
  const sigLen = b[o++];
  const sig = b.toString('base64url', o, (o += sigLen));
  const str = () => {
    const n = b.readUInt16BE(o);
    o += 2;
    return b.toString('utf8', o, (o += n));
  };
  const ce: EntryCe = { source: str(), id: str(), type: str() };
  const kid = str();
  if (flags & HAS_SUBJECT) ce.subject = str();
  if (cookwalaseq !== undefined) ce.cookwalaseq = cookwalaseq;
  if (o !== b.length || !alg) throw new Error(`logstore: entry ${seq} record is damaged`);
  return { kind: 'Event', log, seq, prev, sequencedAt, ce, eventHash, eventSignature: { alg, kid, signedAt, sig }, hash: entryHash };
}
