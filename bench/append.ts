// bench/append.ts: the `append` and `proof` sections of bench/results.json (DESIGN §13).
// append: the same 600-byte blocks, in batches of 100, appended (a) to the logstore as entries
// whose payload is a CloudEvent carrying the block (data_base64), every batch ONE synced LevelDB
// batch with entries, payloads, dedup index, Merkle nodes and head, and (b) to hypercore 11
// (`core.append(arrayOf100Buffers)`, its default storage), interleaved chunk by chunk so both see
// the same machine. Only the append calls are timed; the entries (JCS, SHA-256, an Ed25519 event
// signature each) are built ahead, outside the timing (their rate is reported apart). The headline
// awaits every append (one batch of 100 at a time, as DESIGN §13 states); `pipelined` keeps 4
// appends in flight on both sides (the logstore then group-commits them). Hypercore's default
// storage does not fsync per append (rocksdb_write with default options) while every logstore
// batch is fsync'd, and the logstore writes more bytes per block (entry + CloudEvent + index);
// the run measures the fsync limit of the machine too (synced batches per second, before and
// after, averaged), which bounds any store that awaits an fsync per batch of 100, and the CPU time
// per block of each side (all threads: JS, the database's threads, GC).
// proof: inclusion proofs from a store of n = 10^7 leaves (10^6 with --quick), built through the
// bulk path (synthetic leaf hashes; the tree, node keys and head are the real ones).

import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Level } from 'level';
import { openLogStore, type AppendItem } from '../logstore/index.ts';
import { bulkLoadTree } from '../logstore/bulk-load.ts';
import { TEST_LOG, makeDescriptor, makeItems, removeDir, tempDir } from '../testkit/logstore.ts';
import { parseHash } from '../verifier/encoding/wire.ts';
import { verifyInclusion, type Hash32 } from '../verifier/merkle/index.ts';

export interface BenchCtx {
  quick: boolean;
}

const BATCH = 100;
const BLOCK = 600;
/** Batches whose entries are built ahead, then appended (memory stays bounded). */
const CHUNK = 20;
/** Appends in flight in the pipelined run (the store group-commits them). */
const PIPELINE = 4;

function dirBytes(dir: string): number {
  let n = 0;
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const st = fs.statSync(path.join(dir, name));
    if (st.isFile()) n += st.size;
  }
  return n;
}

const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

/** Run fn(0..n-1) with at most `window` calls in flight, issued in index order. */
async function windowed(n: number, window: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(window, n) }, async () => {
    while (next < n) await fn(next++);
  });
  await Promise.all(lanes);
}

// hypercore ships no typings; this is the part of its API the bench uses.
type HypercoreCtor = new (dir: string) => {
  ready(): Promise<void>;
  append(blocks: Buffer[]): Promise<unknown>;
  close(): Promise<void>;
  readonly length: number;
};

async function loadHypercore(): Promise<HypercoreCtor> {
  const name = 'hypercore'; // a dev dependency, loaded only when this section runs
  return ((await import(name)) as { default: HypercoreCtor }).default;
}

interface Side {
  ms: number;
  /** CPU time of the whole process (all threads: JS, LevelDB/RocksDB, GC) while this side ran. */
  cpuUs: number;
  bytes: number;
}

const cpuNow = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

/**
 * Both stores, fresh, fed the same blocks in chunks of CHUNK batches: each chunk's logstore
 * entries are built first (untimed), then the chunk is appended to each store with `window`
 * appends in flight (1 = await every append), the order of the two alternating per chunk so
 * that neither always runs on a warmer or quieter machine.
 */
async function compare(blocks: Buffer[], total: number, window: number): Promise<{ logstore: Side; hypercore: Side; buildMs: number }> {
  const Hypercore = await loadHypercore();
  const lsDir = tempDir('cookwala-bench-logstore-');
  const hcDir = tempDir('cookwala-bench-hypercore-');
  try {
    const s = await openLogStore(lsDir);
    await s.init(makeDescriptor('full'));
    const core = new Hypercore(hcDir);
    await core.ready();
    let lsMs = 0;
    let hcMs = 0;
    let lsCpu = 0;
    let hcCpu = 0;
    let buildMs = 0;
    let tip = { seq: 0, hash: s.head().hash };
    for (let chunk = 0; chunk * CHUNK * BATCH < total; chunk++) {
      const n = Math.min(CHUNK, (total - chunk * CHUNK * BATCH) / BATCH);
      const tb = performance.now();
      const batches: AppendItem[][] = [];
      for (let b = 0; b < n; b++) {
        const items = makeItems(TEST_LOG, tip, BATCH, { block: blocks[(chunk * CHUNK + b) % blocks.length], prefix: 'b-' });
        tip = { seq: items[BATCH - 1].entry.seq, hash: items[BATCH - 1].entry.hash };
        batches.push(items);
      }
      buildMs += performance.now() - tb;
      const runLs = async () => {
        const [t, c] = [performance.now(), cpuNow()];
        await windowed(n, window, (b) => s.append(batches[b]));
        lsMs += performance.now() - t;
        lsCpu += cpuNow() - c;
      };
      const runHc = async () => {
        const [t, c] = [performance.now(), cpuNow()];
        await windowed(n, window, (b) => core.append(new Array<Buffer>(BATCH).fill(blocks[(chunk * CHUNK + b) % blocks.length])));
        hcMs += performance.now() - t;
        hcCpu += cpuNow() - c;
      };
      if (chunk % 2 === 0) {
        await runLs();
        await runHc();
      } else {
        await runHc();
        await runLs();
      }
    }
    if (s.head().seq !== total || core.length !== total)
      throw new Error(`stores hold ${s.head().seq} and ${core.length} blocks, want ${total}`);
    await s.close();
    await core.close();
    return {
      logstore: { ms: lsMs, cpuUs: lsCpu, bytes: dirBytes(lsDir) },
      hypercore: { ms: hcMs, cpuUs: hcCpu, bytes: dirBytes(hcDir) },
      buildMs,
    };
  } finally {
    removeDir(lsDir);
    removeDir(hcDir);
  }
}

const perSec = (n: number, ms: number) => round((n * 1000) / ms);

/**
 * The physical limit of the headline run, measured in the same run: synced LevelDB batches of one
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

export async function run(ctx: BenchCtx): Promise<Record<string, unknown>> {
  const total = ctx.quick ? 20_000 : 200_000;
  const blocks = Array.from({ length: 16 }, () => randomBytes(BLOCK));
  await compare(blocks, 2_000, 1); // warm-up: JIT, native modules, page cache
  const fsyncBefore = await syncedBatchesPerSec(ctx.quick ? 1000 : 3000);
  const seq = await compare(blocks, total, 1);
  const pipe = await compare(blocks, total, PIPELINE);
  const fsync = (fsyncBefore + (await syncedBatchesPerSec(ctx.quick ? 1000 : 3000))) / 2;
  return {
    logstoreBlocksPerSec: perSec(total, seq.logstore.ms),
    hypercoreBlocksPerSec: perSec(total, seq.hypercore.ms),
    ratioToHypercore: round(seq.hypercore.ms / seq.logstore.ms, 2),
    blocks: total,
    batch: BATCH,
    blockBytes: BLOCK,
    pipelined: {
      window: PIPELINE,
      logstoreBlocksPerSec: perSec(total, pipe.logstore.ms),
      hypercoreBlocksPerSec: perSec(total, pipe.hypercore.ms),
      ratioToHypercore: round(pipe.hypercore.ms / pipe.logstore.ms, 2),
    },
    syncedBatchesPerSec: round(fsync),
    fsyncBoundBlocksPerSec: round(fsync * BATCH),
    ratioToFsyncBound: round(perSec(total, seq.logstore.ms) / (fsync * BATCH), 2),
    logstoreCpuUsPerBlock: round(seq.logstore.cpuUs / total, 1),
    hypercoreCpuUsPerBlock: round(seq.hypercore.cpuUs / total, 1),
    entryBuildPerSec: perSec(total, seq.buildMs),
    logstoreBytesPerBlock: round(seq.logstore.bytes / total),
    hypercoreBytesPerBlock: round(seq.hypercore.bytes / total),
    logstoreSynced: true,
    hypercoreSynced: false,
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
