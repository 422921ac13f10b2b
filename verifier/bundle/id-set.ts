// verifier/bundle/id-set.ts: the (source, id) uniqueness check of docs/design.md §8 in bounded memory. Each
// pair becomes a 64-bit digest, the first 8 bytes of SHA-256(salt || u32be(len source) || source ||
// id) with a fresh random 16-byte salt per run, kept in an open-addressing table of Uint32 pairs
// (id-digests.ts; load <= 0.6, doubling). Without a spill sink (the browser page) that is all:
// at most about 27 bytes per distinct pair (16 MB for 10^6 pairs); a true duplicate is always
// found; a false one needs two of n pairs to share 64 bits, probability below n^2 / 2^65, and the
// secret salt keeps a log writer from crafting one.
// With a spill sink (`cookwala verify`, auditor/spill-dir.ts) memory stays flat and the
// check is exact: every pair also goes, with its seq, line and digest, to a side file
// (id-side-file.ts; about 60 bytes a pair on disk). The table grows to `tableSlots` (2^20 slots, 8 MB,
// about 629,000 pairs) and is then dropped, its pairs read back from the side file as sorted runs;
// every later pair joins a record buffer that is sorted and spilled as a run when full
// (`runRecords`, 2^18: 5 MB). In this mode a digest the table already held is only a candidate
// and nothing is reported on the way: at the end the runs are merged, equal digests meet in
// arrival order, and each repeated digest is confirmed by comparing the source and id strings read
// back from the side file. So a true duplicate is always reported, with the seq and line of the
// later entry and the failure the in-memory path gives, and a false one never is.
// Memory in that mode: the table (<= tableSlots x 8 bytes) or the record buffer (20 bytes x
// runRecords), two or three 1 MiB side-write buffers, 64 KiB per run in a merge: about 10-20 MB
// at any n; the sorted runs and their merge are id-spill.ts. Left out: which earlier seq held the
// pair (the report names the later entry, as it always did); duplicates found at the end come
// after the failures found on the way, so among failures of one line (seq, line) they sort last.
// Invariant: spill mode reports exactly the pairs seen before, in either phase and across it.

import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import { compactRuns, createRecordBuffer, FAN_IN, mergeRuns, RECORD_BYTES, type Run, type SpillSink } from './id-spill.ts';
import { createDigestTable, createPairDigester, type DigestTable } from './id-digests.ts';
import { bytesKey, createSideFile, createWriteChain, duplicateOf } from './id-side-file.ts';

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

export function createIdSet(
  opts: { backend?: CryptoBackend; salt?: Uint8Array; initialSlots?: number; spill?: IdSpillOptions } = {},
): IdSet {
  const backend = opts.backend ?? defaultBackend();
  const salt = opts.salt ?? backend.randomBytes(16);
  const d = createPairDigester(backend, salt);
  const initialSlots = Math.max(16, 2 ** Math.ceil(Math.log2(opts.initialSlots ?? 1024)));
  let count = 0;

  if (!opts.spill) {
    const t = createDigestTable(initialSlots);
    return {
      add(source, id) {
        d.digest(source, id);
        if (!t.insert(d.hi, d.lo)) return false;
        count++;
        if (count > MAX_LOAD * t.slots) t.grow();
        return true;
      },
      wait: () => undefined,
      finish: async () => undefined,
      dispose: async () => undefined,
      get size() {
        return count;
      },
      get bytes() {
        return t.byteLength;
      },
      runsWritten: 0,
      spilledAfter: 0,
    };
  }

  // ---- spill mode ----
  const sink = opts.spill.sink;
  const tableSlots = Math.max(16, 2 ** Math.ceil(Math.log2(opts.spill.tableSlots ?? 1 << 20)));
  let table: DigestTable | undefined = createDigestTable(Math.min(initialSlots, tableSlots));
  const runRecords = Math.max(2, opts.spill.runRecords ?? 1 << 18);
  const chain = createWriteChain();
  const side = createSideFile(sink, Math.max(64, opts.spill.sideBuffer ?? 1 << 20), chain);
  let records: ReturnType<typeof createRecordBuffer> | undefined;
  const runs: Run[] = [];
  let runsWritten = 0;
  let candidates = 0;
  let added = 0;
  let spilledAfter = 0;
  let names = 0;
  // Written run buffers come back to this pool (see the side file's).
  const freeRuns: Array<Uint8Array<ArrayBuffer>> = [];

  /** Writes a sorted run; compacts FAN_IN runs of one level into one of the next. */
  function spillRun(bytes: Uint8Array, n: number): void {
    runsWritten++;
    chain.queue(async () => {
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
    const rb = createRecordBuffer(runRecords);
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
    await side.scan(upTo, (hi, lo, off) => {
      rb.push(hi, lo, off);
      return rb.full ? writeRun() : undefined;
    });
    if (rb.length > 0) await writeRun();
    await pendingWrite;
  }

  /** Drops the table: the pairs so far are read back from the side file into sorted runs. */
  function dropTable(): void {
    table = undefined;
    const upTo = side.size;
    side.flush();
    chain.queue(() => rebuildFromSide(upTo));
  }

  async function removeAll(): Promise<void> {
    const files = [...runs.map((r) => r.file), ...side.take()];
    runs.length = 0;
    for (const f of files) await f.remove();
  }

  return {
    add(source, id, seq = 0, line = 0) {
      if (chain.closed) throw new Error('add after the id set was finished');
      d.digest(source, id);
      const off = side.append(seq, line, d.hi, d.lo, d.pairBytes());
      added++;
      if (table) {
        if (!table.insert(d.hi, d.lo)) candidates++;
        else {
          count++;
          if (count > MAX_LOAD * table.slots) {
            if (table.slots < tableSlots) table.grow();
            else {
              spilledAfter = count;
              dropTable();
            }
          }
        }
      } else {
        pushRecord(d.hi, d.lo, off);
      }
      return true;
    },
    // Two writes may be queued while the reader goes on (the table's rebuild then overlaps reading).
    wait() {
      return chain.queued > 2 ? chain.tail.then(() => chain.rethrow()) : undefined;
    },
    async finish(report) {
      try {
        if (table && candidates === 0) return;
        if (table) {
          // Every digest the table held twice is confirmed now: all pairs become runs.
          dropTable();
        } else if (records && records.length > 0) {
          const n = records.length;
          spillRun(records.take(), n);
        }
        side.flush();
        await chain.tail;
        chain.rethrow();
        // Records come in (hi, off) order, so equal digests meet in arrival order. A digest seen once
        // costs two numbers; only a repeated one is read back, and the strings decide: each exact
        // pair is kept once per digest (a handful, since the salt is secret), its later copies reported.
        let gHi = -1;
        let firstLo = 0;
        let firstOff = 0;
        let group: Map<number, { first: number; keys?: Set<string> }> | undefined;
        const confirm = async (g: { first: number; keys?: Set<string> }, off: number) => {
          g.keys ??= new Set([bytesKey((await side.read(g.first)).pair)]);
          const r = await side.read(off);
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
        chain.close();
        await chain.tail;
        await removeAll();
      }
    },
    async dispose() {
      await chain.tail; // the writes under way end first, so no file appears after the removal
      chain.close();
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
