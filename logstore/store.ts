// logstore/store.ts: the durable store of one log (DESIGN §6) over LevelDB (`level` 10), the write
// side (reads: store-read.ts). Every write (init, append group, checkpoint, erasure) is ONE chained
// batch written with sync:true, and writes are serialized, so the disk always holds a prefix of the
// appends, each whole. Appends are group-committed and pipelined (append-queue.ts). The head and
// the Merkle frontier live in memory (restored at open from the head record and the stored nodes
// of rootPlan(head.seq)) and move only after a batch is durable. At open the store finishes any
// interrupted erasure, refuses to run behind its latest signed checkpoint (store_behind_checkpoint),
// and a second process gets store_locked. Leaves out: signature checks of checkpoints and events
// (the sequencer and verifier do those) and event ordering policy (cookwalaseq rules are the
// sequencer's). Invariants: the store never holds two checkpoints for one seq nor a checkpoint that
// disagrees with its entries; after a write that failed inside LevelDB (or after it) the store
// refuses writes (store_failed) until reopened.

import { checkCheckpointFits, checkCheckpointShape } from './checkpoint-checks.ts';
import { Level } from 'level';
import { ProtocolError } from '../verifier/errors.ts';
import { formatHash, isHashString } from '../verifier/encoding/wire.ts';
import { addCosignature } from '../verifier/documents/checkpoint.ts';
import { EMPTY_ROOT, createFrontier, rootPlan, type Frontier } from '../verifier/merkle/index.ts';
import type { AppendItem, Checkpoint, ErasureRecord, FaultHooks, Head, LogDescriptor, LogStore, OpenOptions, WriteKind } from './types.ts';
import { STORE_FORMAT, checkpointKey, familyRange, payloadKey, seqOfKey, singleKey, wipeKey, P } from './keys.ts';
import { decodeHead, decodeJson, encodeHead, encodeJson } from './values.ts';
import type { Op } from './append-plan.ts';
import { createAppendQueue } from './append-queue.ts';
import { StoreReader, type DB } from './store-read.ts';
import { openLevel } from '../platform/level-open.ts';

// `level`'s universal typings omit what only classic-level (its Node backend) has.
type Compactable = { compactRange(start: Buffer, end: Buffer): Promise<void> };

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
    const store = new Store(dir, db, opts.faults);
    await store.load();
    return store;
  } catch (e) {
    await db.close().catch(() => undefined);
    throw e;
  }
}

function emptyRootString(): string {
  return formatHash(EMPTY_ROOT);
}

class Store extends StoreReader implements LogStore {
  private frontier: Frontier | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly appender: ReturnType<typeof createAppendQueue>;
  private failed: string | undefined;
  private closed = false;

  constructor(
    readonly dir: string,
    db: DB,
    private readonly faults: FaultHooks | undefined,
  ) {
    super(db);
    this.appender = createAppendQueue({
      exclusive: (fn) => this.exclusive(fn),
      state: () => {
        this.assertWritable();
        const { desc, head, frontier } = this.initialized();
        return { log: desc.log, head, frontier };
      },
      readIndex: (keys) => db.getMany(keys),
      write: (ops) => this.write('append', ops),
      commit: (head, frontier) => {
        this.cur = head;
        this.frontier = frontier;
      },
    });
  }

  async load(): Promise<void> {
    const [v, d, h] = await this.db.getMany([singleKey.version, singleKey.descriptor, singleKey.head]);
    if (v && v.toString('utf8') !== STORE_FORMAT) {
      throw new ProtocolError(
        'unsupported_version',
        `store format ${JSON.stringify(v.toString('utf8'))}, this build reads ${STORE_FORMAT}`,
      );
    }
    if (!d && !h) return;
    if (!d || !h)
      throw new Error(`logstore: ${this.dir} has a ${d ? 'descriptor without head' : 'head without descriptor'} (damaged store)`);
    const desc = decodeJson<LogDescriptor>(d);
    const head = decodeHead(h);
    const ids = rootPlan(head.seq);
    const hashes = await this.reader.getNodes(ids);
    const frontier = createFrontier(
      head.seq,
      ids.map((id, i) => ({ id, hash: hashes[i] })),
    );
    if (formatHash(frontier.root()) !== head.root) {
      throw new ProtocolError('root_mismatch', `stored Merkle nodes do not give the head root at seq ${head.seq} (damaged store)`, {
        seq: head.seq,
      });
    }
    this.desc = desc;
    this.cur = head;
    this.frontier = frontier;
    await this.resumeWipes();
    const cp = await this.latestCheckpoint();
    if (!cp) return;
    const why = await this.disagreement(cp);
    if (why)
      throw new ProtocolError('store_behind_checkpoint', `${why}; refusing to re-sequence a signed seq`, {
        seq: cp.seq,
        headSeq: head.seq,
      });
  }

  descriptor(): LogDescriptor | undefined {
    return this.desc;
  }

  head(): Head {
    return { ...this.headNow() };
  }

  /** Writes run one at a time, in call order. Public writes check `closed` before they queue. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private refuseClosed(): Promise<never> | undefined {
    return this.closed ? Promise.reject(new Error('logstore: closed')) : undefined;
  }

  private assertWritable(): void {
    if (this.failed) throw new ProtocolError('store_failed', `an earlier write failed (${this.failed}); reopen the store`);
  }

  private initialized(): { desc: LogDescriptor; head: Head; frontier: Frontier } {
    if (!this.desc || !this.cur || !this.frontier) throw new Error('logstore: not initialized (call init with the log descriptor)');
    return { desc: this.desc, head: this.cur, frontier: this.frontier };
  }

  /** One synced atomic batch. A failure inside or after LevelDB's write poisons the store. */
  private async write(kind: WriteKind, ops: Op[]): Promise<void> {
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

  init(d: LogDescriptor): Promise<void> {
    return (
      this.refuseClosed() ??
      this.exclusive(async () => {
        this.assertWritable();
        if (!d || d.kind !== 'Log' || typeof d.log !== 'string' || !isHashString(d.hash) || (d.mode !== 'full' && d.mode !== 'hash_only')) {
          throw new ProtocolError('invalid_document', 'init needs a Log descriptor with log, mode and hash');
        }
        if (this.desc) {
          if (this.desc.hash === d.hash) return;
          throw new ProtocolError('descriptor_mismatch', `store already holds log ${this.desc.log} (${this.desc.hash})`);
        }
        const head: Head = { seq: 0, hash: d.hash, root: emptyRootString() };
        await this.write('init', [
          { type: 'put', key: singleKey.version, value: Buffer.from(STORE_FORMAT, 'utf8') },
          { type: 'put', key: singleKey.descriptor, value: encodeJson(d) },
          { type: 'put', key: singleKey.head, value: encodeHead(head) },
        ]);
        this.desc = d;
        this.cur = head;
        this.frontier = createFrontier(0, []);
      })
    );
  }

  /** Group-committed and pipelined: see append-queue.ts. */
  append(items: AppendItem[]): Promise<Head> {
    return this.refuseClosed() ?? this.appender.append(items);
  }

  erasePayload(seq: number, record: ErasureRecord, erasedEntry: AppendItem): Promise<Head> {
    return (
      this.refuseClosed() ??
      this.exclusive(async () => {
        this.assertWritable();
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
    return (this.db as unknown as Compactable).compactRange(payloadKey(seq), payloadKey(seq + 1));
  }

  /** Erasures whose wipe a crash interrupted: the same flush, tombstone, compact sequence. */
  private async resumeWipes(): Promise<void> {
    const pending = await this.db.keys({ ...familyRange(P.wipe) }).all();
    for (const k of pending) {
      const seq = seqOfKey(k);
      await this.compactPayload(seq);
      await this.db.del(payloadKey(seq), { sync: true });
      await this.compactPayload(seq);
      await this.db.del(k, { sync: true });
    }
  }

  putCheckpoint(cp: Checkpoint): Promise<void> {
    return (
      this.refuseClosed() ??
      this.exclusive(async () => {
        this.assertWritable();
        const { desc } = this.initialized();
        checkCheckpointShape(cp, desc.log);
        const stored = await this.checkpoint(cp.seq);
        checkCheckpointFits(cp, stored, this.cur!.seq);
        const why = await this.disagreement(cp);
        if (why) throw new ProtocolError('rewrite_detected', `checkpoint disagrees with the stored entries: ${why}`, { seq: cp.seq });
        await this.write('checkpoint', [{ type: 'put', key: checkpointKey(cp.seq), value: encodeJson(mergeCosignatures(cp, stored)) }]);
      })
    );
  }

  /** Refuses new writes, lets the queued ones finish (the append queue may reschedule), closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (let t = this.tail; ; t = this.tail) {
      await t;
      if (t === this.tail) break;
    }
    await this.db.close();
  }
}

/**
 * Same seq, head and root: keep the new checkpoint (its signature[0] is the sequencer's) and add
 * the stored cosignatures with addCosignature (one per kid, the later signedAt wins), so
 * concurrent late cosignatures are never lost. Signatures only move between documents of
 * the same hash; a differently hashed one (other x- members) replaces the stored one whole.
 */
export function mergeCosignatures(cp: Checkpoint, stored: Checkpoint | undefined): Checkpoint {
  if (!stored || stored.hash !== cp.hash) return cp;
  return stored.signature.slice(1).reduce(addCosignature, cp);
}
