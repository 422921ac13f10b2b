// bench/append.ts: the `append` section of bench/results.json (docs/design.md §13
// item 4): the same 600-byte blocks, in batches of 100, each append awaited, appended (a) to
// the logstore as entries whose payload is a CloudEvent carrying the block (data_base64), every
// batch ONE LevelDB batch with entries, payloads, dedup index, Merkle nodes and head, and (b) to
// hypercore 11 (bench/append-hypercore.ts), on equal durability, reported separately:
//   synced   — the logstore fsyncs every batch (its only mode: sync:true); hypercore's RocksDB
//              write-ahead log is fdatasync'd after every append (bench/append-hypercore.ts).
//   unsynced — hypercore as it ships; the logstore with its LevelDB batches written sync:false
//              (a bench-only wrapper of the store's own LevelDB handle; it counts the writes it
//              unsynced and the run fails if that count is not the number of appends, so a change
//              of the store's internals cannot silently turn this back into a synced run).
// Each figure is measured in interleaved pairs (ours, hypercore, ours, hypercore, …, bench/pairs.ts)
// on fresh stores, and the median pair's ratio (ours / hypercore blocks/s) is reported with its
// spread; CPU time per block of each run (process.cpuUsage around the run: all threads — JS,
// LevelDB/RocksDB, GC) is paired the same way (ratio ours / hypercore, lower is better), and the
// main thread's share is reported beside it. The
// entries (JCS, SHA-256, an Ed25519 event signature each) are built once, untimed, and appended to
// every fresh store (a fresh store's head is the same every time); their build rate is reported
// apart. The fsync limit of the machine (synced LevelDB batches/s, before and after) bounds any
// store that awaits an fsync per batch of 100.
// steadyState: the synced pairs again with runs of STEADY_BLOCKS (300,000) blocks. A run of 50,000
// writes 53 MB to our store and 38 MB to hypercore's: hypercore's RocksDB keeps 64 MiB in its
// memtable, so such a run never flushes it and its CPU per block holds no flush or compaction at
// all, while our store's 32 MiB memtable is flushed once or twice. Runs six times as long flush
// and compact both stores many times over, as a store that keeps appending does.
// floor: the LevelDB floor (bench/append-floor.ts): the very batches our store wrote, each one
// synced LevelDB batch, nothing else; run just before each synced run of ours and paired with it
// (ratioToFloor = ours / the floor's blocks/s, target >= 0.85; CPU per block against the floor's,
// and the floor's against hypercore's of the same pair).
// layoutPrototype: bench/append-layout.ts.
// The `proof` section is bench/proof.ts.

import { randomBytes } from 'node:crypto';
import { Level } from 'level';
import { openLogStore, type AppendItem, type LogStore } from '../logstore/index.ts';
import { TEST_LOG, makeDescriptor, makeItems, removeDir, tempDir } from '../testkit/logstore.ts';
import { summarisePairs, type Pair } from './pairs.ts';
import { cpuNow, dirBytes, round } from './store-measure.ts';
import { layoutPrototype } from './append-layout.ts';
import { BATCH, mainThreadNow, mainUsPerBlock, runHypercore, type RunResult } from './append-hypercore.ts';
import { batchShape, runFloor, storeBatches } from './append-floor.ts';

export interface BenchCtx {
  quick: boolean;
}

const BLOCK = 600;
/** Blocks a run of the steady-state pairs (quick: 10,000, a smoke test of the code only). */
const STEADY_BLOCKS = 300_000;
const STEADY_PAIRS = 3;

/**
 * Write the store's LevelDB batches with sync:false (bench only: the unsynced comparison). The
 * store keeps its handle in a private field `db`; returns the count of batch writes unsynced.
 */
function unsyncStore(s: LogStore): () => number {
  type ChainedBatch = { write(o?: { sync?: boolean }): Promise<void> };
  const holder = s as unknown as { db?: { batch: (...a: unknown[]) => unknown } };
  const db = holder.db;
  if (!db || typeof db.batch !== 'function') throw new Error('the logstore keeps no LevelDB handle `db` to unsync: update bench/append.ts');
  const batch = db.batch.bind(db);
  let writes = 0;
  db.batch = (...a: unknown[]) => {
    if (a.length > 0) return batch(...a);
    const b = batch() as ChainedBatch;
    const write = b.write.bind(b);
    b.write = (o) => {
      writes++;
      return write({ ...o, sync: false });
    };
    return b;
  };
  return () => writes;
}

/** One run of the logstore on a fresh store: every batch appended and awaited. */
async function runLogstore(batches: AppendItem[][], synced: boolean): Promise<RunResult> {
  const dir = tempDir('cookwala-bench-logstore-');
  try {
    const s = await openLogStore(dir);
    await s.init(makeDescriptor('full'));
    const unsynced = synced ? null : unsyncStore(s);
    const [t, c, m] = [performance.now(), cpuNow(), mainThreadNow()];
    for (const items of batches) await s.append(items);
    const [ms, cpu, m2] = [performance.now() - t, cpuNow() - c, mainThreadNow()];
    const blocks = batches.length * BATCH;
    if (s.head().seq !== blocks) throw new Error(`the logstore holds ${s.head().seq} blocks, want ${blocks}`);
    if (unsynced && unsynced() !== batches.length)
      throw new Error(`${unsynced()} of ${batches.length} logstore batches were written unsynced: update bench/append.ts`);
    await s.close();
    return {
      blocksPerSec: round((blocks * 1000) / ms),
      cpuUsPerBlock: round(cpu / blocks, 2),
      mainThreadCpuUsPerBlock: mainUsPerBlock(m, m2, blocks),
      bytesPerBlock: round(dirBytes(dir) / blocks),
    };
  } finally {
    removeDir(dir);
  }
}

/**
 * The physical limit of the synced runs, measured in the same run: synced LevelDB batches of one
 * small value per second. A store that fsyncs every batch of 100 cannot append more than 100 times
 * this many blocks per second when each append is awaited.
 */
async function syncedBatchesPerSec(ms: number): Promise<number> {
  const dir = tempDir('cookwala-bench-fsync-');
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  try {
    await db.open();
    const v = randomBytes(100);
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      await db.batch([{ type: 'put', key: Buffer.from(`k${n++}`), value: v }], { sync: true });
    }
    return (n * 1000) / (performance.now() - t0);
  } finally {
    await db.close();
    removeDir(dir);
  }
}

interface ModeRuns {
  blocks: Array<Pair<{ logstore: RunResult; hypercore: RunResult }>>;
  /** extra: each store's main-thread CPU per block in that run. */
  cpu: Array<Pair<{ logstore?: number; hypercore?: number }>>;
}

/** One (ours, hypercore) pair of runs added to a mode's pairs. */
function addPair(r: ModeRuns, ours: RunResult, theirs: RunResult): void {
  r.blocks.push({
    limit: theirs.blocksPerSec,
    figure: ours.blocksPerSec,
    ratio: round(ours.blocksPerSec / theirs.blocksPerSec, 3),
    extra: { logstore: ours, hypercore: theirs },
  });
  r.cpu.push({
    limit: theirs.cpuUsPerBlock,
    figure: ours.cpuUsPerBlock,
    ratio: round(ours.cpuUsPerBlock / theirs.cpuUsPerBlock, 3),
    extra: { logstore: ours.mainThreadCpuUsPerBlock, hypercore: theirs.mainThreadCpuUsPerBlock },
  });
}

/** `n` batches of the bench's entries chained from `tip`, the blocks taken in turn from batch index `from` on. */
export function buildBatches(tip: { seq: number; hash: string }, n: number, blocks: Buffer[], from: number): AppendItem[][] {
  const out: AppendItem[][] = [];
  for (let b = from; b < from + n; b++) {
    const batch = makeItems(TEST_LOG, tip, BATCH, { block: blocks[b % blocks.length], prefix: 'b-' });
    tip = { seq: batch[BATCH - 1].entry.seq, hash: batch[BATCH - 1].entry.hash };
    out.push(batch);
  }
  return out;
}

/** A mode's pairs summarised: blocks/s (ours / hypercore) and CPU per block (ours / hypercore). */
function summariseMode(r: ModeRuns) {
  const blocks = summarisePairs(r.blocks);
  const cpu = summarisePairs(r.cpu);
  return {
    logstoreBlocksPerSec: blocks.median.figure,
    hypercoreBlocksPerSec: blocks.median.limit,
    ratioToHypercore: blocks.ratio,
    ratioSpread: blocks.ratioSpread,
    limitSpread: blocks.limitSpread,
    limitsAgree: blocks.limitsAgree,
    logstoreCpuUsPerBlock: cpu.median.figure,
    hypercoreCpuUsPerBlock: cpu.median.limit,
    cpuPerBlockRatioToHypercore: cpu.ratio,
    cpuRatioSpread: cpu.ratioSpread,
    logstoreMainThreadCpuUsPerBlock: cpu.median.extra!.logstore,
    hypercoreMainThreadCpuUsPerBlock: cpu.median.extra!.hypercore,
    logstoreBytesPerBlock: blocks.median.extra!.logstore.bytesPerBlock,
    hypercoreBytesPerBlock: blocks.median.extra!.hypercore.bytesPerBlock,
    pairs: r.blocks.map((p, i) => ({
      logstoreBlocksPerSec: p.figure,
      hypercoreBlocksPerSec: p.limit,
      ratio: p.ratio,
      logstoreCpuUsPerBlock: r.cpu[i].figure,
      hypercoreCpuUsPerBlock: r.cpu[i].limit,
      cpuRatio: r.cpu[i].ratio,
      logstoreMainThreadCpuUsPerBlock: p.extra!.logstore.mainThreadCpuUsPerBlock,
      hypercoreMainThreadCpuUsPerBlock: p.extra!.hypercore.mainThreadCpuUsPerBlock,
    })),
  };
}

interface FloorRuns {
  /** extra: the floor's and ours' runs. */
  blocks: Array<Pair<{ logstore: RunResult; floor: RunResult }>>;
  /** extra: hypercore's CPU per block in the same pair, beside the floor's. */
  cpu: Array<Pair<{ hypercore: number }>>;
}

/** One (floor, ours) pair: blocks/s and CPU per block of ours against the floor's, hypercore's CPU beside. */
function addFloorPair(r: FloorRuns, ours: RunResult, floor: RunResult, hypercore: RunResult): void {
  r.blocks.push({
    limit: floor.blocksPerSec,
    figure: ours.blocksPerSec,
    ratio: round(ours.blocksPerSec / floor.blocksPerSec, 3),
    extra: { logstore: ours, floor },
  });
  r.cpu.push({
    limit: floor.cpuUsPerBlock,
    figure: ours.cpuUsPerBlock,
    ratio: round(ours.cpuUsPerBlock / floor.cpuUsPerBlock, 3),
    extra: { hypercore: hypercore.cpuUsPerBlock },
  });
}

/** The floor's pairs summarised: ours / the floor (blocks/s, CPU per block) and the floor / hypercore's CPU. */
function summariseFloor(r: FloorRuns) {
  const blocks = summarisePairs(r.blocks);
  const cpu = summarisePairs(r.cpu);
  const floorCpu = cpu.median.limit;
  const hyperCpu = cpu.median.extra!.hypercore;
  return {
    floorBlocksPerSec: blocks.median.limit,
    logstoreBlocksPerSec: blocks.median.figure,
    ratioToFloor: blocks.ratio,
    ratioSpread: blocks.ratioSpread,
    limitSpread: blocks.limitSpread,
    limitsAgree: blocks.limitsAgree,
    floorCpuUsPerBlock: floorCpu,
    logstoreCpuUsPerBlock: cpu.median.figure,
    cpuPerBlockRatioToFloor: cpu.ratio,
    cpuRatioSpread: cpu.ratioSpread,
    floorMainThreadCpuUsPerBlock: blocks.median.extra!.floor.mainThreadCpuUsPerBlock,
    logstoreMainThreadCpuUsPerBlock: blocks.median.extra!.logstore.mainThreadCpuUsPerBlock,
    hypercoreCpuUsPerBlock: hyperCpu,
    floorCpuPerBlockRatioToHypercore: round(floorCpu / hyperCpu, 3),
    floorBytesPerBlock: blocks.median.extra!.floor.bytesPerBlock,
    pairs: r.blocks.map((p, i) => ({
      floorBlocksPerSec: p.limit,
      logstoreBlocksPerSec: p.figure,
      ratio: p.ratio,
      floorCpuUsPerBlock: r.cpu[i].limit,
      logstoreCpuUsPerBlock: r.cpu[i].figure,
      cpuRatio: r.cpu[i].ratio,
      hypercoreCpuUsPerBlock: r.cpu[i].extra!.hypercore,
    })),
  };
}

/** The head of a fresh store of the bench's descriptor (the same for every fresh store). */
export async function freshHead(): Promise<{ seq: number; hash: string; root: string }> {
  const dir = tempDir('cookwala-bench-head-');
  try {
    const s = await openLogStore(dir);
    await s.init(makeDescriptor('full'));
    const head = s.head();
    await s.close();
    return head;
  } finally {
    removeDir(dir);
  }
}

export async function run(ctx: BenchCtx): Promise<Record<string, unknown>> {
  const perRun = ctx.quick ? 5_000 : 50_000;
  const nPairs = ctx.quick ? 3 : 5;
  const batches = perRun / BATCH;
  const blocks = Array.from({ length: 16 }, () => randomBytes(BLOCK));
  // The entries, built once (untimed): every run appends them to a fresh store of the same descriptor.
  const tb = performance.now();
  const head0 = await freshHead();
  const items = buildBatches(head0, batches, blocks, 0);
  const buildMs = performance.now() - tb;
  // warm-up, one whole run of each (JIT, native modules, page cache), not counted; the store's
  // run records the batches it writes, which the floor writes again (bench/append-floor.ts)
  const recorded = await storeBatches(items);
  await runHypercore(blocks, batches, true);
  await runFloor(recorded);
  const fsyncBefore = await syncedBatchesPerSec(ctx.quick ? 1000 : 3000);
  const modes: Record<'synced' | 'unsynced', ModeRuns> = { synced: { blocks: [], cpu: [] }, unsynced: { blocks: [], cpu: [] } };
  let walSyncs = 0;
  let walFiles = 0;
  const floorRuns: FloorRuns = { blocks: [], cpu: [] };
  for (let i = 0; i < nPairs; i++)
    for (const mode of ['synced', 'unsynced'] as const) {
      // the floor just before the synced run of ours it is paired with (floor, ours, floor, ours, …)
      const floor = mode === 'synced' ? await runFloor(recorded) : undefined;
      const ours = await runLogstore(items, mode === 'synced');
      const theirs = await runHypercore(blocks, batches, mode === 'synced');
      walSyncs += theirs.walSyncs;
      walFiles += theirs.walFiles;
      addPair(modes[mode], ours, theirs);
      if (floor) addFloorPair(floorRuns, ours, floor, theirs);
    }
  // The steady state (see the header): the synced pairs again, with runs six times as long.
  const steadyBatches = (ctx.quick ? 10_000 : STEADY_BLOCKS) / BATCH;
  const last = items[batches - 1][BATCH - 1].entry;
  const steadyItems = items.concat(buildBatches(last, steadyBatches - batches, blocks, batches));
  const steadyRuns: ModeRuns = { blocks: [], cpu: [] };
  for (let i = 0; i < STEADY_PAIRS; i++)
    addPair(steadyRuns, await runLogstore(steadyItems, true), await runHypercore(blocks, steadyBatches, true));
  steadyItems.length = 0;
  const fsync = (fsyncBefore + (await syncedBatchesPerSec(ctx.quick ? 1000 : 3000))) / 2;
  const layout = await layoutPrototype(items, head0, nPairs);
  const synced = summariseMode(modes.synced);
  const unsynced = summariseMode(modes.unsynced);
  const steadyState = { blocksPerRun: steadyBatches * BATCH, ...summariseMode(steadyRuns) };
  const floor = { ...summariseFloor(floorRuns), perAppend: batchShape(recorded[recorded.length - 1]) };
  recorded.length = 0;
  return {
    // headline: equal durability, both synced per batch (the docs/design.md §13 targets)
    ratioToHypercore: synced.ratioToHypercore,
    syncedRatioToHypercore: synced.ratioToHypercore,
    unsyncedRatioToHypercore: unsynced.ratioToHypercore,
    logstoreBlocksPerSec: synced.logstoreBlocksPerSec,
    hypercoreBlocksPerSec: synced.hypercoreBlocksPerSec,
    ratioSpread: synced.ratioSpread,
    limitSpread: synced.limitSpread,
    limitsAgree: synced.limitsAgree && unsynced.limitsAgree && steadyState.limitsAgree && floor.limitsAgree,
    // the LevelDB floor (bench/append-floor.ts): ours / the floor's blocks/s, target >= 0.85
    ratioToFloor: floor.ratioToFloor,
    cpuPerBlockRatioToFloor: floor.cpuPerBlockRatioToFloor,
    floor,
    cpuPerBlockRatioToHypercore: synced.cpuPerBlockRatioToHypercore,
    logstoreCpuUsPerBlock: synced.logstoreCpuUsPerBlock,
    hypercoreCpuUsPerBlock: synced.hypercoreCpuUsPerBlock,
    synced,
    unsynced,
    steadyState,
    pairs: nPairs,
    blocksPerRun: perRun,
    batch: BATCH,
    blockBytes: BLOCK,
    syncedBatchesPerSec: round(fsync),
    fsyncBoundBlocksPerSec: round(fsync * BATCH),
    ratioToFsyncBound: round(synced.logstoreBlocksPerSec / (fsync * BATCH), 2),
    entryBuildPerSec: round((perRun * 1000) / buildMs),
    layoutPrototype: layout,
    hypercoreSync: {
      how: 'fdatasync of RocksDB current WAL (rocks.currentWalFile()) after every awaited append; directory fsync on a new WAL',
      walSyncs,
      walFiles,
    },
    note:
      'hypercore 11 / hypercore-storage 3 / rocksdb-native 3 pass no sync option to rocksdb_write (WriteOptions default sync=false); ' +
      'the synced runs sync its WAL from outside after each append. The unsynced logstore runs write sync:false through a bench-only wrapper.',
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const out = { append: await run({ quick }) };
  console.log(JSON.stringify(out, null, 2));
}
