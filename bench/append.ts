// bench/append.ts: the `append` and `proof` sections of bench/results.json (DESIGN §13
// item 4). append: the same 600-byte blocks, in batches of 100, each append awaited, appended (a) to
// the logstore as entries whose payload is a CloudEvent carrying the block (data_base64), every
// batch ONE LevelDB batch with entries, payloads, dedup index, Merkle nodes and head, and (b) to
// hypercore 11 (`core.append(arrayOf100Buffers)`, its RocksDB storage, hypercore-storage 3), on
// equal durability, reported separately:
//   synced   — the logstore fsyncs every batch (its only mode: sync:true); hypercore has no synced
//              append (rocksdb-native calls rocksdb_write with default WriteOptions, sync=false, and
//              passes no option through), so after every append the bench asks RocksDB for its
//              current WAL (`rocks.currentWalFile()`, a public rocksdb-native call) and fdatasyncs
//              it (and the directory when a new WAL appears): what WriteOptions.sync=true does.
//   unsynced — hypercore as it ships; the logstore with its LevelDB batches written sync:false
//              (a bench-only wrapper of the store's own LevelDB handle; it counts the writes it
//              unsynced and the run fails if that count is not the number of appends, so a change
//              of the store's internals cannot silently turn this back into a synced run).
// Each figure is measured in interleaved pairs (ours, hypercore, ours, hypercore, …, bench/pairs.ts)
// on fresh stores, and the median pair's ratio (ours / hypercore blocks/s) is reported with its
// spread; CPU time per block of each run (process.cpuUsage around the run: all threads — JS,
// LevelDB/RocksDB, GC) is paired the same way (ratio ours / hypercore, lower is better). The
// entries (JCS, SHA-256, an Ed25519 event signature each) are built once, untimed, and appended to
// every fresh store (a fresh store's head is the same every time); their build rate is reported
// apart. The fsync limit of the machine (synced LevelDB batches/s, before and after) bounds any
// store that awaits an fsync per batch of 100.
// layoutPrototype (bench only): what fewer keys per entry (tiles and bundles) would save in
// LevelDB alone. The same planned batches (the store's own planGroup over the bench's entries) are
// written, synced, to a bare LevelDB as (a) the store writes them now (node, entry, payload and
// dedup key per entry: ~401 keys per batch of 100) and (b) bundled (one value each for the
// batch's entries, payloads and Merkle nodes, dedup keys and head kept: ~104 keys, same bytes), in
// interleaved pairs; reported is LevelDB-side CPU per block of each (the planning is untimed).
// proof: inclusion proofs from a store of n = 10^7 leaves (10^6 with --quick), built through the
// bulk path (synthetic leaf hashes; the tree, node keys and head are the real ones).

import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { Level } from 'level';
import { openLogStore, type AppendItem, type LogStore } from '../logstore/index.ts';
import { planGroup } from '../logstore/group-commit.ts';
import { P } from '../logstore/keys.ts';
import { createFrontier } from '../verifier/merkle/index.ts';
import { bulkLoadTree } from '../logstore/bulk-load.ts';
import { TEST_LOG, makeDescriptor, makeItems, removeDir, tempDir } from '../testkit/logstore.ts';
import { parseHash } from '../verifier/encoding/wire.ts';
import { verifyInclusion, type Hash32 } from '../verifier/merkle/index.ts';
import { summarisePairs, type Pair, type PairsResult } from './pairs.ts';

export interface BenchCtx {
  quick: boolean;
}

const BATCH = 100;
const BLOCK = 600;

function dirBytes(dir: string): number {
  let n = 0;
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const st = fs.statSync(path.join(dir, name));
    if (st.isFile()) n += st.size;
  }
  return n;
}

const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

// hypercore and hypercore-storage ship no typings; this is the part of their API the bench uses.
interface RocksLike {
  readonly path: string;
  currentWalFile(): Promise<{ path: string; number: number }>;
}
interface CoreStorageLike {
  readonly rocks: RocksLike;
  readonly closed: boolean;
  close(): Promise<void>;
}
type HypercoreCtor = new (storage: CoreStorageLike) => {
  ready(): Promise<void>;
  append(blocks: Buffer[]): Promise<unknown>;
  close(): Promise<void>;
  readonly length: number;
};
type CoreStorageCtor = new (dir: string) => CoreStorageLike;

async function loadHypercore(): Promise<{ Hypercore: HypercoreCtor; CoreStorage: CoreStorageCtor }> {
  const [hc, st] = ['hypercore', 'hypercore-storage']; // dev dependencies, loaded only when this section runs
  return {
    Hypercore: ((await import(hc)) as { default: HypercoreCtor }).default,
    CoreStorage: ((await import(st)) as { default: CoreStorageCtor }).default,
  };
}

const fdatasync = promisify(fs.fdatasync);
const fsync = promisify(fs.fsync);

/**
 * A durable hypercore append: fdatasync RocksDB's current WAL after the append resolved (the
 * append's write batch is in it: rocksdb_write returned). When the WAL changed since the last
 * append, the old one is synced and closed first and the directory fsync'd, so the new file's
 * name is durable too.
 */
function walSyncer(rocks: RocksLike) {
  let fd: number | null = null;
  let current = '';
  let syncs = 0;
  let walFiles = 0;
  return {
    async sync(): Promise<void> {
      const wal = await rocks.currentWalFile();
      const file = path.join(rocks.path, wal.path);
      if (file !== current) {
        if (fd !== null) {
          await fdatasync(fd);
          fs.closeSync(fd);
        }
        fd = fs.openSync(file, 'r');
        current = file;
        walFiles++;
        const dirFd = fs.openSync(rocks.path, 'r');
        try {
          await fsync(dirFd);
        } finally {
          fs.closeSync(dirFd);
        }
      }
      await fdatasync(fd!);
      syncs++;
    },
    close(): void {
      if (fd !== null) fs.closeSync(fd);
      fd = null;
    },
    stats: () => ({ syncs, walFiles }),
  };
}

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

interface RunResult {
  blocksPerSec: number;
  cpuUsPerBlock: number;
  bytesPerBlock: number;
}

const cpuNow = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

/** One run of the logstore on a fresh store: every batch appended and awaited. */
async function runLogstore(batches: AppendItem[][], synced: boolean): Promise<RunResult> {
  const dir = tempDir('cookwala-bench-logstore-');
  try {
    const s = await openLogStore(dir);
    await s.init(makeDescriptor('full'));
    const unsynced = synced ? null : unsyncStore(s);
    const [t, c] = [performance.now(), cpuNow()];
    for (const items of batches) await s.append(items);
    const [ms, cpu] = [performance.now() - t, cpuNow() - c];
    const blocks = batches.length * BATCH;
    if (s.head().seq !== blocks) throw new Error(`the logstore holds ${s.head().seq} blocks, want ${blocks}`);
    if (unsynced && unsynced() !== batches.length)
      throw new Error(`${unsynced()} of ${batches.length} logstore batches were written unsynced: update bench/append.ts`);
    await s.close();
    return {
      blocksPerSec: round((blocks * 1000) / ms),
      cpuUsPerBlock: round(cpu / blocks, 2),
      bytesPerBlock: round(dirBytes(dir) / blocks),
    };
  } finally {
    removeDir(dir);
  }
}

/** One run of hypercore on a fresh core: every batch appended and awaited (and its WAL synced). */
async function runHypercore(
  blocks: Buffer[],
  batches: number,
  synced: boolean,
): Promise<RunResult & { walSyncs: number; walFiles: number }> {
  const { Hypercore, CoreStorage } = await loadHypercore();
  const dir = tempDir('cookwala-bench-hypercore-');
  try {
    const storage = new CoreStorage(dir);
    const core = new Hypercore(storage);
    await core.ready();
    const wal = synced ? walSyncer(storage.rocks) : null;
    const [t, c] = [performance.now(), cpuNow()];
    for (let b = 0; b < batches; b++) {
      await core.append(new Array<Buffer>(BATCH).fill(blocks[b % blocks.length]));
      if (wal) await wal.sync();
    }
    const [ms, cpu] = [performance.now() - t, cpuNow() - c];
    wal?.close();
    const n = batches * BATCH;
    if (core.length !== n) throw new Error(`hypercore holds ${core.length} blocks, want ${n}`);
    await core.close();
    if (!storage.closed) await storage.close();
    return {
      blocksPerSec: round((n * 1000) / ms),
      cpuUsPerBlock: round(cpu / n, 2),
      bytesPerBlock: round(dirBytes(dir) / n),
      ...(wal ? { walSyncs: wal.stats().syncs, walFiles: wal.stats().walFiles } : { walSyncs: 0, walFiles: 0 }),
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

type KV = { key: Buffer; value: Buffer };

/** The bench's batches as the store would write them (planGroup on a fresh store's head), and bundled. */
function plannedBatches(items: AppendItem[][], head: { seq: number; hash: string; root: string }): { small: KV[][]; bundled: KV[][] } {
  let h = head;
  let f = createFrontier(0, []);
  const small: KV[][] = [];
  const bundled: KV[][] = [];
  items.forEach((batch, b) => {
    const p = planGroup(TEST_LOG, h, f, [batch], new Map());
    if (!p.outcomes[0].ok) throw new Error(`layout prototype: batch ${b} refused: ${p.outcomes[0].error.message}`);
    h = p.head;
    f = p.frontier;
    const ops = p.ops as KV[];
    small.push(ops);
    const kept: KV[] = [];
    const families = new Map<number, Buffer[]>();
    for (const o of ops) {
      if (o.key[0] === P.entry || o.key[0] === P.payload || o.key[0] === P.node) {
        const vs = families.get(o.key[0]) ?? [];
        vs.push(o.value);
        families.set(o.key[0], vs);
      } else kept.push(o);
    }
    // one key per family and batch ('E'/'P'/'N' + u64 batch number: not the store's prefixes)
    for (const [prefix, vs] of families) {
      const key = Buffer.alloc(9);
      key[0] = prefix - 0x20;
      key.writeUInt32BE(b, 5);
      kept.push({ key, value: Buffer.concat(vs) });
    }
    bundled.push(kept);
  });
  return { small, bundled };
}

/** CPU per block of writing these batches, each one synced chained batch, to a fresh LevelDB (the store's options). */
async function levelCpuPerBlock(batches: KV[][]): Promise<number> {
  const dir = tempDir('cookwala-bench-layout-');
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: 32 * 1024 * 1024 });
  try {
    await db.open();
    const c = cpuNow();
    for (const ops of batches) {
      const batch = db.batch();
      for (const o of ops) batch.put(o.key, o.value);
      await batch.write({ sync: true });
    }
    return round((cpuNow() - c) / (batches.length * BATCH), 2);
  } finally {
    await db.close();
    removeDir(dir);
  }
}

async function layoutPrototype(items: AppendItem[][], head: { seq: number; hash: string; root: string }, nPairs: number) {
  const { small, bundled } = plannedBatches(items, head);
  await levelCpuPerBlock(small); // warm-up
  const pairs: Pair[] = [];
  for (let i = 0; i < nPairs; i++) {
    const now = await levelCpuPerBlock(small);
    const fewer = await levelCpuPerBlock(bundled);
    pairs.push({ limit: now, figure: fewer, ratio: round(fewer / now, 3) });
  }
  const r = summarisePairs(pairs);
  return {
    keysPerBatchNow: small[0].length,
    keysPerBatchBundled: bundled[0].length,
    levelCpuUsPerBlockNow: r.median.limit,
    levelCpuUsPerBlockBundled: r.median.figure,
    cpuRatioBundledToNow: r.ratio,
    cpuRatioSpread: r.ratioSpread,
    note: 'bench-only prototype: LevelDB-side CPU per block (chained batch puts + synced write), planning untimed; not the store layout',
  };
}

interface ModeRuns {
  blocks: Array<Pair<{ logstore: RunResult; hypercore: RunResult }>>;
  cpu: Array<Pair>;
}

/** A mode's pairs summarised: blocks/s (ours / hypercore) and CPU per block (ours / hypercore). */
function summariseMode(r: ModeRuns) {
  const blocks = summarisePairs(r.blocks);
  const cpu: PairsResult = summarisePairs(r.cpu);
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
    logstoreBytesPerBlock: blocks.median.extra!.logstore.bytesPerBlock,
    hypercoreBytesPerBlock: blocks.median.extra!.hypercore.bytesPerBlock,
    pairs: r.blocks.map((p, i) => ({
      logstoreBlocksPerSec: p.figure,
      hypercoreBlocksPerSec: p.limit,
      ratio: p.ratio,
      logstoreCpuUsPerBlock: r.cpu[i].figure,
      hypercoreCpuUsPerBlock: r.cpu[i].limit,
      cpuRatio: r.cpu[i].ratio,
    })),
  };
}

/** The head of a fresh store of the bench's descriptor (the same for every fresh store). */
async function freshHead(): Promise<{ seq: number; hash: string; root: string }> {
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
  const items: AppendItem[][] = [];
  const head0 = await freshHead();
  let tip = { seq: head0.seq, hash: head0.hash };
  for (let b = 0; b < batches; b++) {
    const batch = makeItems(TEST_LOG, tip, BATCH, { block: blocks[b % blocks.length], prefix: 'b-' });
    tip = { seq: batch[BATCH - 1].entry.seq, hash: batch[BATCH - 1].entry.hash };
    items.push(batch);
  }
  const buildMs = performance.now() - tb;
  // warm-up, one whole run of each (JIT, native modules, page cache), not counted
  await runLogstore(items, true);
  await runHypercore(blocks, batches, true);
  const fsyncBefore = await syncedBatchesPerSec(ctx.quick ? 1000 : 3000);
  const modes: Record<'synced' | 'unsynced', ModeRuns> = { synced: { blocks: [], cpu: [] }, unsynced: { blocks: [], cpu: [] } };
  let walSyncs = 0;
  let walFiles = 0;
  for (let i = 0; i < nPairs; i++)
    for (const mode of ['synced', 'unsynced'] as const) {
      const ours = await runLogstore(items, mode === 'synced');
      const theirs = await runHypercore(blocks, batches, mode === 'synced');
      walSyncs += theirs.walSyncs;
      walFiles += theirs.walFiles;
      modes[mode].blocks.push({
        limit: theirs.blocksPerSec,
        figure: ours.blocksPerSec,
        ratio: round(ours.blocksPerSec / theirs.blocksPerSec, 3),
        extra: { logstore: ours, hypercore: theirs },
      });
      modes[mode].cpu.push({
        limit: theirs.cpuUsPerBlock,
        figure: ours.cpuUsPerBlock,
        ratio: round(ours.cpuUsPerBlock / theirs.cpuUsPerBlock, 3),
      });
    }
  const fsync = (fsyncBefore + (await syncedBatchesPerSec(ctx.quick ? 1000 : 3000))) / 2;
  const layout = await layoutPrototype(items, head0, nPairs);
  const synced = summariseMode(modes.synced);
  const unsynced = summariseMode(modes.unsynced);
  return {
    // headline: equal durability, both synced per batch (the DESIGN §13 targets)
    ratioToHypercore: synced.ratioToHypercore,
    syncedRatioToHypercore: synced.ratioToHypercore,
    unsyncedRatioToHypercore: unsynced.ratioToHypercore,
    logstoreBlocksPerSec: synced.logstoreBlocksPerSec,
    hypercoreBlocksPerSec: synced.hypercoreBlocksPerSec,
    ratioSpread: synced.ratioSpread,
    limitSpread: synced.limitSpread,
    limitsAgree: synced.limitsAgree && unsynced.limitsAgree,
    cpuPerBlockRatioToHypercore: synced.cpuPerBlockRatioToHypercore,
    logstoreCpuUsPerBlock: synced.logstoreCpuUsPerBlock,
    hypercoreCpuUsPerBlock: synced.hypercoreCpuUsPerBlock,
    synced,
    unsynced,
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

/** Synthetic leaf hashes: distinct, cheap, reproducible (the proof bench times reads, not hashing). */
function syntheticLeaf(i: number): Hash32 {
  const b = Buffer.alloc(32, 0x5a);
  b.writeUInt32BE(Math.floor(i / 2 ** 32), 0);
  b.writeUInt32BE(i % 2 ** 32, 4);
  return b;
}

export async function runProof(ctx: BenchCtx): Promise<Record<string, unknown>> {
  const n = ctx.quick ? 1_000_000 : 10_000_000;
  const samples = ctx.quick ? 2_000 : 5_000;
  const dir = tempDir('cookwala-bench-proof-');
  try {
    const tb = performance.now();
    const { root } = await bulkLoadTree(dir, makeDescriptor('full'), n, syntheticLeaf, 'sha256:' + 'ee'.repeat(32));
    const buildSeconds = (performance.now() - tb) / 1000;
    const s = await openLogStore(dir);
    try {
      if (s.head().root !== root) throw new Error('reopened root differs from the bulk-built root');
      const rootRaw = (parseHash(root) as { value: Uint8Array }).value;
      const seqs = Array.from({ length: samples }, () => 1 + Math.floor(Math.random() * n));
      for (const seq of seqs.slice(0, 200)) await s.inclusionProof(seq, n); // warm-up
      const times: number[] = [];
      const proofs: string[][] = [];
      for (const seq of seqs) {
        const t = performance.now();
        proofs.push(await s.inclusionProof(seq, n));
        times.push(performance.now() - t);
      }
      let maxLen = 0;
      for (let i = 0; i < seqs.length; i++) {
        const proof = proofs[i].map((h) => (parseHash(h) as { value: Uint8Array }).value);
        if (!verifyInclusion(syntheticLeaf(seqs[i] - 1), seqs[i] - 1, n, proof, rootRaw).ok)
          throw new Error(`proof for seq ${seqs[i]} does not verify`);
        maxLen = Math.max(maxLen, proof.length);
      }
      times.sort((a, b) => a - b);
      const mean = times.reduce((a, b) => a + b, 0) / times.length;
      return {
        inclusionMs: round(mean, 4),
        inclusionP50Ms: round(times[Math.floor(times.length * 0.5)], 4),
        inclusionP99Ms: round(times[Math.floor(times.length * 0.99)], 4),
        bytes: 32 * maxLen,
        bytesTarget: 32 * Math.ceil(Math.log2(n)),
        n,
        samples,
        nodeKeys: n,
        storeBytes: dirBytes(dir),
        buildSeconds: round(buildSeconds, 1),
        note: ctx.quick ? 'quick run: n = 10^6, not the 10^7 of the target' : 'n = 10^7',
      };
    } finally {
      await s.close();
    }
  } finally {
    removeDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const quick = process.argv.includes('--quick');
  const out = { append: await run({ quick }), proof: await runProof({ quick }) };
  console.log(JSON.stringify(out, null, 2));
}
