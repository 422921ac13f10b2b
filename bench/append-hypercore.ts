// bench/append-hypercore.ts: hypercore's side of the `append` section (bench/append.ts, docs/design.md §13
// item 4): one run of hypercore 11 on its RocksDB storage (hypercore-storage 3), the same blocks in
// batches of 100, each append awaited, and in the synced mode RocksDB's write-ahead log fdatasync'd
// after every append (hypercore has no synced append: rocksdb-native calls rocksdb_write with the
// default WriteOptions, sync=false, and passes no option through; the bench asks RocksDB for its
// current WAL, `rocks.currentWalFile()`, a public rocksdb-native call, and syncs it, and the
// directory when a new WAL appears: what WriteOptions.sync=true does). Also the figures both
// stores' runs report (RunResult), with the main thread's share of the CPU (bench/proc-cpu.ts).
// Leaves out: the logstore's runs and the pairing (bench/append.ts).

import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { removeDir, tempDir } from '../testkit/logstore.ts';
import { mainThreadSched, type SchedSample } from './proc-cpu.ts';
import { cpuNow, dirBytes, round } from './store-measure.ts';

export const BATCH = 100;

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

export interface RunResult {
  blocksPerSec: number;
  cpuUsPerBlock: number;
  /** The process's main thread alone (the JS side: planning, encoding, hashing, the batch's calls); undefined off Linux. */
  mainThreadCpuUsPerBlock?: number;
  bytesPerBlock: number;
}

/** This process's main thread's scheduler counters (bench/proc-cpu.ts; undefined off Linux). */
export const mainThreadNow = (): SchedSample | undefined => mainThreadSched(process.pid);

/** Microseconds the main thread was on a core a block, between two mainThreadNow samples. */
export function mainUsPerBlock(before: SchedSample | undefined, after: SchedSample | undefined, blocks: number): number | undefined {
  return before === undefined || after === undefined ? undefined : round((after.runNs - before.runNs) / 1000 / blocks, 2);
}

/** One run of hypercore on a fresh core: every batch appended and awaited (and its WAL synced). */
export async function runHypercore(
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
    const [t, c, m] = [performance.now(), cpuNow(), mainThreadNow()];
    for (let b = 0; b < batches; b++) {
      await core.append(new Array<Buffer>(BATCH).fill(blocks[b % blocks.length]));
      if (wal) await wal.sync();
    }
    const [ms, cpu, m2] = [performance.now() - t, cpuNow() - c, mainThreadNow()];
    wal?.close();
    const n = batches * BATCH;
    if (core.length !== n) throw new Error(`hypercore holds ${core.length} blocks, want ${n}`);
    await core.close();
    if (!storage.closed) await storage.close();
    return {
      blocksPerSec: round((n * 1000) / ms),
      cpuUsPerBlock: round(cpu / n, 2),
      mainThreadCpuUsPerBlock: mainUsPerBlock(m, m2, n),
      bytesPerBlock: round(dirBytes(dir) / n),
      ...(wal ? { walSyncs: wal.stats().syncs, walFiles: wal.stats().walFiles } : { walSyncs: 0, walFiles: 0 }),
    };
  } finally {
    removeDir(dir);
  }
}
