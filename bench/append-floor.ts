// bench/append-floor.ts: the LevelDB floor of the `append` section (docs/design.md §13 item 4):
// the least a store of our layout must do to append, as bench/floor-server.ts is for ingest and
// bench/verify-floor-child.ts for verify. recordStoreWrites captures, from a real logstore run,
// every key and value of every LevelDB batch the store writes for its appends (a bench-only
// wrapper of the store's own LevelDB handle, as bench/append.ts unsyncs it: the bytes, not a
// model of them); runFloor writes exactly those batches, each ONE chained batch written with
// sync:true, one after the other and each awaited, to a fresh LevelDB opened with the store's
// options, and nothing else. Left out, on purpose: the entry and payload encoding, the Merkle
// nodes, the (source, id) index read before each append, the append queue: everything the store
// computes. Invariant: the floor writes the same keys and values as the store, batch for batch
// (append-floor.test.ts reads both databases back and compares them).

import { Level } from 'level';
import { openLogStore, type AppendItem, type LogStore } from '../logstore/index.ts';
import { DEFAULT_WRITE_BUFFER } from '../logstore/store.ts';
import { makeDescriptor, removeDir, tempDir } from '../testkit/logstore.ts';
import { BATCH, mainThreadNow, mainUsPerBlock, type RunResult } from './append-hypercore.ts';
import { cpuNow, dirBytes, round } from './store-measure.ts';

/** One LevelDB batch as the store wrote it: its puts, in order (the store's appends delete nothing). */
export type RecordedBatch = Array<{ key: Buffer; value: Buffer }>;

/**
 * Record every batch the store writes from now on (chained batches: logstore/store.ts write).
 * The keys and values are copied, so a buffer the store reuses cannot change the record. Returns
 * the batches recorded so far; a write in any other form (array batch, put, del) throws, so a
 * change of the store's internals cannot leave the floor writing less than the store.
 */
export function recordStoreWrites(s: LogStore): () => RecordedBatch[] {
  type Chained = { put(k: Buffer, v: Buffer): unknown; del(k: Buffer): unknown };
  const holder = s as unknown as { db?: Record<string, unknown> & { batch: (...a: unknown[]) => unknown } };
  const db = holder.db;
  if (!db || typeof db.batch !== 'function')
    throw new Error('the logstore keeps no LevelDB handle `db` to record: update bench/append-floor.ts');
  const recorded: RecordedBatch[] = [];
  const batch = db.batch.bind(db);
  db.batch = (...a: unknown[]) => {
    if (a.length > 0) throw new Error('the logstore wrote an array batch: update bench/append-floor.ts');
    const b = batch() as Chained;
    const ops: RecordedBatch = [];
    recorded.push(ops);
    const put = b.put.bind(b);
    b.put = (k, v) => {
      ops.push({ key: Buffer.from(k), value: Buffer.from(v) });
      return put(k, v);
    };
    b.del = () => {
      throw new Error('the logstore deleted in an append batch: update bench/append-floor.ts');
    };
    return b;
  };
  for (const m of ['put', 'del']) {
    const f = db[m];
    if (typeof f === 'function')
      db[m] = () => {
        throw new Error(`the logstore called db.${m} while appending: update bench/append-floor.ts`);
      };
  }
  return () => recorded;
}

/** Our appends' batches: a fresh store of the bench's descriptor given `batches`, recorded (untimed). */
export async function storeBatches(batches: AppendItem[][]): Promise<RecordedBatch[]> {
  const dir = tempDir('cookwala-bench-record-');
  try {
    const s = await openLogStore(dir);
    await s.init(makeDescriptor('full'));
    const recorded = recordStoreWrites(s);
    for (const items of batches) await s.append(items);
    await s.close();
    const out = recorded();
    if (out.length !== batches.length) throw new Error(`the logstore wrote ${out.length} batches for ${batches.length} appends`);
    return out;
  } finally {
    removeDir(dir);
  }
}

/** Keys and value bytes a recorded append writes, the first batch's (for the report). */
export function batchShape(b: RecordedBatch): { keys: number; keyBytes: number; valueBytes: number } {
  let keyBytes = 0;
  let valueBytes = 0;
  for (const o of b) {
    keyBytes += o.key.length;
    valueBytes += o.value.length;
  }
  return { keys: b.length, keyBytes, valueBytes };
}

/** Open a LevelDB as the store opens its own (logstore/store.ts openLogStore, default options). */
export function openFloorDb(dir: string): Level<Buffer, Buffer> {
  return new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: DEFAULT_WRITE_BUFFER });
}

/**
 * One floor run: each recorded batch written as one chained batch, synced, awaited, to a fresh
 * LevelDB in `dir` (a temporary one when absent, removed after). Figures as the store's runs.
 */
export async function runFloor(batches: RecordedBatch[], dir?: string): Promise<RunResult> {
  const at = dir ?? tempDir('cookwala-bench-floor-');
  const db = openFloorDb(at);
  try {
    await db.open();
    const [t, c, m] = [performance.now(), cpuNow(), mainThreadNow()];
    for (const ops of batches) {
      const b = db.batch();
      for (const o of ops) b.put(o.key, o.value);
      await b.write({ sync: true });
    }
    const [ms, cpu, m2] = [performance.now() - t, cpuNow() - c, mainThreadNow()];
    const blocks = batches.length * BATCH;
    await db.close();
    return {
      blocksPerSec: round((blocks * 1000) / ms),
      cpuUsPerBlock: round(cpu / blocks, 2),
      mainThreadCpuUsPerBlock: mainUsPerBlock(m, m2, blocks),
      bytesPerBlock: round(dirBytes(at) / blocks),
    };
  } finally {
    if (db.status === 'open') await db.close();
    if (dir === undefined) removeDir(at);
  }
}
