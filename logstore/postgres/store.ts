// logstore/postgres/store.ts: the second logstore driver (docs/design.md §6, §12a), one log in a PostgreSQL
// database, the same LogStore interface and the same values as the LevelDB driver (its per-entry
// records keyed FAMILY_FIRST, logstore/keys.ts: a B-tree has no LSM compaction to spare): it shares the
// append and erasure plans (logstore/append-plan.ts), the group-commit queue
// (logstore/append-queue.ts), the read side (logstore/store-read.ts) and what both drivers write
// alike (logstore/store-write.ts: the open checks, init, checkpoints) over the tables of pg-kv.ts.
// Several processes may open the same log: the lease (lease.ts, driven by leased-store.ts, which
// also fences every write by the epoch) makes exactly one the leader; the others are standbys whose
// writes are refused with not_leader (carrying the leader's address) and whose reads follow the
// database's durable head. On winning the lease the store reloads everything (descriptor, head,
// Merkle frontier) from the database under the new epoch, finishes interrupted erasures and refuses
// to run behind its latest signed checkpoint (store_behind_checkpoint), as the LevelDB store does
// at open. Erasure deletes the payload row in the erasure's transaction, with a 'w' mark that
// records that transaction; then VACUUM FULL rewrites the log's payload table and its TOAST table
// so the bytes leave the relation files, and the marks are cleared. A snapshot older than the
// erasure (a pg_dump, a long REPEATABLE READ transaction, a replication slot) makes VACUUM FULL
// keep the dead row: wipe.ts tells, the marks stay, `erasure_wipe_deferred` is reported and the
// wipe is retried on a bounded back-off timer of its own (and at every load) until it went through
// (`erasure_wiped`). Leaves out: the bytes PostgreSQL keeps outside the relation files (WAL
// segments until they are recycled, WAL archives and base backups: the operator's retention bounds
// those) and signature checks (as the LevelDB store). Invariants: every write is one transaction fenced by the epoch; the in-memory
// head moves only after a commit; after a failure whose outcome is unknown the store gives up the
// lease and reloads from the database when it wins it again; a wipe mark goes only with its bytes.

import pg from 'pg';
import { ProtocolError } from '../../verifier/index.ts';
import type { AppendItem, ErasureRecord, FaultHooks, Head, LogDescriptor, LogStore } from '../types.ts';
import { singleKey, wipeKey } from '../keys.ts';
import { decodeHead, decodeJson } from '../values.ts';
import type { Op } from '../append-plan.ts';
import { PgKv, ensureSchema, logIdOf } from './pg-kv.ts';
import { LeasedStore, type LeaseChange } from './leased-store.ts';
import { createBackoff, DEFAULT_WIPE_RETRY_MAX_MS, readWipeMarks, wipeBlocker, type Backoff, type WipeChange } from './wipe.ts';

export type { LeaseChange } from './leased-store.ts';
export type { WipeChange } from './wipe.ts';

export interface PostgresStoreOptions {
  /** postgres://user@host:port/db */
  url: string;
  /** The log's origin (one database holds any number of logs). */
  log: string;
  /** This process, as shown to others (default host:pid). */
  holder?: string;
  /** Where clients reach this process's HTTP API; standbys return it in not_leader. */
  address?: string;
  /** How long a silent leader keeps the lease (default 3000 ms). */
  leaseMs?: number;
  /** Wait at open until this process leads (default: one election round, then standby or leader). */
  waitForLeader?: boolean;
  faults?: FaultHooks;
  onError?(e: unknown): void;
  /** Every change of this process's lease on the log (won, lost, released), for the log and the metrics. */
  onLeaseChange?(c: LeaseChange): void;
  /** An erasure's wipe deferred (an older snapshot still sees the row) or finished after a deferral or at a load. */
  onWipe?(w: WipeChange): void;
  /** The longest pause between two tries of a deferred wipe (default 30 s; the first comes after 50 ms, then doubling). */
  wipeRetryMaxMs?: number;
}

export const DEFAULT_LEASE_MS = 3000;

export function isPostgresUrl(s: string): boolean {
  return /^postgres(ql)?:\/\//.test(s);
}

/** The URL without its password (what `dir` shows). */
function redact(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return 'postgres://?';
  }
}

export interface PostgresLogStore extends LogStore {
  /** 'leader' when this process holds the lease. */
  role(): 'leader' | 'standby';
  /** The lease epoch this process writes under, when leading. */
  epoch(): number | undefined;
  /** Bumped whenever the store reloaded its state (a new lease): callers' caches are stale. */
  generation(): number;
  /** The current leader as the lease row names it. */
  leader(): { holder: string | null; address: string | null } | undefined;
  /** One lease round now (tests; the timer runs them anyway). */
  leaseRound(): Promise<void>;
  /** not_leader unless this process leads; `confirm` asks the database that the epoch is still ours. */
  checkLeader(confirm?: boolean): Promise<void>;
  /** The reason the next close() gives for releasing a held lease (its lease_released line). */
  releaseReason(why: string): void;
  /** Resolves once this process leads (not_leader after `ms`). */
  waitLeader(ms: number): Promise<void>;
  /** The erased seqs whose wipe was deferred and is still due (empty once every mark is cleared). */
  pendingWipes(): number[];
}

export async function openPostgresLogStore(o: PostgresStoreOptions): Promise<PostgresLogStore> {
  const leaseMs = o.leaseMs ?? DEFAULT_LEASE_MS;
  const pool = new pg.Pool({ connectionString: o.url, max: 4, options: `-c idle_in_transaction_session_timeout=${leaseMs}` });
  pool.on('error', () => undefined); // an idle client dropped by the server; the next query reconnects
  let store: PgStore | undefined;
  try {
    await ensureSchema(pool);
    const logId = (await logIdOf(pool, o.log, true))!;
    store = new PgStore(`${redact(o.url)}#${encodeURIComponent(o.log)}`, o.log, new PgKv(pool, logId), pool, o);
    store.startLease({
      url: o.url,
      logId,
      holder: o.holder ?? `pid-${process.pid}`,
      address: o.address,
      leaseMs,
      onError: o.onError,
      onLeaseChange: o.onLeaseChange,
    });
    await store.leaseRound();
    // Won the lease but the state is not one to sequence on (store_behind_checkpoint, damage).
    if (store.loadError !== undefined) throw store.loadError;
    if (!store.descriptor()) await store.refresh();
    if (o.waitForLeader) await store.waitLeader(leaseMs * 4);
    return store;
  } catch (e) {
    await store?.close().catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw e;
  }
}

class PgStore extends LeasedStore implements PostgresLogStore {
  private readonly address: string | undefined;
  private readonly onWipe: ((w: WipeChange) => void) | undefined;
  private readonly retry: Backoff;
  /** Seqs whose wipe was deferred, and the reason last reported for them. */
  private deferred: number[] = [];
  private deferredWhy: string | undefined;

  constructor(
    readonly dir: string,
    origin: string,
    db: PgKv,
    private readonly pool: pg.Pool,
    o: { faults?: FaultHooks; address?: string; onWipe?(w: WipeChange): void; wipeRetryMaxMs?: number },
  ) {
    super(db, origin, o.faults);
    this.address = o.address;
    this.onWipe = o.onWipe;
    this.retry = createBackoff(() => this.retryWipe(), o.wipeRetryMaxMs ?? DEFAULT_WIPE_RETRY_MAX_MS);
  }

  /** Standby read view: the durable descriptor and head as the database has them now. */
  override async refresh(): Promise<void> {
    const [d, h] = await this.db.getMany([singleKey.descriptor, singleKey.head]);
    if (this.role() === 'leader') return;
    if (d) this.desc = decodeJson<LogDescriptor>(d);
    if (h) this.cur = decodeHead(h);
  }

  /** The state at the durable head, under a freshly won lease (the LevelDB store's open checks). */
  protected load(): Promise<void> {
    return this.loadDurable();
  }

  protected checkInit(d: LogDescriptor): void {
    if (d.log !== this.origin) throw new ProtocolError('log_mismatch', `descriptor of log ${d.log}, this store is ${this.origin}`);
  }

  append(items: AppendItem[]): Promise<Head> {
    // A standby refuses with not_leader naming the leader as the lease row has it now (its own view may be stale).
    return (
      this.refuseClosed() ?? (this.role() === 'leader' ? this.appendQueued(items) : this.checkLeader().then(() => this.appendQueued(items)))
    );
  }

  protected override ownAddress(): string | undefined {
    return this.address;
  }

  erasePayload(seq: number, record: ErasureRecord, erasedEntry: AppendItem): Promise<Head> {
    return (
      this.refuseClosed() ??
      this.exclusive(async () => {
        this.assertLeader();
        const plan = await this.planErasure(this.initialized(), seq, record, erasedEntry);
        await this.write('erase', plan.ops);
        this.cur = plan.head;
        this.frontier = plan.frontier;
        // The erasure is durable: a wipe that must wait does not fail it.
        await this.wipe('erasure', seq);
        return { ...this.cur };
      })
    );
  }

  pendingWipes(): number[] {
    return [...this.deferred];
  }

  /**
   * Wipe every marked erasure now if no snapshot can see its row any more (wipe.ts), then clear
   * the marks (fenced, like every write); else keep them and retry later. Runs inside exclusive;
   * never throws (the erasure itself is committed).
   */
  private async wipe(trigger: 'erasure' | 'load' | 'retry', erased?: number): Promise<void> {
    let seqs: number[] = erased === undefined ? [] : [erased];
    try {
      const marks = await readWipeMarks(this.db);
      seqs = marks.map((m) => m.seq);
      if (marks.length === 0) return this.wiped([], trigger);
      // The newest erasing transaction bounds them all; a mark without one counts as erased now.
      const xid = marks.some((m) => m.xid === undefined) ? undefined : marks.reduce((a, m) => (m.xid! > a ? m.xid! : a), 0n);
      const why = await wipeBlocker(this.pool, this.db.payloads, xid);
      if (why !== undefined) return this.deferWipe(seqs, why);
      await this.write(
        'erase',
        seqs.map((s): Op => ({ type: 'del', key: wipeKey(s) })),
      );
      this.wiped(seqs, trigger);
    } catch (e) {
      // The marks could not be read or cleared: those known to wait still do.
      const known = [...new Set([...this.deferred, ...seqs])].sort((a, b) => a - b);
      this.deferWipe(known, `the wipe failed: ${(e as Error).message}`);
    }
  }

  private wiped(seqs: number[], trigger: 'erasure' | 'load' | 'retry'): void {
    const late = trigger !== 'erasure' || this.deferred.length > 0;
    this.deferred = [];
    this.deferredWhy = undefined;
    this.retry.reset();
    if (late && seqs.length > 0)
      this.onWipe?.({
        event: 'erasure_wiped',
        log: this.origin,
        seqs,
        reason:
          trigger === 'load'
            ? 'wiped at load: no snapshot older than the erasure is open'
            : 'no snapshot older than the erasure is open any more',
        pending: 0,
      });
  }

  /** Keep the marks; report once per reason; retry while this process leads (else the next leader's load wipes). */
  private deferWipe(known: number[], why: string): void {
    const changed = why !== this.deferredWhy || known.some((s) => !this.deferred.includes(s));
    this.deferred = known;
    this.deferredWhy = why;
    const leads = this.role() === 'leader' && !this.closed;
    if (changed && known.length > 0)
      this.onWipe?.({
        event: 'erasure_wipe_deferred',
        log: this.origin,
        seqs: known,
        reason: leads ? why : `${why}; the next leader wipes at its load`,
        pending: leads ? known.length : 0,
      });
    if (leads) this.retry.schedule();
  }

  private retryWipe(): void {
    if (this.closed || this.role() !== 'leader') return;
    void this.exclusive(() => this.wipe('retry'));
  }

  protected async resumeWipes(): Promise<void> {
    await this.wipe('load');
  }

  async close(): Promise<void> {
    this.retry.stop();
    if (!(await this.drain())) return;
    const held = await this.lease?.close();
    this.myEpoch = undefined;
    if (held !== undefined)
      this.onLeaseChange?.({ event: 'lease_released', log: this.origin, epoch: held, reason: this.closeWhy ?? 'the store was closed' });
    await this.pool.end();
  }
}
