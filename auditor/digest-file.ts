// auditor/digest-file.ts: sorted files of 64-bit digests, 8 bytes each, little-endian: the
// (source, id) side file of an incremental audit (audit-ids.ts, docs/design.md §8) and the sorted
// runs a resumed run spills its new digests into. Three operations, each in bounded memory: read
// a file's high 32 bits into a Uint32Array (4 bytes a digest, CHUNK_BYTES read at a time, checking
// that the digests strictly increase), find a digest by bisection on those prefixes and a
// positioned read of the few digests that share its prefix, and merge sorted sources into one
// strictly increasing stream of CHUNK_BYTES pieces (a k-way merge, MERGE_READ_BYTES of each source
// held at a time). A digest is handled as its two 32-bit halves (hi, lo): no BigInt per digest.
// Left out: what a digest is made of (audit-ids.ts). Invariant: nothing here holds a whole file;
// memory is the prefix array plus fixed-size buffers.

import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { SpillFile } from '../verifier/bundle/index.ts';

export const DIGEST_BYTES = 8;
/** Bytes read or written at a time when a whole file goes through (131,072 digests). */
export const CHUNK_BYTES = 1 << 20;
/** Bytes of each source held at a time during a merge. */
export const MERGE_READ_BYTES = 64 * 1024;
/** Digests read at a time when several share a 32-bit prefix (almost always one). */
const PROBE_DIGESTS = 64;

/** Reads from `pos` into `into`, as much as there is up to its length: the count read (short only at the end). */
export type ReadAt = (pos: number, into: Buffer) => Promise<number>;

export interface DigestSource {
  read: ReadAt;
  count: number;
}

export function fileReadAt(fh: FileHandle): ReadAt {
  return async (pos, into) => {
    let at = 0;
    while (at < into.length) {
      const { bytesRead } = await fh.read(into, at, into.length - at, pos + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at;
  };
}

export function spillReadAt(f: SpillFile): ReadAt {
  return async (pos, into) => {
    const got = await f.read(pos, into.length, into);
    if (got.buffer !== into.buffer || got.byteOffset !== into.byteOffset) into.set(got);
    return got.length;
  };
}

export function memoryReadAt(bytes: Buffer): ReadAt {
  return async (pos, into) => (pos >= bytes.length ? 0 : bytes.copy(into, 0, pos, Math.min(bytes.length, pos + into.length)));
}

/** Strictly after (hi0, lo0)? */
const after = (hi: number, lo: number, hi0: number, lo0: number) => hi > hi0 || (hi === hi0 && lo > lo0);

export type PrefixRead = { ok: true; prefixes: Uint32Array } | { ok: false; detail: string };

/** The high halves of the `count` digests of `read`, read CHUNK_BYTES at a time; refused when short or not strictly increasing. */
export async function readPrefixes(read: ReadAt, count: number): Promise<PrefixRead> {
  const prefixes = new Uint32Array(count);
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, count * DIGEST_BYTES));
  let lastHi = -1;
  let lastLo = -1;
  let i = 0;
  while (i < count) {
    const want = Math.min(chunk.length, (count - i) * DIGEST_BYTES);
    const got = await read(i * DIGEST_BYTES, chunk.subarray(0, want));
    if (got < want) return { ok: false, detail: `holds ${i * DIGEST_BYTES + got} bytes, not ${count} digests` };
    for (let o = 0; o < want; o += DIGEST_BYTES, i++) {
      const lo = chunk.readUInt32LE(o);
      const hi = chunk.readUInt32LE(o + 4);
      if (!after(hi, lo, lastHi, lastLo)) return { ok: false, detail: 'is not sorted' };
      prefixes[i] = hi;
      lastHi = hi;
      lastLo = lo;
    }
  }
  return { ok: true, prefixes };
}

/** A sorted digest file held as its prefixes, searched with positioned reads of its descriptor. */
export interface DigestIndex {
  fd: number;
  prefixes: Uint32Array;
  /** Where the file's name is given in an error. */
  name: string;
}

/** Is the digest (hi, lo) in the indexed file? Synchronous: the verifier asks entry by entry. */
export function hasDigest(idx: DigestIndex, hi: number, lo: number): boolean {
  const p = idx.prefixes;
  let a = 0;
  let b = p.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (p[m] < hi) a = m + 1;
    else b = m;
  }
  let e = a;
  while (e < p.length && p[e] === hi) e++;
  if (e === a) return false;
  const probe = Buffer.allocUnsafe(Math.min(PROBE_DIGESTS, e - a) * DIGEST_BYTES);
  for (let i = a; i < e; i += PROBE_DIGESTS) {
    const k = Math.min(PROBE_DIGESTS, e - i);
    const want = k * DIGEST_BYTES;
    let at = 0;
    while (at < want) {
      const n = readSync(idx.fd, probe, at, want - at, i * DIGEST_BYTES + at);
      if (n === 0) throw new Error(`${idx.name} is shorter than when it was opened`);
      at += n;
    }
    for (let j = 0; j < k; j++)
      if (probe.readUInt32LE(j * DIGEST_BYTES) === lo && probe.readUInt32LE(j * DIGEST_BYTES + 4) === hi) return true;
  }
  return false;
}

interface Cursor {
  src: DigestSource;
  buf: Buffer;
  /** Offset of the current digest in buf, and the bytes buf holds. */
  at: number;
  len: number;
  /** Where buf was read from, in the source. */
  base: number;
  hi: number;
  lo: number;
}

/** Reads the cursor's next piece; false at the source's end. */
async function refill(c: Cursor): Promise<boolean> {
  c.base += c.len;
  const left = c.src.count * DIGEST_BYTES - c.base;
  if (left <= 0) return false;
  const want = Math.min(c.buf.length, left);
  const got = await c.src.read(c.base, c.buf.subarray(0, want));
  if (got < want) throw new Error(`a digest source holds fewer than its ${c.src.count} digests`);
  c.at = 0;
  c.len = want;
  return true;
}

const less = (a: Cursor, b: Cursor) => a.hi < b.hi || (a.hi === b.hi && a.lo < b.lo);

function siftDown(h: Cursor[], i: number): void {
  for (;;) {
    const l = 2 * i + 1;
    if (l >= h.length) return;
    const m = l + 1 < h.length && less(h[l + 1], h[l]) ? l + 1 : l;
    if (!less(h[m], h[i])) return;
    [h[i], h[m]] = [h[m], h[i]];
    i = m;
  }
}

/**
 * The union of sorted sources as one strictly increasing digest stream (a digest in several is
 * written once), in pieces of up to CHUNK_BYTES; a piece is one reused buffer, valid until the
 * next is asked for. `out.count` ends as the number written. A source out of order throws.
 */
export async function* mergeDigests(sources: readonly DigestSource[], out: { count: number }): AsyncGenerator<Buffer> {
  const heap: Cursor[] = [];
  for (const src of sources) {
    const c: Cursor = { src, buf: Buffer.allocUnsafe(MERGE_READ_BYTES), at: 0, len: 0, base: 0, hi: 0, lo: 0 };
    if (!(await refill(c))) continue;
    c.lo = c.buf.readUInt32LE(0);
    c.hi = c.buf.readUInt32LE(4);
    heap.push(c);
  }
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i);
  const piece = Buffer.allocUnsafe(CHUNK_BYTES);
  let at = 0;
  let lastHi = -1;
  let lastLo = -1;
  out.count = 0;
  while (heap.length > 0) {
    const c = heap[0];
    if (after(c.hi, c.lo, lastHi, lastLo)) {
      c.buf.copy(piece, at, c.at, c.at + DIGEST_BYTES);
      at += DIGEST_BYTES;
      out.count++;
      lastHi = c.hi;
      lastLo = c.lo;
      if (at === CHUNK_BYTES) {
        yield piece;
        at = 0;
      }
    } else if (c.hi !== lastHi || c.lo !== lastLo) throw new Error('a digest source is not sorted');
    c.at += DIGEST_BYTES;
    if (c.at >= c.len && !(await refill(c))) {
      const last = heap.pop()!;
      if (heap.length === 0) break;
      heap[0] = last;
    } else {
      c.lo = c.buf.readUInt32LE(c.at);
      c.hi = c.buf.readUInt32LE(c.at + 4);
    }
    siftDown(heap, 0);
  }
  if (at > 0) yield piece.subarray(0, at);
}
