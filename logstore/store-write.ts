// logstore/store-write.ts: what the two log store drivers (docs/design.md §6, §12a: LevelDB in store.ts,
// PostgreSQL in postgres/store.ts) write the same way, over the read side (store-read.ts): writes
// one at a time in call order (exclusive; a checkpoint queues once the entry and tree it is compared
// with are read, in an order of its own beside the appends where the driver allows it), appends through the group-commit queue (append-queue.ts), the state rebuilt at open from the version, descriptor and head records and
// the stored Merkle nodes (with the checks that the head's root is theirs and that the store is not
// behind its latest signed checkpoint: store_behind_checkpoint), init with the Log descriptor, a
// checkpoint stored with the cosignatures it already had, and close after the queued writes.
// Left out (each driver's): how a batch is written and what makes a store refuse writes
// (assertCanWrite: a failed LevelDB write, a PostgreSQL standby), erasure and its wipe, whether
// appends are answered at all (a standby's not_leader). Invariants: the head and the frontier
// move only after a write is durable; a checkpoint is stored only when it fits the entries.

import { checkCheckpointFits, checkCheckpointShape } from './checkpoint-checks.ts';
import { ProtocolError } from '../verifier/index.ts';
import { formatHash, isHashString } from '../verifier/encoding/index.ts';
import { mergeCosignatures } from '../verifier/documents/index.ts';
import { EMPTY_ROOT, createFrontier, rootPlan, type Frontier } from '../verifier/merkle/index.ts';
import type { AppendItem, Checkpoint, Head, LogDescriptor, WriteKind } from './types.ts';
import { checkpointKey, singleKey, type RecordLayout } from './keys.ts';
import { decodeHead, decodeJson, encodeHead, encodeJson } from './values.ts';
import type { Op } from './append-plan.ts';
import { createAppendQueue } from './append-queue.ts';
import { StoreReader, type KvRead } from './store-read.ts';

export abstract class StoreWriter<D extends KvRead> extends StoreReader<D> {
  /** The Merkle frontier at the head (restored at open; a PostgreSQL standby holds none). */
  protected frontier: Frontier | undefined;
  protected tail: Promise<unknown> = Promise.resolve();
  /** The order of checkpoint writes when they run beside the appends (checkpointsBesideAppends). */
  private checkpointTail: Promise<unknown> = Promise.resolve();
  /**
   * A driver whose atomic batches may be issued side by side (LevelDB) sets this: checkpoints then
   * keep an order of their own and never hold the appends queued behind them. A checkpoint only
   * names a seq that is already durable, and its record is a key no append or erasure writes.
   */
  protected checkpointsBesideAppends = false;
  protected closed = false;
  private readonly appender: { append(items: AppendItem[]): Promise<Head> };
  /** The store's place, for messages (a directory, or a redacted database URL and log). */
  abstract readonly dir: string;

  constructor(db: D, layout: RecordLayout) {
    super(db, layout);
    this.appender = createAppendQueue({
      layout,
      exclusive: (fn) => this.exclusive(fn),
      state: () => {
        this.assertCanWrite();
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

  /** Throws the reason this store may not write now. */
  protected abstract assertCanWrite(): void;
  /** One durable, atomic write of `ops`. */
  protected abstract write(kind: WriteKind, ops: Op[]): Promise<void>;
  /** Finish the erasures whose wipe a crash interrupted. */
  protected abstract resumeWipes(): Promise<void>;
  /** A check of an init's well-formed descriptor before it is compared and written (the driver's). */
  protected abstract checkInit(d: LogDescriptor): void;

  descriptor(): LogDescriptor | undefined {
    return this.desc;
  }

  head(): Head {
    return { ...this.headNow() };
  }

  /** Writes run one at a time, in call order. Public writes check `closed` before they queue. */
  protected exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Checkpoint writes: one at a time, in call order; beside the appends where the driver allows it. */
  private checkpointTurn<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.checkpointsBesideAppends) return this.exclusive(fn);
    const run = this.checkpointTail.then(fn, fn);
    this.checkpointTail = run.catch(() => undefined);
    return run;
  }

  protected refuseClosed(): Promise<never> | undefined {
    return this.closed ? Promise.reject(new Error('logstore: closed')) : undefined;
  }

  protected initialized(): { desc: LogDescriptor; head: Head; frontier: Frontier } {
    if (!this.desc || !this.cur || !this.frontier) throw new Error('logstore: not initialized (call init with the log descriptor)');
    return { desc: this.desc, head: this.cur, frontier: this.frontier };
  }

  /** Group-committed and pipelined: see append-queue.ts. */
  protected appendQueued(items: AppendItem[]): Promise<Head> {
    return this.appender.append(items);
  }

  /**
   * The durable state: descriptor, head and the frontier from the stored nodes of rootPlan(head),
   * which must give the head's root; then interrupted erasures finished, and a refusal to run
   * behind the latest stored checkpoint. An empty store has no state.
   */
  protected async loadDurable(): Promise<void> {
    const [v, d, h] = await this.db.getMany([singleKey.version, singleKey.descriptor, singleKey.head]);
    const format = v && Buffer.from(v.buffer, v.byteOffset, v.length).toString('utf8');
    if (v && format !== this.layout.format)
      throw new ProtocolError('unsupported_version', `store format ${JSON.stringify(format)}, this build reads ${this.layout.format}`);
    if (!d && !h) {
      this.desc = undefined;
      this.cur = undefined;
      return;
    }
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

  init(d: LogDescriptor): Promise<void> {
    return (
      this.refuseClosed() ??
      this.exclusive(async () => {
        if (!d || d.kind !== 'Log' || typeof d.log !== 'string' || !isHashString(d.hash) || (d.mode !== 'full' && d.mode !== 'hash_only')) {
          throw new ProtocolError('invalid_document', 'init needs a Log descriptor with log, mode and hash');
        }
        this.checkInit(d);
        if (this.desc) {
          if (this.desc.hash === d.hash) return;
          throw new ProtocolError('descriptor_mismatch', `store already holds log ${this.desc.log} (${this.desc.hash})`);
        }
        const head: Head = { seq: 0, hash: d.hash, root: formatHash(EMPTY_ROOT) };
        await this.write('init', [
          { type: 'put', key: singleKey.version, value: Buffer.from(this.layout.format, 'utf8') },
          { type: 'put', key: singleKey.descriptor, value: encodeJson(d) },
          { type: 'put', key: singleKey.head, value: encodeHead(head) },
        ]);
        this.desc = d;
        this.cur = head;
        this.frontier = createFrontier(0, []);
      })
    );
  }

  /**
   * Store a checkpoint that fits the entries, keeping the cosignatures already stored for it.
   * When cp.seq is already durable, the entry and the tree there (which never change once
   * durable) are read before the write turn is queued; inside the turn remain one read (the
   * stored checkpoint, for its cosignatures and the fork check) and one synced write. Checkpoint
   * turns exclude each other, so the read and the write of one seq's record are never
   * interleaved; with checkpointsBesideAppends they do not wait for the appends nor hold them.
   * A store closed meanwhile refuses it.
   */
  putCheckpoint(cp: Checkpoint): Promise<void> {
    const closed = this.refuseClosed();
    if (closed) return closed;
    return this.durableDisagreement(cp).then(
      (read) =>
        this.refuseClosed() ??
        this.checkpointTurn(async () => {
          this.assertCanWrite();
          const { desc } = this.initialized();
          checkCheckpointShape(cp, desc.log);
          const stored = await this.checkpoint(cp.seq);
          checkCheckpointFits(cp, stored, this.cur!.seq);
          const why = read ? read.why : await this.disagreement(cp);
          if (why) throw new ProtocolError('rewrite_detected', `checkpoint disagrees with the stored entries: ${why}`, { seq: cp.seq });
          await this.write('checkpoint', [{ type: 'put', key: checkpointKey(cp.seq), value: encodeJson(mergeCosignatures(cp, stored)) }]);
        }),
    );
  }

  /**
   * disagreement(cp) for a well-formed checkpoint of this log at a durable seq, read now; undefined
   * (compare inside the write turn, as any other case) when it is not one, or a read failed.
   */
  private async durableDisagreement(cp: Checkpoint): Promise<{ why: string | undefined } | undefined> {
    try {
      checkCheckpointShape(cp, this.initialized().desc.log);
      if (cp.seq > this.headNow().seq) return undefined;
      return { why: await this.disagreement(cp) };
    } catch {
      return undefined;
    }
  }

  /** Refuse new writes and wait for the queued ones (the append queue may reschedule); true the first time. */
  protected async drain(): Promise<boolean> {
    if (this.closed) return false;
    this.closed = true;
    for (let t = this.tail, c = this.checkpointTail; ; t = this.tail, c = this.checkpointTail) {
      await Promise.all([t, c]);
      if (t === this.tail && c === this.checkpointTail) break;
    }
    return true;
  }
}
