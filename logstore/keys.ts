// logstore/keys.ts: the key layout of one log's store (docs/design.md §6). Keys are bytes: a prefix byte,
// then fixed-width big-endian integers, so bytewise order is seq order within a family.
//
// The per-entry records (entry, payload, Merkle nodes) have two layouts, a RecordLayout each:
//   FAMILY_FIRST ("cookwala-logstore/1"; the PostgreSQL driver's, and LevelDB stores of earlier builds):
//     'e' u64 seq, 'p' u64 seq, 'n' u64 leafIndex
//   BANDED ("cookwala-logstore/2"; the LevelDB driver's):
//     0x01 u64 band | family byte ('e', 'p', 'n') | u64 seq, band = floor(seq / BAND)
// LevelDB flushes its memtable into tables that each span the batches' smallest to largest key.
// Family first, every append writes into three families at once, so each new table spans the
// older entries, payloads and nodes between them and every compaction rewrites those again.
// Banded, an append writes at the end of the record key space (the last band or two), so a new
// table overlaps older records only in its first band, while one family's records of a band stay
// one contiguous range for the streamed reads (ranges(): one range per band). logstore/migrate.ts
// moves a FAMILY_FIRST LevelDB store to BANDED at open.
//
// Both layouts:
//   'V'                         -> utf8 format of the store's RecordLayout; refused if not this build's
//   'D'                         -> JSON LogDescriptor (written once, by init)
//   'H'                         -> head: u64 seq | 32 raw entry hash | 32 raw Merkle root
//   'c' u64 seq                 -> JSON Checkpoint (only ever one per seq; never a fork)
//   entry record                -> Entry, compact binary or JSON (entry-codec.ts)
//   'i' u32 len(src) src id     -> u64 seq | 32 raw eventHash   ((source,id) dedup index; UTF-8,
//                                  or UTF-16LE with the length's top bit set when a string holds a
//                                  lone surrogate, so distinct strings never share a key)
//   node record (leafIndex)     -> 32*(1+t) bytes: the Merkle nodes completed when that leaf was
//                                  appended, level 0..t (see tree-nodes.ts): ONE key per leaf
//   payload record              -> CloudEvent payload, JSON with binary data raw (payload-codec.ts);
//                                  deleted by an erasure
//   's' 0|1 subject             -> u64 last cookwalaseq of that subject (0: UTF-8, 1: UTF-16LE)
//   'w' u64 seq                 -> empty: an erasure whose payload bytes are not yet compacted
//                                  away (written with the erasure, deleted after; redone at open)
//   'x' u64 seq                 -> JSON ErasureRecord
//
// u64 = 8 bytes big-endian (values up to 2^53). The dedup key length-prefixes the source so no two
// (source, id) pairs share a key whatever bytes they hold. Leaves out: sublevels and encodings of
// the `level` package (raw buffers are both faster and explicit). Invariant: encodeX and decodeX
// round-trip, and for seq keys of one family a < b iff key(a) < key(b) bytewise (keys.test.ts).

const TWO32 = 0x1_0000_0000;

export const P = {
  record: 0x01, // BANDED per-entry records
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

/** Families keyed 'prefix u64 seq' in both layouts. */
export type SeqPrefix = typeof P.checkpoint | typeof P.wipe | typeof P.erasure;
/** The per-entry record families, whose keys a RecordLayout makes. */
export type RecordFamily = typeof P.entry | typeof P.node | typeof P.payload;
export const RECORD_FAMILIES: readonly RecordFamily[] = [P.entry, P.node, P.payload];

/** Byte stores, not two writeUInt32BE calls: this runs several times per appended entry. */
export function writeU64(buf: Uint8Array, n: number, off: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`not a u64 that a number can hold: ${n}`);
  if (off < 0 || off + 8 > buf.length) throw new RangeError(`u64 at ${off} outside ${buf.length} bytes`);
  const hi = Math.floor(n / TWO32);
  const lo = n % TWO32;
  buf[off] = hi >>> 24;
  buf[off + 1] = (hi >>> 16) & 0xff;
  buf[off + 2] = (hi >>> 8) & 0xff;
  buf[off + 3] = hi & 0xff;
  buf[off + 4] = lo >>> 24;
  buf[off + 5] = (lo >>> 16) & 0xff;
  buf[off + 6] = (lo >>> 8) & 0xff;
  buf[off + 7] = lo & 0xff;
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

export function seqKey(prefix: SeqPrefix | RecordFamily, seq: number): Buffer {
  const b = Buffer.allocUnsafe(9);
  b[0] = prefix;
  writeU64(b, seq, 1);
  return b;
}

/** The seq of a 'prefix u64 seq' key (and of a FAMILY_FIRST record key). */
export function seqOfKey(key: Uint8Array): number {
  return readU64(key, 1);
}

export const erasureKey = (seq: number): Buffer => seqKey(P.erasure, seq);
export const checkpointKey = (seq: number): Buffer => seqKey(P.checkpoint, seq);
export const wipeKey = (seq: number): Buffer => seqKey(P.wipe, seq);

/** [gte, lte] bounds of a whole 'prefix u64 seq' family (any seq); for FAMILY_FIRST records too. */
export function familyRange(prefix: SeqPrefix | RecordFamily): { gte: Buffer; lte: Buffer } {
  const lte = Buffer.alloc(9, 0xff);
  lte[0] = prefix;
  return { gte: Buffer.from([prefix]), lte };
}

/** Where a store keeps its per-entry records: see the header. */
export interface RecordLayout {
  /** The 'V' record of a store in this layout. */
  readonly format: string;
  key(family: RecordFamily, seq: number): Buffer;
  /** The seq (for nodes the leaf index) a record key of this layout names. */
  seqOf(key: Uint8Array): number;
  /** Contiguous key ranges, in seq order, that together hold exactly the family's records from..to (inclusive, from <= to). */
  ranges(family: RecordFamily, from: number, to: number): Iterable<{ gte: Buffer; lte: Buffer }>;
}

export const FAMILY_FIRST: RecordLayout = {
  format: 'cookwala-logstore/1',
  key: seqKey,
  seqOf: seqOfKey,
  *ranges(family, from, to) {
    yield { gte: seqKey(family, from), lte: seqKey(family, to) };
  },
};

/** Records a band holds per family: a new level-0 table overlaps older records in one band at most (about 4 MB of them). */
export const BAND = 4096;
const RECORD_KEY = 18;

function bandedKey(family: RecordFamily, seq: number): Buffer {
  const b = Buffer.allocUnsafe(RECORD_KEY);
  b[0] = P.record;
  writeU64(b, Math.floor(seq / BAND), 1);
  b[9] = family;
  writeU64(b, seq, 10);
  return b;
}

export const BANDED: RecordLayout = {
  format: 'cookwala-logstore/2',
  key: bandedKey,
  seqOf: (key) => readU64(key, 10),
  *ranges(family, from, to) {
    for (let lo = from; lo <= to;) {
      const hi = Math.min(to, (Math.floor(lo / BAND) + 1) * BAND - 1);
      yield { gte: bandedKey(family, lo), lte: bandedKey(family, hi) };
      lo = hi + 1;
    }
  },
};

/**
 * x.length when every char of `x` is ASCII (its UTF-8 bytes are then its char codes), else -1.
 * With putAscii, the append path's short strings (sources, ids, types, kids) are measured and
 * written in JS, not by three native calls each (isWellFormed, byteLength, write).
 */
export function asciiLength(x: string): number {
  for (let i = 0; i < x.length; i++) if (x.charCodeAt(i) > 0x7f) return -1;
  return x.length;
}

/** Writes an ASCII string (asciiLength(x) >= 0) at `o`; returns the offset after it. */
export function putAscii(b: Uint8Array, o: number, x: string): number {
  for (let i = 0; i < x.length; i++) b[o + i] = x.charCodeAt(i);
  return o + x.length;
}

// String.prototype.isWellFormed (ES2024, in Node 20) is not in this project's TS lib.
export const isWellFormed = (x: string): boolean => (x as unknown as { isWellFormed(): boolean }).isWellFormed();

/** UTF-8 for well-formed strings; UTF-16LE (flagged) when one holds a lone surrogate, which UTF-8 would turn into U+FFFD and so merge distinct strings. */
function textEncoding(...xs: string[]): 'utf8' | 'utf16le' {
  return xs.every(isWellFormed) ? 'utf8' : 'utf16le';
}

const UTF16 = 0x8000_0000;

export function dedupKey(source: string, id: string): Buffer {
  const as = asciiLength(source);
  const ai = asciiLength(id);
  if (as >= 0 && ai >= 0) {
    const b = dedupHead(as, 5 + as + ai);
    putAscii(b, putAscii(b, 5, source), id);
    return b;
  }
  const enc = isWellFormed(source) && isWellFormed(id) ? 'utf8' : 'utf16le';
  const ns = Buffer.byteLength(source, enc);
  const ni = Buffer.byteLength(id, enc);
  const b = dedupHead(enc === 'utf8' ? ns : ns + UTF16, 5 + ns + ni);
  b.write(source, 5, ns, enc);
  b.write(id, 5 + ns, ni, enc);
  return b;
}

/** A dedup key of `size` bytes with its family byte and 4-byte length prefix written, the rest to fill. */
function dedupHead(len: number, size: number): Buffer {
  const b = Buffer.allocUnsafe(size);
  b[0] = P.dedup;
  b[1] = len >>> 24;
  b[2] = (len >>> 16) & 0xff;
  b[3] = (len >>> 8) & 0xff;
  b[4] = len & 0xff;
  return b;
}

/**
 * The key prefixes of every dedup key of one source, one per encoding its keys can have (UTF-8,
 * and UTF-16LE for ids holding a lone surrogate). The length prefix keeps two sources apart even
 * when one source is a prefix of the other.
 */
export function dedupSourcePrefixes(source: string): Buffer[] {
  const encs: Array<'utf8' | 'utf16le'> = isWellFormed(source) ? ['utf8', 'utf16le'] : ['utf16le'];
  return encs.map((enc) => {
    const n = Buffer.byteLength(source, enc);
    const gte = Buffer.allocUnsafe(5 + n);
    gte[0] = P.dedup;
    gte.writeUInt32BE(enc === 'utf8' ? n : n + UTF16, 1);
    gte.write(source, 5, n, enc);
    return gte;
  });
}

export function decodeDedupKey(key: Uint8Array): { source: string; id: string } {
  const b = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  const raw = b.readUInt32BE(1);
  const enc = raw >= UTF16 ? 'utf16le' : 'utf8';
  const n = raw % UTF16;
  return { source: b.toString(enc, 5, 5 + n), id: b.toString(enc, 5 + n) };
}

/** 's', then 0x00 and UTF-8, or 0x01 and UTF-16LE for a subject with a lone surrogate. */
export function subjectKey(subject: string): Buffer {
  const enc = textEncoding(subject);
  const n = Buffer.byteLength(subject, enc);
  const b = Buffer.allocUnsafe(2 + n);
  b[0] = P.subject;
  b[1] = enc === 'utf8' ? 0 : 1;
  b.write(subject, 2, n, enc);
  return b;
}
