// logstore/postgres/wipe.ts: when an erased payload's bytes have really left the PostgreSQL relation
// files (docs/design.md §6, §12a). An erasure deletes the payload row and writes a 'w' wipe mark in
// one transaction; pg-kv.ts stores as the mark's value the id of that transaction
// (pg_current_xact_id). VACUUM FULL then rewrites the log's payload table, but it copies every
// dead row that some snapshot may still see ("recently dead"), so the mark may be cleared only
// once no snapshot older than the erasing transaction is open. Two tests, both needed:
//  - before the rewrite, `horizonHolders`: PostgreSQL's horizon for an ordinary table is the
//    oldest xmin or running xid of the backends of the same database and of those in no database
//    (walsenders), the xmin of every replication slot, the xid of the database's prepared
//    transactions, minus vacuum_defer_cleanup_age (up to PostgreSQL 15). pg_stat_activity shows
//    backend_xmin and backend_xid to every role. Anything at or before the erasure holds the wipe
//    back, and then the rewrite is not even tried (it would wait for a pg_dump's table lock and
//    stall the log's appends behind it). Slots' catalog_xmin is left out: it holds back system
//    catalogs only, never a payload table.
//  - the rewrite itself, `vacuumPayloads`: VACUUM (FULL, VERBOSE) reports in its DETAIL how many
//    dead row versions it had to keep; more than zero keeps the marks (this catches a snapshot the
//    first test cannot see, such as a backend still starting). A server whose messages are not in
//    English gives no readable count, and the first test decides alone. Its lock wait is bounded
//    (WIPE_LOCK_TIMEOUT_MS): a table in use is a deferral too.
// `createBackoff` is the bounded retry timer: doubling delays up to a cap, stopped on close. Leaves
// out: bytes outside the relation files (WAL, archives, base backups; docs/operators.md). Invariant:
// a mark is deleted only after a rewrite that began when no snapshot could see its dead row and that
// kept no dead row.

import type { ClientBase, Pool } from 'pg';
import { familyRange, P, seqOfKey } from '../keys.ts';
import type { PgKv } from './pg-kv.ts';

/** A deferred or finished wipe, as the sequencer logs it (`event` is the log line's event). */
export interface WipeChange {
  event: 'erasure_wipe_deferred' | 'erasure_wiped';
  log: string;
  /** The erased seqs this change is about. */
  seqs: number[];
  /** Why the wipe waits, or how it ended. */
  reason: string;
  /** Erasures of this log whose wipe this process still has to retry after this change (0 once it stopped leading). */
  pending: number;
}

export interface WipeMark {
  seq: number;
  /** The erasing transaction (xid8), when the mark recorded it. */
  xid: bigint | undefined;
}

/** How long the rewrite waits for the payload table's lock before it defers. */
export const WIPE_LOCK_TIMEOUT_MS = 500;
export const WIPE_RETRY_FIRST_MS = 50;
export const DEFAULT_WIPE_RETRY_MAX_MS = 30_000;

const XID_SPAN = 1n << 32n;
/** Ages compared by age() are int4: a threshold is never taken further back than this. */
const AGE_WINDOW = 1n << 30n;

export async function readWipeMarks(db: PgKv): Promise<WipeMark[]> {
  const out: WipeMark[] = [];
  for await (const [k, v] of db.iterator(familyRange(P.wipe))) {
    const s = v.toString('latin1');
    out.push({ seq: seqOfKey(k), xid: /^\d{1,20}$/.test(s) ? BigInt(s) : undefined });
  }
  return out;
}

/** The 32-bit xid of a full transaction id, as PostgreSQL's xid type reads it. */
export function xid32(full: bigint): string {
  const low = full % XID_SPAN;
  // 0, 1 and 2 are never assigned: a full id whose low half falls there orders like the last
  // normal id before it.
  return String(low < 3n ? XID_SPAN - 1n : low);
}

/**
 * What may still see the dead rows of erasures made by transactions up to `xid` (undefined for
 * a mark that did not record it: then anything older than the newest committed transaction
 * counts). Empty when nothing does. Runs on `c`, whose own backend is left out.
 */
export async function horizonHolders(c: ClientBase, xid: bigint | undefined): Promise<string[]> {
  const next = BigInt((await c.query<{ n: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS n')).rows[0].n);
  let t = xid ?? next - 1n;
  if (t < next - AGE_WINDOW) t = next - AGE_WINDOW;
  const r = await c.query<{ kind: string; id: string; name: string | null }>(
    `WITH t AS (SELECT $1::xid AS x, coalesce(nullif(current_setting('vacuum_defer_cleanup_age', true), '')::int, 0) AS d)
     SELECT 'backend' AS kind, a.pid::text AS id, coalesce(nullif(a.application_name, ''), a.backend_type) AS name
       FROM pg_stat_activity a, t
      WHERE a.pid <> pg_backend_pid() AND (a.datid IS NULL OR a.datname = current_database())
        AND greatest(age(a.backend_xmin), age(a.backend_xid)) >= age(t.x) - t.d
     UNION ALL
     SELECT 'replication slot', s.slot_name::text, s.slot_type FROM pg_replication_slots s, t WHERE age(s.xmin) >= age(t.x) - t.d
     UNION ALL
     SELECT 'prepared transaction', p.gid, NULL FROM pg_prepared_xacts p, t
      WHERE p.database = current_database() AND age(p.transaction) >= age(t.x) - t.d
     UNION ALL
     SELECT 'setting', 'vacuum_defer_cleanup_age', t.d::text FROM t WHERE t.d > 0 AND age(t.x) <= t.d`,
    [xid32(t)],
  );
  return r.rows.map((h) => `${h.kind} ${h.id}${h.name ? ` (${h.name})` : ''}`);
}

/**
 * Why the dead rows of erasures up to `xid` cannot be wiped now (undefined: the rewrite ran and
 * kept none). The horizon is judged first; the rewrite runs only when it has passed.
 */
export async function wipeBlocker(pool: Pool, table: string, xid: bigint | undefined): Promise<string | undefined> {
  const c = await pool.connect();
  let broken: Error | undefined;
  const kept: number[] = [];
  const onNotice = (n: { detail?: string }): void => {
    const m = /^(\d+) dead row versions? cannot be removed yet/m.exec(n.detail ?? '');
    if (m) kept.push(Number(m[1]));
  };
  c.on('notice', onNotice);
  try {
    const holders = await horizonHolders(c, xid);
    if (holders.length > 0)
      return `a snapshot older than the erasure is open: ${holders.slice(0, 5).join(', ')}${holders.length > 5 ? ', …' : ''}`;
    await c.query(`SET lock_timeout = ${WIPE_LOCK_TIMEOUT_MS}`);
    try {
      await c.query(`VACUUM (FULL, VERBOSE) ${table}`);
    } catch (e) {
      if ((e as { code?: string }).code !== '55P03') throw e;
      return `the payload table is in use by another transaction (its lock was not free within ${WIPE_LOCK_TIMEOUT_MS} ms)`;
    } finally {
      await c.query('RESET lock_timeout');
    }
    const n = kept.reduce((a, b) => a + b, 0);
    return n > 0 ? `VACUUM FULL kept ${n} dead row version(s) that a snapshot may still see` : undefined;
  } catch (e) {
    broken = e as Error;
    throw e;
  } finally {
    c.off('notice', onNotice);
    c.release(broken);
  }
}

export interface Backoff {
  /** Run once after the current delay (no-op while one is due or after stop); the delay then doubles up to the cap. */
  schedule(): void;
  /** Back to the first delay, nothing due. */
  reset(): void;
  stop(): void;
}

export function createBackoff(run: () => void, maxMs: number, firstMs = WIPE_RETRY_FIRST_MS): Backoff {
  let delay = Math.min(firstMs, maxMs);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  return {
    schedule() {
      if (stopped || timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        if (!stopped) run();
      }, delay);
      timer.unref();
      delay = Math.min(maxMs, delay * 2);
    },
    reset() {
      clearTimeout(timer);
      timer = undefined;
      delay = Math.min(firstMs, maxMs);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
