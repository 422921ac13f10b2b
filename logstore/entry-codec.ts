// logstore/entry-codec.ts: the stored form of an Entry (docs/design.md §4), about 40% of its JSON. An
// entry of the exact shape buildEntry makes (no other members, canonical times, a canonical
// base64url signature of a known alg) is stored in binary: hashes as 32 raw bytes, times as
// milliseconds, strings length-prefixed; `kind`, `log` and `seq` are not stored at all (the kind
// is always Event, the log is the store's, the seq is the key). Anything else is stored as its
// JSON text, so no entry is ever refused or changed by the codec. The binary form is only taken
// when prev, eventHash and hash are well-formed `sha256:` strings (checked as they are written), so
// the append plan relies on it for that check and reads the raw hashes at fixed offsets. Leaves
// out: checking the entry hash (the sequencer built it). Invariant: decodeEntry(encodeEntry(e), e.log, e.seq) deep-equals
// e, members in buildEntry's order (codecs.test.ts, fast-check).

import { formatHash, isTime, writeBase64urlBytes, writeHashBytes } from '../verifier/encoding/index.ts';
import type { Entry, EntryCe } from '../verifier/documents/index.ts';
import { asciiLength, isWellFormed, putAscii, readU64, writeU64 } from './keys.ts';
import { allocValue } from './slab.ts';

const BINARY = 0x01;
const JSON_OPEN = 0x7b; // '{'
/** The signature algorithms by their code in byte 2 of the binary form. */
export const ALGS = ['EdDSA', 'ES256'] as const;
const ENTRY_KEYS = ['kind', 'log', 'seq', 'prev', 'sequencedAt', 'ce', 'eventHash', 'eventSignature', 'hash'];
const SIG_KEYS = ['alg', 'kid', 'signedAt', 'sig'];
/** Bits of byte 1 of the binary form: which optional members it holds. */
export const HAS_SUBJECT = 1;
export const HAS_COOKWALASEQ = 2;
/** Where the binary form keeps the raw hashes (the append plan reads the leaf and eventHash there). */
export const BINARY_PREV_AT = 3;
export const BINARY_EVENT_HASH_AT = 35;
export const BINARY_HASH_AT = 67;
/** Where its two u64 times (sequencedAt, signedAt, in ms) begin, after the three hashes. */
export const BINARY_TIMES_AT = 99;

/** Is `b` the binary form (then its raw hashes sit at the BINARY_*_AT offsets)? */
export const isBinaryEntry = (b: Uint8Array): boolean => b[0] === BINARY;

// The entries of one append usually share sequencedAt, and the events of one device often share
// signedAt; remembering the last time checked of each saves most of the parsing (isTime parses
// and re-formats to prove the spelling canonical).
function timeCache(): (t: unknown) => number | undefined {
  let last = '';
  let lastMs = 0;
  return (t) => {
    if (t === last) return lastMs;
    if (!isTime(t)) return undefined;
    const ms = Date.parse(t);
    if (ms < 0) return undefined;
    last = t;
    lastMs = ms;
    return ms;
  };
}
const sequencedMsOf = timeCache();
const signedMsOf = timeCache();

/** Own members exactly `keys`, in that order (for...in: no array built; an inherited enumerable member fails, so the entry takes the JSON form). */
function keysAre(o: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) if (k !== keys[i++]) return false;
  return i === keys.length;
}

const CE_KEYS = ['source', 'id', 'type'];

function ceFits(ce: EntryCe): boolean {
  if (!ce || typeof ce !== 'object') return false;
  // Members exactly source, id, type, then subject and cookwalaseq when defined, in that order
  // (for...in as keysAre: no array built; an inherited enumerable member fails).
  const hasSubject = ce.subject !== undefined;
  const want = 3 + (hasSubject ? 1 : 0) + (ce.cookwalaseq !== undefined ? 1 : 0);
  let i = 0;
  for (const k in ce) {
    if (i >= want || k !== (i < 3 ? CE_KEYS[i] : i === 3 && hasSubject ? 'subject' : 'cookwalaseq')) return false;
    i++;
  }
  if (i !== want) return false;
  if (typeof ce.source !== 'string' || typeof ce.id !== 'string' || typeof ce.type !== 'string') return false;
  if (ce.subject !== undefined && typeof ce.subject !== 'string') return false;
  return ce.cookwalaseq === undefined || (Number.isSafeInteger(ce.cookwalaseq) && ce.cookwalaseq >= 0);
}

/** UTF-8 length of a string the binary form can carry (well formed, at most 0xffff bytes), else -1. */
function strLen(x: string): number {
  const a = asciiLength(x);
  if (a >= 0) return a <= 0xffff ? a : -1;
  // UTF-8 cannot carry a lone surrogate (it would come back as U+FFFD); JSON can (as \udXXX).
  if (!isWellFormed(x)) return -1;
  const n = Buffer.byteLength(x, 'utf8');
  return n > 0xffff ? -1 : n;
}

/**
 * [0x01][flags u8][alg u8][prev 32][eventHash 32][hash 32][sequencedAt u64 ms][signedAt u64 ms]
 * [cookwalaseq u64, if flagged][sig: u8 length + bytes][source, id, type, kid, subject?: u16
 * length + UTF-8 each], when `e` has exactly buildEntry's shape (no other members, canonical
 * times, a canonical base64url signature of a known alg); else undefined. One pass: checks, then
 * one allocation and straight writes.
 */
function encodeBinary(e: Entry, checkedPrev: string | undefined): Buffer | undefined {
  if (!keysAre(e, ENTRY_KEYS) || e.kind !== 'Event') return undefined;
  if (!ceFits(e.ce)) return undefined;
  const s = e.eventSignature;
  if (!s || typeof s !== 'object' || !keysAre(s, SIG_KEYS) || typeof s.kid !== 'string' || typeof s.sig !== 'string') return undefined;
  const alg = s.alg === 'EdDSA' ? 0 : s.alg === 'ES256' ? 1 : -1;
  if (alg < 0) return undefined;
  const sequencedMs = sequencedMsOf(e.sequencedAt);
  const signedMs = signedMsOf(s.signedAt);
  if (sequencedMs === undefined || signedMs === undefined) return undefined;
  // A canonical unpadded base64url text of n bytes has ceil(4n/3) characters; checked as it is decoded below.
  const sigLen = Math.floor((s.sig.length * 3) / 4);
  if (sigLen >= 256) return undefined;
  const ce = e.ce;
  const nSource = strLen(ce.source);
  const nId = strLen(ce.id);
  const nType = strLen(ce.type);
  const nKid = strLen(s.kid);
  const nSubject = ce.subject === undefined ? 0 : strLen(ce.subject);
  if (nSource < 0 || nId < 0 || nType < 0 || nKid < 0 || nSubject < 0) return undefined;
  const flags = (ce.subject !== undefined ? HAS_SUBJECT : 0) | (ce.cookwalaseq !== undefined ? HAS_COOKWALASEQ : 0);
  const size =
    1 +
    1 +
    1 +
    96 +
    16 +
    (flags & HAS_COOKWALASEQ ? 8 : 0) +
    1 +
    sigLen +
    8 +
    nSource +
    nId +
    nType +
    nKid +
    (flags & HAS_SUBJECT ? 2 + nSubject : 0);
  const b = allocValue(size);
  b[0] = BINARY;
  b[1] = flags;
  b[2] = alg;
  if (e.prev === checkedPrev) b.write(checkedPrev.slice(7), BINARY_PREV_AT, 'hex');
  else if (!writeHashBytes(e.prev, b, BINARY_PREV_AT)) return undefined;
  if (!writeHashBytes(e.eventHash, b, BINARY_EVENT_HASH_AT) || !writeHashBytes(e.hash, b, BINARY_HASH_AT)) return undefined;
  let o = BINARY_TIMES_AT;
  writeU64(b, sequencedMs, o);
  writeU64(b, signedMs, o + 8);
  o += 16;
  if (flags & HAS_COOKWALASEQ) {
    writeU64(b, ce.cookwalaseq!, o);
    o += 8;
  }
  b[o++] = sigLen;
  if (!writeBase64urlBytes(s.sig, b, o, sigLen)) return undefined;
  o += sigLen;
  o = putStr(b, o, ce.source, nSource);
  o = putStr(b, o, ce.id, nId);
  o = putStr(b, o, ce.type, nType);
  o = putStr(b, o, s.kid, nKid);
  if (flags & HAS_SUBJECT) putStr(b, o, ce.subject!, nSubject);
  return b;
}

function putStr(b: Buffer, o: number, x: string, n: number): number {
  b[o] = n >>> 8;
  b[o + 1] = n & 0xff;
  // n === x.length: every char was ASCII (strLen), one byte each
  return n === x.length ? putAscii(b, o + 2, x) : o + 2 + b.write(x, o + 2, n, 'utf8');
}

/**
 * The binary form (see encodeBinary) when `e` has exactly buildEntry's shape, else the JSON text
 * (which starts with '{'). `checkedPrev`: a hash string the caller has already found well formed
 * (the append plan passes the previous entry's hash, which `e.prev` must equal), so an equal
 * `prev` is not checked again.
 */
export function encodeEntry(e: Entry, checkedPrev?: string): Buffer {
  return encodeBinary(e, checkedPrev) ?? Buffer.from(JSON.stringify(e), 'utf8');
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
