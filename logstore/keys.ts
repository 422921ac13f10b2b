// logstore/keys.ts: the key layout of one log's LevelDB (DESIGN §6). Keys are bytes: one ASCII
// prefix byte, then fixed-width big-endian integers, so LevelDB's bytewise order is seq order and
// a seq range is one contiguous key range (streamed reads, one compactRange per erasure).
//
//   'V'                         -> utf8 STORE_FORMAT ("cookwala-logstore/1"); refused if different
//   'D'                         -> JSON LogDescriptor (written once, by init)
//   'H'                         -> head: u64 seq | 32 raw entry hash | 32 raw Merkle root
//   'c' u64 seq                 -> JSON Checkpoint (only ever one per seq; never a fork)
//   'e' u64 seq                 -> Entry, compact binary or JSON (entry-codec.ts)
//   'i' u32 len(src) src id     -> u64 seq | 32 raw eventHash   ((source,id) dedup index)
//   'n' u64 leafIndex           -> 32*(1+t) bytes: the Merkle nodes completed when that leaf was
//                                  appended, level 0..t (see tree-nodes.ts): ONE key per leaf
//   'p' u64 seq                 -> CloudEvent payload, JSON with binary data raw (payload-codec.ts);
//                                  deleted by an erasure
//   's' subject                 -> u64 last cookwalaseq of that subject
//   'w' u64 seq                 -> empty: an erasure whose payload bytes are not yet compacted
//                                  away (written with the erasure, deleted after; redone at open)
//   'x' u64 seq                 -> JSON ErasureRecord
//
// u64 = 8 bytes big-endian (values up to 2^53). The dedup key length-prefixes the source so no two
// (source, id) pairs share a key whatever bytes they hold. Leaves out: sublevels and encodings of
// the `level` package (raw buffers are both faster and explicit). Invariant: encodeX and decodeX
// round-trip, and for seq keys a < b iff key(a) < key(b) bytewise (keys.test.ts).

export const STORE_FORMAT = 'cookwala-logstore/1';

const TWO32 = 0x1_0000_0000;

export const P = {
  version: 0x56, // V
  descriptor: 0x44, // D
  head: 0x48, // H
  checkpoint: 0x63, // c
  entry: 0x65, // e
  dedup: 0x69, // i
  node: 0x6e, // n
  payload: 0x70, // p
  subject: 0x73, // s
  wipe: 0x77, // w
  erasure: 0x78, // x
} as const;

export type SeqPrefix = typeof P.checkpoint | typeof P.entry | typeof P.node | typeof P.payload | typeof P.wipe | typeof P.erasure;

export function writeU64(buf: Buffer, n: number, off: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a u64 that a number can hold: ${n}`);
  buf.writeUInt32BE(Math.floor(n / TWO32), off);
  buf.writeUInt32BE(n % TWO32, off + 4);
}

export function readU64(buf: Uint8Array, off: number): number {
  const b = buf as Buffer;
  const n = b.readUInt32BE(off) * TWO32 + b.readUInt32BE(off + 4);
  if (!Number.isSafeInteger(n)) throw new RangeError('u64 above 2^53');
  return n;
}

export function u64(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  writeU64(b, n, 0);
  return b;
}

export const singleKey = {
  version: Buffer.from([P.version]),
  descriptor: Buffer.from([P.descriptor]),
  head: Buffer.from([P.head]),
} as const;

export function seqKey(prefix: SeqPrefix, seq: number): Buffer {
  const b = Buffer.allocUnsafe(9);
  b[0] = prefix;
  writeU64(b, seq, 1);
  return b;
}

export function seqOfKey(key: Uint8Array): number {
  return readU64(key, 1);
}

export const entryKey = (seq: number): Buffer => seqKey(P.entry, seq);
export const payloadKey = (seq: number): Buffer => seqKey(P.payload, seq);
export const erasureKey = (seq: number): Buffer => seqKey(P.erasure, seq);
export const checkpointKey = (seq: number): Buffer => seqKey(P.checkpoint, seq);
export const nodeKey = (leafIndex: number): Buffer => seqKey(P.node, leafIndex);
export const wipeKey = (seq: number): Buffer => seqKey(P.wipe, seq);

/** [gte, lte] bounds of a whole seq-keyed family (any seq). */
export function familyRange(prefix: SeqPrefix): { gte: Buffer; lte: Buffer } {
  const lte = Buffer.alloc(9, 0xff);
  lte[0] = prefix;
  return { gte: Buffer.from([prefix]), lte };
}

export function dedupKey(source: string, id: string): Buffer {
  const src = Buffer.from(source, 'utf8');
  const idb = Buffer.from(id, 'utf8');
  const b = Buffer.allocUnsafe(5 + src.length + idb.length);
  b[0] = P.dedup;
  b.writeUInt32BE(src.length, 1);
  src.copy(b, 5);
  idb.copy(b, 5 + src.length);
  return b;
}

export function decodeDedupKey(key: Uint8Array): { source: string; id: string } {
  const b = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  const n = b.readUInt32BE(1);
  return { source: b.toString('utf8', 5, 5 + n), id: b.toString('utf8', 5 + n) };
}

export function subjectKey(subject: string): Buffer {
  const s = Buffer.from(subject, 'utf8');
  const b = Buffer.allocUnsafe(1 + s.length);
  b[0] = P.subject;
  s.copy(b, 1);
  return b;
}
