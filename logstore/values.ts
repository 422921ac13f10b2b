// logstore/values.ts: the value encodings of the store (key layout in keys.ts) other than entries
// and payloads (entry-codec.ts, payload-codec.ts). Documents written rarely (descriptor,
// checkpoints, erasure records) are stored as their JSON text, so what is read back is exactly what
// was written; fixed-shape records (head, dedup index, subject index) are binary, with hash strings
// kept as their 32 raw bytes. Leaves out: compression (LevelDB's Snappy compresses its tables). Invariant: decode(encode(x)) equals x, and
// a hash only enters binary form if it is a well-formed `sha256:` string (else TypeError).

import { formatHash, isHashString } from '../verifier/encoding/index.ts';
import { readU64, writeU64 } from './keys.ts';
import { allocValue } from './slab.ts';

export interface HeadRecord {
  seq: number;
  hash: string;
  root: string;
}

export function hashBytes(h: string): Buffer {
  if (!isHashString(h)) throw new TypeError(`not a sha256: hash string: ${String(h).slice(0, 80)}`);
  return Buffer.from(h.slice(7), 'hex');
}

export function hashString(b: Uint8Array): string {
  return formatHash(b);
}

export function encodeHead(h: HeadRecord): Buffer {
  const b = Buffer.allocUnsafe(72);
  writeU64(b, h.seq, 0);
  hashBytes(h.hash).copy(b, 8);
  hashBytes(h.root).copy(b, 40);
  return b;
}

export function decodeHead(b: Uint8Array): HeadRecord {
  if (b.length !== 72) throw new Error(`logstore: head record of ${b.length} bytes, want 72`);
  return { seq: readU64(b, 0), hash: formatHash(b.subarray(8, 40)), root: formatHash(b.subarray(40, 72)) };
}

/**
 * [seq u64][eventHash 32]. `eventHash` is a well-formed hash string (the append plan checks it) or
 * its 32 raw bytes: all of a 32-byte array, or the 32 at `at` of a longer one (the plan reads
 * them from the entry's binary form without cutting a view of them).
 */
export function encodeDedup(seq: number, eventHash: string | Uint8Array, at = 0): Buffer {
  const b = allocValue(40);
  writeU64(b, seq, 0);
  if (typeof eventHash !== 'string') {
    if (at < 0 || eventHash.length < at + 32 || (at === 0 && eventHash.length !== 32)) throw new TypeError('eventHash is not 32 bytes');
    for (let i = 0; i < 32; i++) b[8 + i] = eventHash[at + i];
  } else if (b.write(eventHash.slice(7), 8, 'hex') !== 32) throw new TypeError('eventHash is not 32 bytes of hex');
  return b;
}

export function decodeDedup(b: Uint8Array): { seq: number; eventHash: string } {
  if (b.length !== 40) throw new Error(`logstore: dedup record of ${b.length} bytes, want 40`);
  return { seq: readU64(b, 0), eventHash: formatHash(b.subarray(8, 40)) };
}

export function encodeU64(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  writeU64(b, n, 0);
  return b;
}

export function decodeU64(b: Uint8Array): number {
  if (b.length !== 8) throw new Error(`logstore: u64 record of ${b.length} bytes`);
  return readU64(b, 0);
}

export function encodeJson(v: unknown): Buffer {
  const s = JSON.stringify(v);
  if (typeof s !== 'string') throw new TypeError('value has no JSON form');
  return Buffer.from(s, 'utf8');
}

export function decodeJson<T>(b: Uint8Array): T {
  // JSON.parse, not verifier/encoding/strict-json.ts: these are bytes our own encoder wrote (JSON.stringify
  // just above), not untrusted text.
  return JSON.parse(Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')) as T;
}
