// verifier/bundle/id-set.ts: the (source, id) uniqueness check of DESIGN §8 in bounded memory. Each
// pair becomes a 64-bit digest, the first 8 bytes of SHA-256(salt || u32be(len source) || source ||
// id) with a fresh random 16-byte salt per run, kept in an open-addressing table of Uint32 pairs
// (linear probing, load <= 0.6, doubling). Without a spill sink (the browser page) that is all:
// at most about 27 bytes per distinct pair (16 MB for 10^6 pairs); a true duplicate is always
// found; a false one needs two of n pairs to share 64 bits, probability below n^2 / 2^65, and the
// secret salt keeps a log writer from crafting one.
// With a spill sink (`cookwala verify`, verifier/cli/spill-dir.ts) memory stays flat and the
// check is exact: every pair also goes, with its seq, line and digest, to a side file
// (id-spill.ts; about 60 bytes a pair on disk). The table grows to `tableSlots` (2^20 slots, 8 MB,
// about 629,000 pairs) and is then dropped, its pairs read back from the side file as sorted runs;
// every later pair joins a record buffer that is sorted and spilled as a run when full
// (`runRecords`, 2^18: 5 MB). In this mode a digest the table already held is only a candidate
// and nothing is reported on the way: at the end the runs are merged, equal digests meet in
// arrival order, and each repeated digest is confirmed by comparing the source and id strings read
// back from the side file. So a true duplicate is always reported, with the seq and line of the
// later entry and the failure the in-memory path gives, and a false one never is.
// Memory in that mode: the table (<= tableSlots x 8 bytes) or the record buffer (20 bytes x
// runRecords), two or three 1 MiB side-write buffers, 64 KiB per run in a merge: about 10-20 MB
// at any n. Left out: which earlier seq held the pair (the report names the later entry, as it
// always did); duplicates found at the end come after the failures found on the way, so among
// failures of one line (seq, line) they sort last.
// Invariant: spill mode reports exactly the pairs seen before, in either phase and across it.

import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import { compactRuns, createRecordBuffer, FAN_IN, mergeRuns, RECORD_BYTES, type Run, type SpillFile, type SpillSink } from './id-spill.ts';

export interface IdDuplicate {
  seq: number;
  line: number;
  source: string;
  id: string;
}

export interface IdSpillOptions {
  sink: SpillSink;
  /** Table slots before the set spills (power of two; default 2^20 = 8 MB). */
  tableSlots?: number;
  /** Records per sorted run once spilling (default 2^18, at most 2^20). */
  runRecords?: number;
  /** Bytes of the side-file write buffer (default 1 MiB). */
  sideBuffer?: number;
}

export interface IdSet {
  /**
   * Adds the pair seen at (seq, line); false when it is known now to be a duplicate (only without
   * a spill sink: with one, every duplicate is confirmed and reported by finish()).
   */
  add(source: string, id: string, seq?: number, line?: number): boolean;
  /** Backpressure: a promise to await before the next add while spilled bytes are written, else undefined. */
  wait(): Promise<void> | undefined;
  /** The input is over: reports the duplicates found only now (by digest, each pair's copies in arrival order; the failure list sorts them by seq) and removes every spill file. */
  finish(onDuplicate: (d: IdDuplicate) => void): Promise<void>;
  /** Removes every spill file without reporting (the run was abandoned). */
  dispose(): Promise<void>;
  /** Pairs added (distinct ones while nothing was spilled). */
  readonly size: number;
  /** Bytes held in memory by the table or the record buffer, for the memory bound in reports and tests. */
  readonly bytes: number;
  /** Runs written so far (0: nothing spilled; with a sink the side file may still exist). */
  readonly runsWritten: number;
  /** The pairs held by the table when it was dropped (0 while it is held). */
  readonly spilledAfter: number;
}

const MAX_LOAD = 0.6;
const SIDE_HEAD = 28; // u32 length of the rest, f64 seq, f64 line, u32 hi, u32 lo; then u32be(len source) || source || id
const dec = new TextDecoder();

export function createIdSet(
  opts: { backend?: CryptoBackend; salt?: Uint8Array; initialSlots?: number; spill?: IdSpillOptions } = {},
): IdSet {
  const backend = opts.backend ?? defaultBackend();
  const salt = opts.salt ?? backend.randomBytes(16);
  let slots = Math.max(16, 2 ** Math.ceil(Math.log2(opts.initialSlots ?? 1024)));
  let table: Uint32Array | undefined = new Uint32Array(2 * slots); // (hi, lo) per slot; (0, 0) is empty
  let count = 0;

  const enc = new TextEncoder();
  let buf = new Uint8Array(256);
  buf.set(salt, 0);
  let dHi = 0;
  let dLo = 0;
  let pairEnd = 0; // end of salt || u32be(len) || source || id in buf

  /** The digest of buf[0, end) into dHi, dLo; (0, 0) is moved to (0, 1), the empty slot. */
  function digestBuf(b: Uint8Array, end: number): void {
    const d = backend.sha256(b.subarray(0, end));
    dHi = ((d[0] << 24) | (d[1] << 16) | (d[2] << 8) | d[3]) >>> 0;
    dLo = ((d[4] << 24) | (d[5] << 16) | (d[6] << 8) | d[7]) >>> 0;
    if (dHi === 0 && dLo === 0) dLo = 1;
  }

  function digest(source: string, id: string): void {
    // salt || u32be(byte length of source) || source || id, in one reused buffer.
    const need = salt.length + 4 + 3 * (source.length + id.length);
    if (buf.length < need) {
      buf = new Uint8Array(2 * need);
      buf.set(salt, 0);
    }
    const sLen = enc.encodeInto(source, buf.subarray(salt.length + 4)).written;
    new DataView(buf.buffer).setUint32(salt.length, sLen);
    const iLen = enc.encodeInto(id, buf.subarray(salt.length + 4 + sLen)).written;
    pairEnd = salt.length + 4 + sLen + iLen;
    digestBuf(buf, pairEnd);
  }

  // Returns true if inserted, false if present. The table always has an empty slot (load < 1).
  function insert(t: Uint32Array, n: number, hi: number, lo: number): boolean {
    const mask = n - 1;
    let p = (lo ^ hi) & mask;
    for (;;) {
      const h = t[2 * p];
      const l = t[2 * p + 1];
      if (h === 0 && l === 0) {
        t[2 * p] = hi;
        t[2 * p + 1] = lo;
        return true;
      }
      if (h === hi && l === lo) return false;
      p = (p + 1) & mask;
    }
  }

  function grow(): void {
    const old = table as Uint32Array;
    const oldSlots = slots;
    slots *= 2;
    const t = new Uint32Array(2 * slots);
    for (let p = 0; p < oldSlots; p++) {
      const h = old[2 * p];
      const l = old[2 * p + 1];
      if (h !== 0 || l !== 0) insert(t, slots, h, l);
    }
    table = t;
  }

  if (!opts.spill) {
    return {
      add(source, id) {
        digest(source, id);
        if (!insert(table as Uint32Array, slots, dHi, dLo)) return false;
        count++;
        if (count > MAX_LOAD * slots) grow();
        return true;
      },
      wait: () => undefined,
      finish: async () => undefined,
      dispose: async () => undefined,
      get size() {
        return count;
      },
      get bytes() {
        return (table as Uint32Array).byteLength;
      },
      runsWritten: 0,
      spilledAfter: 0,
    };
  }

  // ---- spill mode ----
  const sink = opts.spill.sink;
  const tableSlots = Math.max(16, 2 ** Math.ceil(Math.log2(opts.spill.tableSlots ?? 1 << 20)));
  if (slots > tableSlots) {
    slots = tableSlots;
    table = new Uint32Array(2 * slots);
  }
  const runRecords = Math.max(2, opts.spill.runRecords ?? 1 << 18);
  const sideBufBytes = Math.max(64, opts.spill.sideBuffer ?? 1 << 20);
  let side: SpillFile | undefined;
  let sideChunk = new Uint8Array(sideBufBytes);
  let sideView = new DataView(sideChunk.buffer);
  let sideFill = 0;
  let sideSize = 0; // bytes of side records so far, flushed or buffered
  let records: ReturnType<typeof createRecordBuffer> | undefined;
  const runs: Run[] = [];
  let runsWritten = 0;
  let candidates = 0;
  let added = 0;
  let spilledAfter = 0;
  let names = 0;
  // Every write is serialized on one chain; `failure` keeps the first error for the next wait.
  let tail: Promise<void> = Promise.resolve();
  let queued = 0;
  let failure: unknown;
  let disposed = false;

  function queue(work: () => Promise<void>): void {
    queued++;
    tail = tail
      .then(() => (failure || disposed ? undefined : work()))
      .catch((e: unknown) => {
        failure ??= e;
      })
      .finally(() => {
        queued--;
      });
  }
  function rethrow(): void {
    if (failure) throw failure;
  }

  async function sideFile(): Promise<SpillFile> {
    side ??= await sink.create('pairs');
    return side;
  }

  // Written buffers come back to these pools, so a long run allocates a few buffers, not one per
  // write (garbage ArrayBuffers are collected late and would show as resident memory).
  const freeSide: Array<Uint8Array<ArrayBuffer>> = [];
  const freeRuns: Array<Uint8Array<ArrayBuffer>> = [];

  function flushSide(): void {
    if (sideFill === 0) return;
    const full = sideChunk;
    const chunk = full.subarray(0, sideFill);
    sideChunk = freeSide.pop() ?? new Uint8Array(sideBufBytes);
    sideView = new DataView(sideChunk.buffer);
    sideFill = 0;
    queue(async () => {
      await (await sideFile()).append(chunk);
      if (full.length === sideBufBytes) freeSide.push(full);
    });
  }

  /** Appends {seq, line, digest, u32be len, source, id} (the last three are buf after the salt); returns its offset. */
  function appendSide(seq: number, line: number): number {
    const body = pairEnd - salt.length; // u32be(len) || source || id
    const size = SIDE_HEAD + body;
    if (sideFill + size > sideChunk.length) {
      flushSide();
      if (size > sideChunk.length) {
        sideChunk = new Uint8Array(size);
        sideView = new DataView(sideChunk.buffer);
      }
    }
    const off = sideSize;
    sideView.setUint32(sideFill, size - 4);
    sideView.setFloat64(sideFill + 4, seq);
    sideView.setFloat64(sideFill + 12, line);
    sideView.setUint32(sideFill + 20, dHi);
    sideView.setUint32(sideFill + 24, dLo);
    sideChunk.set(buf.subarray(salt.length, pairEnd), sideFill + SIDE_HEAD);
    sideFill += size;
    sideSize += size;
    return off;
  }

  /** Writes a sorted run; compacts FAN_IN runs of one level into one of the next. */
  function spillRun(bytes: Uint8Array, n: number): void {
    runsWritten++;
    queue(async () => {
      const file = await sink.create(`run-${names++}`);
      await file.append(bytes);
      if (bytes.buffer instanceof ArrayBuffer && bytes.buffer.byteLength === runRecords * RECORD_BYTES)
        freeRuns.push(new Uint8Array(bytes.buffer));
      runs.push({ file, records: n, level: 0 });
      for (let level = 0; ; level++) {
        const same = runs.filter((r) => r.level === level);
        if (same.length < FAN_IN) break;
        const merged = await compactRuns(sink, same, `run-${names++}`);
        for (const r of same) runs.splice(runs.indexOf(r), 1);
        runs.push(merged);
      }
    });
  }

  function pushRecord(hi: number, lo: number, off: number): void {
    const r = (records ??= createRecordBuffer(runRecords));
    r.push(hi, lo, off);
    if (!r.full) return;
    const n = r.length;
    spillRun(r.take(freeRuns.pop() ?? new Uint8Array(runRecords * RECORD_BYTES)), n);
  }

  /** The table is dropped: every side record so far becomes a run record (read back with its digest). */
  async function rebuildFromSide(upTo: number): Promise<void> {
    const f = await sideFile();
    const rb = createRecordBuffer(runRecords);
    let pos = 0;
    let pendingWrite: Promise<void> | undefined;
    // Two output buffers in turn: one may still be written while the next run is sorted into the other.
    const spare = [new Uint8Array(runRecords * RECORD_BYTES), new Uint8Array(runRecords * RECORD_BYTES)];
    let turn = 0;
    const writeRun = async () => {
      const n = rb.length;
      const bytes = rb.take(spare[turn++ % 2]);
      await pendingWrite;
      runsWritten++;
      const file = await sink.create(`run-${names++}`);
      pendingWrite = file.append(bytes).then(() => {
        runs.push({ file, records: n, level: 0 });
      });
    };
    const space = new Uint8Array(1 << 20);
    let want = 1 << 20;
    while (pos < upTo) {
      const len = Math.min(want, upTo - pos);
      const chunk = await f.read(pos, len, len <= space.length ? space : undefined);
      const v = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let at = 0;
      while (at + 4 <= chunk.length) {
        const size = v.getUint32(at) + 4;
        if (at + size > chunk.length) break;
        rb.push(v.getUint32(at + 20), v.getUint32(at + 24), pos + at);
        if (rb.full) await writeRun();
        at += size;
      }
      if (at === 0) {
        // One record longer than the read (a very long source or id): read it whole.
        if (chunk.length < 4) throw new Error('the spill side file is shorter than written');
        want = v.getUint32(0) + 4;
        continue;
      }
      want = 1 << 20;
      pos += at;
    }
    if (rb.length > 0) await writeRun();
    await pendingWrite;
  }

  /** Reads one side record: its seq, line and the pair's bytes (u32be len || source || id). */
  async function readSide(off: number): Promise<{ seq: number; line: number; pair: Uint8Array }> {
    const f = await sideFile();
    let b = await f.read(off, 512);
    const size = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(0) + 4;
    if (b.length < size) b = await f.read(off, size);
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    return { seq: v.getFloat64(4), line: v.getFloat64(12), pair: b.subarray(SIDE_HEAD, size) };
  }

  /** The pair's bytes as a string, one char per byte: equal exactly when the bytes are. */
  function bytesKey(b: Uint8Array): string {
    let k = '';
    for (let i = 0; i < b.length; i += 8192) k += String.fromCharCode(...b.subarray(i, i + 8192));
    return k;
  }

  /** Reads a side record as a reported duplicate. */
  function duplicateOf(r: { seq: number; line: number; pair: Uint8Array }): IdDuplicate {
    const sLen = new DataView(r.pair.buffer, r.pair.byteOffset).getUint32(0);
    return { seq: r.seq, line: r.line, source: dec.decode(r.pair.subarray(4, 4 + sLen)), id: dec.decode(r.pair.subarray(4 + sLen)) };
  }

  async function removeAll(): Promise<void> {
    const files = [...runs.map((r) => r.file), ...(side ? [side] : [])];
    runs.length = 0;
    side = undefined;
    for (const f of files) await f.remove();
  }

  return {
    add(source, id, seq = 0, line = 0) {
      if (disposed) throw new Error('add after the id set was finished');
      digest(source, id);
      const off = appendSide(seq, line);
      added++;
      if (table) {
        if (!insert(table, slots, dHi, dLo)) candidates++;
        else {
          count++;
          if (count > MAX_LOAD * slots) {
            if (slots < tableSlots) grow();
            else {
              // Drop the table: its pairs are read back from the side file into sorted runs.
              spilledAfter = count;
              table = undefined;
              const upTo = sideSize;
              flushSide();
              queue(() => rebuildFromSide(upTo));
            }
          }
        }
      } else {
        pushRecord(dHi, dLo, off);
      }
      return true;
    },
    // Two writes may be queued while the reader goes on (the table's rebuild then overlaps reading).
    wait() {
      return queued > 2 ? tail.then(rethrow) : undefined;
    },
    async finish(report) {
      try {
        if (table && candidates === 0) return;
        if (table) {
          // Every digest the table held twice is confirmed now: all pairs become runs.
          const upTo = sideSize;
          flushSide();
          queue(() => rebuildFromSide(upTo));
          table = undefined;
        } else if (records && records.length > 0) {
          const n = records.length;
          spillRun(records.take(), n);
        }
        flushSide();
        await tail;
        rethrow();
        // Records come in (hi, off) order, so equal digests meet in arrival order. A digest seen once
        // costs two numbers; only a repeated one is read back, and the strings decide: each exact
        // pair is kept once per digest (a handful, since the salt is secret), its later copies reported.
        let gHi = -1;
        let firstLo = 0;
        let firstOff = 0;
        let group: Map<number, { first: number; keys?: Set<string> }> | undefined;
        const confirm = async (g: { first: number; keys?: Set<string> }, off: number) => {
          g.keys ??= new Set([bytesKey((await readSide(g.first)).pair)]);
          const r = await readSide(off);
          const key = bytesKey(r.pair);
          if (g.keys.has(key)) report(duplicateOf(r));
          else g.keys.add(key);
        };
        await mergeRuns(runs, (hi, lo, off) => {
          if (hi !== gHi) {
            gHi = hi;
            firstLo = lo;
            firstOff = off;
            group = undefined;
            return undefined;
          }
          group ??= new Map([[firstLo, { first: firstOff }]]);
          const g = group.get(lo);
          if (!g) {
            group.set(lo, { first: off });
            return undefined;
          }
          return confirm(g, off);
        });
      } finally {
        disposed = true;
        await tail;
        await removeAll();
      }
    },
    async dispose() {
      await tail; // the writes under way end first, so no file appears after the removal
      disposed = true;
      await removeAll();
    },
    get size() {
      return table ? count : added;
    },
    // The table or the record buffer; the side-write buffer (sideBuffer, 1 MiB) comes on top.
    get bytes() {
      return (table ? table.byteLength : 0) + (records?.bytes ?? 0);
    },
    get runsWritten() {
      return runsWritten;
    },
    get spilledAfter() {
      return spilledAfter;
    },
  };
}
