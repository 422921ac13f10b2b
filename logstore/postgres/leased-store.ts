// logstore/postgres/leased-store.ts: the leadership half of the PostgreSQL log store (docs/design.md §6,
// §12a): the lease (lease.ts) decides which process leads; on winning it this base runs the
// store's reload under the new epoch (and keeps the error when the state is not one to sequence
// on), on losing it forgets the Merkle frontier, and as a standby it lets the store follow the
// database's durable head. Every write is one transaction fenced by the epoch (pg-kv.ts); one
// whose outcome is unknown gives up the lease and is reported as not_leader (carrying the
// leader's address), so a retry is safe (dedup). Store operations run one at a time (exclusive).
// Left out: what is loaded and written (store.ts, logstore/store-write.ts), the election itself
// (lease.ts). Invariant: a process writes only under the epoch it holds, and the frontier exists
// only while it leads.

import { ProtocolError } from '../../verifier/index.ts';
import type { FaultHooks, WriteKind } from '../types.ts';
import type { Op } from '../append-plan.ts';
import { StoreWriter } from '../store-write.ts';
import type { PgKv } from './pg-kv.ts';
import { FAMILY_FIRST } from '../keys.ts';
import { startLease, type Lease } from './lease.ts';

/** A change of this process's lease on one log, as the sequencer logs it (`event` is the log line's event). */
export interface LeaseChange {
  event: 'lease_acquired' | 'lease_lost' | 'lease_released';
  log: string;
  epoch: number;
  reason: string;
}

export abstract class LeasedStore extends StoreWriter<PgKv> {
  // The Merkle frontier (store-write.ts) is held only while leading; a reload rebuilds it.
  protected lease: Lease | undefined;
  protected myEpoch: number | undefined;
  private gen = 0;
  private leaderWaiters: Array<() => void> = [];
  /** Why the last won lease could not be used (load refused); cleared by a good load. */
  loadError: unknown;
  protected onLeaseChange: ((c: LeaseChange) => void) | undefined;
  /** Why the store is being closed (the reason of its lease_released line). */
  protected closeWhy: string | undefined;

  constructor(
    db: PgKv,
    protected readonly origin: string,
    private readonly faults: FaultHooks | undefined,
  ) {
    super(db, FAMILY_FIRST);
  }

  /** The state at the durable head, under a freshly won lease. */
  protected abstract load(): Promise<void>;
  /** Standby read view: follow the database's durable head. */
  abstract refresh(): Promise<void>;

  startLease(x: {
    url: string;
    logId: number;
    holder: string;
    address?: string;
    leaseMs: number;
    onError?(e: unknown): void;
    onLeaseChange?(c: LeaseChange): void;
  }): void {
    this.onLeaseChange = x.onLeaseChange;
    this.lease = startLease({
      connectionString: x.url,
      logId: x.logId,
      holder: x.holder,
      address: x.address,
      leaseMs: x.leaseMs,
      onAcquire: (epoch) =>
        this.exclusive(async () => {
          this.frontier = undefined;
          this.myEpoch = epoch;
          try {
            await this.load();
          } catch (e) {
            this.myEpoch = undefined;
            this.loadError = e;
            throw e;
          }
          this.loadError = undefined;
          this.gen++;
          this.onLeaseChange?.({ event: 'lease_acquired', log: this.origin, epoch, reason: 'the lock was free: this process leads' });
          for (const w of this.leaderWaiters.splice(0)) w();
        }),
      onLose: (why, epoch) => {
        this.myEpoch = undefined;
        this.frontier = undefined;
        this.onLeaseChange?.({ event: 'lease_lost', log: this.origin, epoch, reason: why });
      },
      onStandby: () => this.refresh(),
      onError: (e) => x.onError?.(e),
    });
  }

  role(): 'leader' | 'standby' {
    return this.myEpoch !== undefined ? 'leader' : 'standby';
  }

  epoch(): number | undefined {
    return this.role() === 'leader' ? this.myEpoch : undefined;
  }

  generation(): number {
    return this.gen;
  }

  leader(): { holder: string | null; address: string | null } | undefined {
    return this.lease?.leader();
  }

  leaseRound(): Promise<void> {
    return this.lease ? this.lease.round() : Promise.resolve();
  }

  waitLeader(ms: number): Promise<void> {
    if (this.role() === 'leader') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () =>
          reject(
            new ProtocolError('not_leader', `did not win the lease of ${this.origin} within ${ms} ms`, {
              leader: this.leader()?.address ?? undefined,
            }),
          ),
        ms,
      );
      this.leaderWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  private notLeader(why: string): ProtocolError {
    const l = this.leader();
    return new ProtocolError('not_leader', `${this.origin}: ${why}`, { leader: l?.address ?? undefined });
  }

  protected assertLeader(): number {
    const e = this.epoch();
    if (e === undefined) throw this.notLeader('this process is a standby (another sequencer holds the lease)');
    return e;
  }

  protected assertCanWrite(): void {
    this.assertLeader();
  }

  /**
   * Refuse (not_leader, naming the leader as the lease row has it now) unless this process leads;
   * with `confirm`, also ask the database that the epoch is still ours (a process paused past its
   * lease believes it leads until its next round): one query, for answers that judge the log's
   * state without writing. A database that cannot be reached is store_unavailable.
   */
  async checkLeader(confirm = false): Promise<void> {
    const e = this.epoch();
    if (e !== undefined && !confirm) return;
    const row = await this.db.leaseRow();
    if (e !== undefined && row.epoch === e) return;
    if (e !== undefined) this.giveUp(`the lease row is at epoch ${row.epoch}, this process held ${e}`);
    const self = this.ownAddress();
    throw new ProtocolError('not_leader', `${this.origin}: this process does not hold the lease (another sequencer leads)`, {
      leader: row.address === null || row.address === self ? undefined : row.address,
    });
  }

  /** This process's advertised address (never named as "the leader" by itself). */
  protected ownAddress(): string | undefined {
    return undefined;
  }

  /** The reason the next close() gives for releasing a held lease (lease_released): idle, evicted, shutdown. */
  releaseReason(why: string): void {
    this.closeWhy = why;
  }

  /**
   * One fenced transaction. A refusal by the fence writes nothing; any other failure leaves the
   * outcome unknown to this process, so it gives up the lease (the next leader, maybe this one,
   * reloads the truth from the database) and reports not_leader: a retry is safe (dedup).
   */
  protected async write(kind: WriteKind, ops: Op[]): Promise<void> {
    const epoch = this.assertLeader();
    await this.faults?.beforeWrite?.(kind);
    try {
      await this.db.write(ops, epoch);
    } catch (e) {
      if (e instanceof ProtocolError && e.code === 'not_leader') {
        this.giveUp(e.detail);
        throw e;
      }
      this.giveUp(`${kind} failed: ${(e as Error).message}`);
      throw this.notLeader(`${kind} transaction failed (${(e as Error).message}); outcome unknown, lease given up; retry`);
    }
    try {
      await this.faults?.afterWrite?.(kind);
    } catch (e) {
      this.giveUp(`after ${kind}: ${(e as Error).message}`);
      throw e;
    }
  }

  /** Stop leading: drop the lease session (the lock goes with it); a later round may win again and reload. */
  private giveUp(why: string): void {
    this.frontier = undefined;
    if (this.lease) this.lease.drop(why); // onLose clears the epoch and reports lease_lost
    this.myEpoch = undefined;
  }
}
