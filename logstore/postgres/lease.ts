// logstore/postgres/lease.ts: which of several sequencer processes sequences one log (docs/design.md
// §12a): PostgreSQL decides, never a home-made election. The leader holds a SESSION advisory lock
// (pg_try_advisory_lock on the log's id) on a dedicated connection, and on winning it bumps
// cookwala_leases.epoch; every write transaction then checks that epoch under FOR SHARE
// (pg-kv.ts), so a leader that lost the lock cannot write even if it does not know yet. The lock
// goes when the session ends: at once when the process dies (the server sees the socket close),
// and after `leaseMs` when it is paused or partitioned, because the lease session sets
// idle_session_timeout (the server ends a session that sent nothing for that long) and every pool
// session sets idle_in_transaction_session_timeout (a writer paused inside a transaction is ended
// and rolled back, releasing its share lock so the takeover's UPDATE is not blocked). The holder
// sends a heartbeat every leaseMs/4. Leaves out: forwarding requests to the leader (standbys
// answer not_leader with the leader's address). Invariant: onAcquire runs with a fresh epoch only
// after the UPDATE committed, so it reads every write of every earlier epoch; a process whose
// session ended never writes again under its old epoch.

import pg from 'pg';

export interface LeaseOptions {
  connectionString: string;
  logId: number;
  /** Who we are and where clients reach us (stored in the lease row, served in not_leader). */
  holder: string;
  address?: string;
  leaseMs: number;
  /** Runs (serialized with the store's writes) after a win, with the new epoch. */
  onAcquire(epoch: number): Promise<void>;
  /** The lease held under `epoch` is gone (`why`: the epoch moved, the session failed, given up). */
  onLose(why: string, epoch: number): void;
  /** While standby: refresh the read view (head) from the database. */
  onStandby(): Promise<void>;
  onError(e: unknown): void;
}

export interface Lease {
  epoch(): number | undefined;
  leader(): { holder: string | null; address: string | null } | undefined;
  /** One election round now (also what the timer runs); resolves when it is done. */
  round(): Promise<void>;
  /** End the lease session now (the lock goes with it); later rounds may win again. */
  drop(why: string): void;
  /** Stop the rounds and end the session; resolves with the epoch that was held, if any. */
  close(): Promise<number | undefined>;
}

export function sessionSettings(leaseMs: number): string {
  return `SET idle_in_transaction_session_timeout = ${Math.max(1, Math.floor(leaseMs))}`;
}

export function startLease(o: LeaseOptions): Lease {
  let conn: pg.Client | undefined;
  let epoch: number | undefined;
  let leader: { holder: string | null; address: string | null } | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function connect(): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: o.connectionString });
    c.on('error', () => undefined); // surfaced by the next query
    await c.connect();
    await c.query(`SET idle_session_timeout = ${Math.max(1, Math.floor(o.leaseMs))}`);
    await c.query(sessionSettings(o.leaseMs));
    return c;
  }

  // Ending the lease session: the lock is given back explicitly first (bounded by leaseMs, for a
  // session that hangs), so that once `ending` settles the server has released it and a standby's
  // next round can win it; the session's end alone releases it a moment after the socket closes.
  let ending: Promise<void> = Promise.resolve();
  function endSession(c: pg.Client): Promise<void> {
    let t: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((r) => (t = setTimeout(r, Math.max(1, Math.floor(o.leaseMs)))));
    const unlock = c.query('SELECT pg_advisory_unlock_all()').then(
      () => undefined,
      () => undefined,
    );
    return Promise.race([unlock, bound])
      .then(() => c.end())
      .catch(() => undefined)
      .finally(() => clearTimeout(t));
  }

  function lose(why: string): void {
    const c = conn;
    conn = undefined;
    if (c) ending = endSession(c);
    leader = undefined; // unknown until the next round reads the lease row
    if (epoch !== undefined) {
      const held = epoch;
      epoch = undefined;
      o.onLose(why, held);
    }
  }

  async function once(): Promise<void> {
    try {
      conn ??= await connect();
      const c = conn;
      if (epoch !== undefined) {
        const r = await c.query<{ epoch: string }>('SELECT epoch FROM cookwala_leases WHERE log_id = $1', [o.logId]);
        if (Number(r.rows[0]?.epoch) !== epoch) lose(`epoch moved to ${r.rows[0]?.epoch}`);
        return;
      }
      const got = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(7236, $1::int) AS ok', [o.logId]);
      if (got.rows[0]?.ok) {
        const r = await c.query<{ epoch: string }>(
          'UPDATE cookwala_leases SET epoch = epoch + 1, holder = $2, address = $3, acquired_at = now() WHERE log_id = $1 RETURNING epoch',
          [o.logId, o.holder, o.address ?? null],
        );
        const e = Number(r.rows[0].epoch);
        leader = { holder: o.holder, address: o.address ?? null };
        try {
          await o.onAcquire(e);
          epoch = e;
        } catch (err) {
          // Could not load the state under the new epoch: give the lock back for another process.
          lose(`load failed: ${(err as Error).message}`);
          throw err;
        }
        return;
      }
      const who = await c.query<{ holder: string | null; address: string | null }>(
        'SELECT holder, address FROM cookwala_leases WHERE log_id = $1',
        [o.logId],
      );
      leader = who.rows[0];
      await o.onStandby();
    } catch (e) {
      lose(`lease session failed: ${(e as Error).message}`);
      o.onError(e);
    }
  }

  function round(): Promise<void> {
    running ??= once().finally(() => (running = undefined));
    return running;
  }

  function tick(): void {
    if (closed) return;
    timer = setTimeout(
      () => {
        void round().finally(tick);
      },
      Math.max(10, Math.floor(o.leaseMs / 4)),
    );
    timer.unref();
  }
  tick();

  return {
    epoch: () => epoch,
    leader: () => leader,
    round,
    drop: lose,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await running;
      const c = conn;
      const held = epoch;
      conn = undefined;
      epoch = undefined;
      if (c) ending = endSession(c);
      await ending;
      return held;
    },
  };
}
