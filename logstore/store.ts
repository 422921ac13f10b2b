// logstore/store.ts: the durable store of one log (docs/design.md §6) over LevelDB (`level` 10), the write
// side (reads: store-read.ts; what both drivers write alike: store-write.ts). Every write (init,
// append group, checkpoint, erasure) is ONE chained batch written with sync:true, and writes are
// serialized (checkpoints in an order of their own, beside the appends: store-write.ts), so the
// disk always holds a prefix of the appends, each whole. Appends are group-committed and pipelined (append-queue.ts). The head and
// the Merkle frontier live in memory (restored at open from the head record and the stored nodes
// of rootPlan(head.seq)) and move only after a batch is durable. At open the store finishes any
// interrupted erasure, refuses to run behind its latest signed checkpoint (store_behind_checkpoint),
// and a second process gets store_locked. Leaves out: signature checks of checkpoints and events
// (the sequencer and verifier do those) and event ordering policy (cookwalaseq rules are the
// sequencer's). Invariants: the store never holds two checkpoints for one seq nor a checkpoint that
// disagrees with its entries; after a write that failed inside LevelDB (or after it) the store
// refuses writes (store_failed) until reopened.

import { Level } from 'level';
import { ProtocolError } from '../verifier/index.ts';
import type { AppendItem, ErasureRecord, FaultHooks, Head, LogStore, OpenOptions, WriteKind } from './types.ts';
import { BANDED, familyRange, seqOfKey, wipeKey, P } from './keys.ts';
import { migrateToBanded } from './migrate.ts';
import type { Op } from './append-plan.ts';
import { compactRange, type DB } from './store-read.ts';
import { StoreWriter } from './store-write.ts';
import { openLevel } from '../platform/index.ts';

/** An error that means the disk (or quota) is full: ENOSPC/EDQUOT from Node, or LevelDB's IO error text. */
export function isNoSpace(e: unknown): boolean {
  const x = e as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  if (!x) return false;
  if (x.code === 'ENOSPC' || x.code === 'EDQUOT') return true;
  if (typeof x.message === 'string' && /no space left on device|disk quota exceeded/i.test(x.message)) return true;
  return x.cause !== undefined && x.cause !== e && isNoSpace(x.cause);
}
/** See OpenOptions.writeBufferSize. */
export const DEFAULT_WRITE_BUFFER = 32 * 1024 * 1024;

export async function openLogStore(dir: string, opts: OpenOptions = {}): Promise<LogStore> {
  const db: DB = new Level<Buffer, Buffer>(dir, {
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
    createIfMissing: opts.createIfMissing ?? true,
    writeBufferSize: opts.writeBufferSize ?? DEFAULT_WRITE_BUFFER,
    ...(opts.cacheSize !== undefined ? { cacheSize: opts.cacheSize } : {}),
    ...(opts.maxOpenFiles !== undefined ? { maxOpenFiles: opts.maxOpenFiles } : {}),
  });
  await openLevel(db, dir, 'log store');
  try {
    const migrated = await migrateToBanded(db, { onStep: opts.onMigrateStep, faults: opts.faults });
    if (migrated) opts.onMigrated?.(migrated);
    const store = new Store(dir, db, opts.faults);
    await store.load();
    return store;
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

class Store extends StoreWriter<DB> implements LogStore {
  private failed: string | undefined;
  /** Each write is its own atomic batch, and LevelDB orders concurrent ones: a checkpoint need not wait for the appends. */
  protected override checkpointsBesideAppends = true;

  constructor(
    readonly dir: string,
    db: DB,
    private readonly faults: FaultHooks | undefined,
  ) {
    super(db, BANDED);
  }

  /** The state at open (store-write.ts loadDurable). */
  load(): Promise<void> {
    return this.loadDurable();
  }

  protected assertCanWrite(): void {
    if (this.failed) throw new ProtocolError('store_failed', `an earlier write failed (${this.failed}); reopen the store`);
  }

  protected checkInit(): void {
    this.assertCanWrite();
  }

  /** One synced atomic batch. A failure inside or after LevelDB's write poisons the store. */
  protected async write(kind: WriteKind, ops: Op[]): Promise<void> {
    const batch = this.db.batch();
    try {
      for (const op of ops) {
        if (op.type === 'put') batch.put(op.key, op.value);
        else batch.del(op.key);
      }
      await this.faults?.beforeWrite?.(kind);
    } catch (e) {
      await batch.close();
      // Nothing reached LevelDB: a full disk here leaves the store writable once space returns.
      if (isNoSpace(e)) throw new ProtocolError('disk_full', `${kind}: the disk is full; nothing was written`, { poisoned: false });
      throw e;
    }
    try {
      await batch.write({ sync: true });
    } catch (e) {
      this.failed = (e as Error).message;
      // LevelDB keeps a failed write's error until reopened: the store refuses writes from now on.
      if (isNoSpace(e))
        throw new ProtocolError(
          'disk_full',
          `${kind} batch failed, the disk is full: ${(e as Error).message}; reopen the store once space returns`,
          { poisoned: true },
        );
      throw new ProtocolError('store_failed', `${kind} batch failed: ${(e as Error).message}`);
    }
    try {
      await this.faults?.afterWrite?.(kind);
    } catch (e) {
      this.failed = `after ${kind}: ${(e as Error).message}`;
      throw e;
    }
  }

  append(items: AppendItem[]): Promise<Head> {
    return this.refuseClosed() ?? this.appendQueued(items);
  }

  erasePayload(seq: number, record: ErasureRecord, erasedEntry: AppendItem): Promise<Head> {
    return (
      this.refuseClosed() ??
      this.exclusive(async () => {
        this.assertCanWrite();
        const plan = await this.planErasure(this.initialized(), seq, record, erasedEntry);
        await this.compactPayload(seq);
        await this.write('erase', plan.ops);
        this.cur = plan.head;
        this.frontier = plan.frontier;
        await this.compactPayload(seq);
        await this.db.del(wipeKey(seq), { sync: true });
        return { ...this.cur };
      })
    );
  }

  /*
   * LevelDB drops an overwritten value only when a compaction merges it with its tombstone. A
   * memtable flush keeps both versions and may land at the deepest level, which compactRange never
   * rewrites. So an erasure first flushes the value into a table, writes the tombstone (which
   * then lands in a table above the value, their key ranges overlapping), and compacts again,
   * merging it down onto the value and dropping both. Readers opened before the erasure pin the
   * old version until a later compaction.
   */
  private compactPayload(seq: number): Promise<void> {
    const key = this.layout.key(P.payload, seq);
    return compactRange(this.db, key, Buffer.concat([key, Buffer.from([0])]));
  }

  /** Erasures whose wipe a crash interrupted: the same flush, tombstone, compact sequence. */
  protected async resumeWipes(): Promise<void> {
    const pending = await this.db.keys({ ...familyRange(P.wipe) }).all();
    for (const k of pending) {
      const seq = seqOfKey(k);
      await this.compactPayload(seq);
      await this.db.del(this.layout.key(P.payload, seq), { sync: true });
      await this.compactPayload(seq);
      await this.db.del(k, { sync: true });
    }
  }

  /** Refuses new writes, lets the queued ones finish (the append queue may reschedule), closes. */
  async close(): Promise<void> {
    if (await this.drain()) await this.db.close();
  }
}
