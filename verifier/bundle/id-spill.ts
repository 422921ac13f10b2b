// verifier/bundle/id-spill.ts: the on-disk half of the (source, id) uniqueness check of docs/design.md §8
// (id-set.ts), for a log too long for its in-memory table: an injected spill sink (the CLI's temp
// directory, auditor/spill-dir.ts; createMemorySink here for tests), a side file of every
// pair in arrival order ({seq, line, source, id}, so a duplicate is reported with its own seq and
// confirmed by comparing the strings), and sorted runs of 16-byte records (hi, lo: the pair's
// 64-bit salted digest; off: its side-file offset) ordered by (hi, off), merged 16 at a time as
// they pile up (so at most about 16 files per level are open) and once more at the end, where
// equal digests meet. No I/O of its own: this file stays pure and runs in a browser too.
// Memory: one record buffer (20 bytes a record, `runRecords` of them), one 1 MiB side-write
// buffer, 64 KiB per run being merged. Left out: the in-memory table (id-set.ts).
// Invariant: the order (hi, off) is total (offsets are unique), so every merge keeps arrival order
// among equal digests, and the first occurrence of a pair is never the one reported.

/** One temporary file of a sink: appended to, read back at any offset, removed. */
export interface SpillFile {
  /** Appends bytes; they are written (or copied) when the promise resolves, and the caller reuses them. */
  append(bytes: Uint8Array): Promise<void>;
  /** The bytes [pos, pos + length) of what was appended, shorter only at the end; in `into` when given (reused buffers keep memory flat). */
  read(pos: number, length: number, into?: Uint8Array): Promise<Uint8Array>;
  remove(): Promise<void>;
}

/** Where the id set spills: a directory in Node (auditor/spill-dir.ts), memory in tests. */
export interface SpillSink {
  create(name: string): Promise<SpillFile>;
}

/** A sink in memory, for the pure core's tests; counts what is live so tests can see removal. */
export function createMemorySink(): SpillSink & { readonly live: number; readonly created: number; readonly bytes: number } {
  let live = 0;
  let created = 0;
  let bytes = 0;
  return {
    get live() {
      return live;
    },
    get created() {
      return created;
    },
    get bytes() {
      return bytes;
    },
    async create() {
      live++;
      created++;
      let chunks: Uint8Array[] = [];
      let whole: Uint8Array | undefined;
      let size = 0;
      let removed = false;
      return {
        async append(b) {
          if (removed) throw new Error('append to a removed spill file');
          chunks.push(b.slice());
          size += b.length;
          bytes += b.length;
          whole = undefined;
        },
        async read(pos, length, into) {
          if (!whole) {
            whole = new Uint8Array(size);
            let at = 0;
            for (const c of chunks) {
              whole.set(c, at);
              at += c.length;
            }
            chunks = [whole];
          }
          const part = whole.subarray(pos, Math.min(size, pos + length));
          if (!into) return part.slice();
          into.set(part);
          return into.subarray(0, part.length);
        },
        async remove() {
          if (removed) return;
          removed = true;
          bytes -= size;
          chunks = [];
          whole = undefined;
          live--;
        },
      };
    },
  };
}

/** Bytes of one run record: hi u32, lo u32, side offset f64 (native order: written and read by one process). */
export const RECORD_BYTES = 16;
const READ_RECORDS = 4096; // 64 KiB per run in a merge
export const FAN_IN = 16;

export interface Run {
  file: SpillFile;
  records: number;
  level: number;
}

/** A record buffer sorted by (hi, arrival) with one native Float64 sort: key = hi * 2^k + index. */
export function createRecordBuffer(capacity: number) {
  const k = Math.ceil(Math.log2(Math.max(2, capacity)));
  if (k > 20) throw new Error('a run holds at most 2^20 records');
  const scale = 2 ** k;
  const keys = new Float64Array(capacity);
  const los = new Uint32Array(capacity);
  const offs = new Float64Array(capacity);
  let n = 0;
  return {
    get length() {
      return n;
    },
    get full() {
      return n === capacity;
    },
    bytes: keys.byteLength + los.byteLength + offs.byteLength,
    push(hi: number, lo: number, off: number): void {
      keys[n] = hi * scale + n;
      los[n] = lo;
      offs[n] = off;
      n++;
    },
    /** The records sorted by (hi, off) as run bytes, in `into` when it is large enough; empties the buffer. */
    take(into?: Uint8Array): Uint8Array {
      const sorted = keys.subarray(0, n).sort();
      const out = into && into.byteOffset === 0 && into.byteLength >= n * RECORD_BYTES ? into.buffer : new ArrayBuffer(n * RECORD_BYTES);
      const u = new Uint32Array(out, 0, 4 * n);
      const f = new Float64Array(out, 0, 2 * n);
      for (let j = 0; j < n; j++) {
        const key = sorted[j];
        const i = key % scale;
        u[4 * j] = (key - i) / scale;
        u[4 * j + 1] = los[i];
        f[2 * j + 1] = offs[i];
      }
      const bytes = new Uint8Array(out, 0, n * RECORD_BYTES);
      n = 0;
      return bytes;
    },
  };
}

/** Reads a run's records in order, 64 KiB at a time. */
class RunCursor {
  hi = 0;
  lo = 0;
  off = 0;
  private at = 0;
  private have = 0;
  private next = 0;
  private readonly space = new Uint8Array(READ_RECORDS * RECORD_BYTES);
  private readonly u = new Uint32Array(this.space.buffer);
  private readonly f = new Float64Array(this.space.buffer);
  constructor(readonly run: Run) {}
  /** Moves to the next record; false at the end. */
  async advance(): Promise<boolean> {
    if (this.at >= this.have) {
      if (this.next >= this.run.records) return false;
      const want = Math.min(READ_RECORDS, this.run.records - this.next);
      const b = await this.run.file.read(this.next * RECORD_BYTES, want * RECORD_BYTES, this.space);
      if (b.length !== want * RECORD_BYTES) throw new Error('a spill run came back shorter than written');
      if (b.buffer !== this.space.buffer || b.byteOffset !== 0) this.space.set(b);
      this.next += want;
      this.have = want;
      this.at = 0;
    }
    this.hi = this.u[4 * this.at];
    this.lo = this.u[4 * this.at + 1];
    this.off = this.f[2 * this.at + 1];
    this.at++;
    return true;
  }
}

const before = (a: RunCursor, b: RunCursor) => a.hi < b.hi || (a.hi === b.hi && a.off < b.off);

/** Merges runs in (hi, off) order, calling `each` per record (awaited when it returns a promise). */
export async function mergeRuns(runs: readonly Run[], each: (hi: number, lo: number, off: number) => Promise<void> | void): Promise<void> {
  const heap: RunCursor[] = [];
  for (const r of runs) {
    const c = new RunCursor(r);
    if (await c.advance()) heap.push(c);
  }
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) return;
      const m = l + 1 < heap.length && before(heap[l + 1], heap[l]) ? l + 1 : l;
      if (!before(heap[m], heap[i])) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
  while (heap.length > 0) {
    const c = heap[0];
    const w = each(c.hi, c.lo, c.off);
    if (w) await w;
    if (!(await c.advance())) {
      const last = heap.pop() as RunCursor;
      if (heap.length === 0) break;
      heap[0] = last;
    }
    down(0);
  }
}

/** Merges runs into one new run of the next level; removes the inputs. */
export async function compactRuns(sink: SpillSink, runs: readonly Run[], name: string): Promise<Run> {
  const file = await sink.create(name);
  const buf = new ArrayBuffer(READ_RECORDS * RECORD_BYTES);
  const u = new Uint32Array(buf);
  const f = new Float64Array(buf);
  let n = 0;
  let records = 0;
  const flush = async () => {
    if (n === 0) return;
    const out = new Uint8Array(buf, 0, n * RECORD_BYTES);
    n = 0;
    await file.append(out); // the merge waits for it, so the buffer is free again after
  };
  await mergeRuns(runs, (hi, lo, off) => {
    u[4 * n] = hi;
    u[4 * n + 1] = lo;
    f[2 * n + 1] = off;
    n++;
    records++;
    return n === READ_RECORDS ? flush() : undefined;
  });
  await flush();
  for (const r of runs) await r.file.remove();
  return { file, records, level: Math.max(...runs.map((r) => r.level)) + 1 };
}
