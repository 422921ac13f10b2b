// verifier/bundle/id-side-file.ts: the side file of the spill mode of the (source, id) check of
// docs/design.md §8 (id-set.ts): every pair added, in arrival order, as one record {u32 length of the
// rest, f64 seq, f64 line, u32 hi, u32 lo, u32be(len source) || source || id}, written through a
// reused buffer (1 MiB by default), and read back either whole, in order, to turn the pairs into
// sorted runs once the table is dropped, or one record at an offset, to confirm a candidate
// duplicate by its strings. Every spill write goes through one write chain, so writes land in the
// order they were queued and the first error is kept for the next wait. No I/O of its own: the
// sink is injected (id-spill.ts). Left out: the sorted runs and their merge (id-spill.ts), when to
// spill (id-set.ts). Invariant: a record's offset is the number of side bytes before it, flushed
// or buffered, so offsets are unique and grow in arrival order.

import type { IdDuplicate } from './id-set.ts';
import type { SpillFile, SpillSink } from './id-spill.ts';

const SIDE_HEAD = 28; // u32 length of the rest, f64 seq, f64 line, u32 hi, u32 lo
const dec = new TextDecoder();

/** One chain on which every spill write is serialized; `failure` keeps the first error. */
export interface WriteChain {
  queue(work: () => Promise<void>): void;
  /** The chain's current end (every write queued so far settled). */
  readonly tail: Promise<void>;
  readonly queued: number;
  /** Throws the first error a write met, if any. */
  rethrow(): void;
  /** Writes queued from now on are skipped. */
  close(): void;
  readonly closed: boolean;
}

export function createWriteChain(): WriteChain {
  let tail: Promise<void> = Promise.resolve();
  let queued = 0;
  let failure: unknown;
  let closed = false;
  return {
    queue(work) {
      queued++;
      tail = tail
        .then(() => (failure || closed ? undefined : work()))
        .catch((e: unknown) => {
          failure ??= e;
        })
        .finally(() => {
          queued--;
        });
    },
    get tail() {
      return tail;
    },
    get queued() {
      return queued;
    },
    rethrow() {
      if (failure) throw failure;
    },
    close() {
      closed = true;
    },
    get closed() {
      return closed;
    },
  };
}

/** One side record read back: its seq, line and the pair's bytes (u32be len || source || id). */
export interface SideRecord {
  seq: number;
  line: number;
  pair: Uint8Array;
}

export interface SideFile {
  /** Buffers one record; returns its offset. */
  append(seq: number, line: number, hi: number, lo: number, pair: Uint8Array): number;
  /** Queues the buffered records for writing. */
  flush(): void;
  /** Bytes of records so far, flushed or buffered. */
  readonly size: number;
  /** Reads the records in [0, upTo) in order, awaiting `each` when it returns a promise. */
  scan(upTo: number, each: (hi: number, lo: number, off: number) => Promise<void> | undefined): Promise<void>;
  read(off: number): Promise<SideRecord>;
  /** The file, if one was created, now forgotten (the caller removes it). */
  take(): SpillFile[];
}

export function createSideFile(sink: SpillSink, bufBytes: number, chain: WriteChain): SideFile {
  let side: SpillFile | undefined;
  let chunk = new Uint8Array(bufBytes);
  let view = new DataView(chunk.buffer);
  let fill = 0;
  let size = 0;
  // Written buffers come back to this pool, so a long run allocates a few buffers, not one per
  // write (garbage ArrayBuffers are collected late and would show as resident memory).
  const free: Array<Uint8Array<ArrayBuffer>> = [];

  async function file(): Promise<SpillFile> {
    side ??= await sink.create('pairs');
    return side;
  }

  function flush(): void {
    if (fill === 0) return;
    const full = chunk;
    const part = full.subarray(0, fill);
    chunk = free.pop() ?? new Uint8Array(bufBytes);
    view = new DataView(chunk.buffer);
    fill = 0;
    chain.queue(async () => {
      await (await file()).append(part);
      if (full.length === bufBytes) free.push(full);
    });
  }

  return {
    append(seq, line, hi, lo, pair) {
      const n = SIDE_HEAD + pair.length;
      if (fill + n > chunk.length) {
        flush();
        if (n > chunk.length) {
          chunk = new Uint8Array(n);
          view = new DataView(chunk.buffer);
        }
      }
      const off = size;
      view.setUint32(fill, n - 4);
      view.setFloat64(fill + 4, seq);
      view.setFloat64(fill + 12, line);
      view.setUint32(fill + 20, hi);
      view.setUint32(fill + 24, lo);
      chunk.set(pair, fill + SIDE_HEAD);
      fill += n;
      size += n;
      return off;
    },
    flush,
    get size() {
      return size;
    },
    async scan(upTo, each) {
      const f = await file();
      let pos = 0;
      const space = new Uint8Array(1 << 20);
      let want = 1 << 20;
      while (pos < upTo) {
        const len = Math.min(want, upTo - pos);
        const got = await f.read(pos, len, len <= space.length ? space : undefined);
        const v = new DataView(got.buffer, got.byteOffset, got.byteLength);
        let at = 0;
        while (at + 4 <= got.length) {
          const n = v.getUint32(at) + 4;
          if (at + n > got.length) break;
          const p = each(v.getUint32(at + 20), v.getUint32(at + 24), pos + at);
          if (p) await p;
          at += n;
        }
        if (at === 0) {
          // One record longer than the read (a very long source or id): read it whole.
          if (got.length < 4) throw new Error('the spill side file is shorter than written');
          want = v.getUint32(0) + 4;
          continue;
        }
        want = 1 << 20;
        pos += at;
      }
    },
    async read(off) {
      const f = await file();
      let b = await f.read(off, 512);
      const n = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0) + 4;
      if (b.length < n) b = await f.read(off, n);
      const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
      return { seq: v.getFloat64(4), line: v.getFloat64(12), pair: b.subarray(SIDE_HEAD, n) };
    },
    take() {
      const out = side ? [side] : [];
      side = undefined;
      return out;
    },
  };
}

/** The pair's bytes as a string, one char per byte: equal exactly when the bytes are. */
export function bytesKey(b: Uint8Array): string {
  let k = '';
  for (let i = 0; i < b.length; i += 8192) k += String.fromCharCode(...b.subarray(i, i + 8192));
  return k;
}

/** Reads a side record as a reported duplicate. */
export function duplicateOf(r: SideRecord): IdDuplicate {
  const sLen = new DataView(r.pair.buffer, r.pair.byteOffset).getUint32(0);
  return { seq: r.seq, line: r.line, source: dec.decode(r.pair.subarray(4, 4 + sLen)), id: dec.decode(r.pair.subarray(4 + sLen)) };
}
