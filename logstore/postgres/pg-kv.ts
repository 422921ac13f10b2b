// logstore/postgres/pg-kv.ts: the tables of the PostgreSQL log store (docs/design.md §6, §12a) and the
// byte-keyed read/write layer over them. The store keeps the key layout of logstore/keys.ts with
// its per-entry records FAMILY_FIRST ('e'/'n'/'p' u64 seq), and the LevelDB driver's value
// encodings, so the append and erasure plans (logstore/append-plan.ts) and the read side
// (logstore/store-read.ts) are shared by both drivers and store the same values:
//   cookwala_logs(log_id, origin)                one row per log
//   cookwala_kv(log_id, k bytea, v bytea)        every key family but payloads; bytea sorts
//                                                bytewise like LevelDB, so seq ranges are key ranges
//   cookwala_payload_<log_id>(seq, v bytea)      payloads, one table per log, so an erasure's
//                                                VACUUM FULL rewrites only that log's payloads
//   cookwala_leases(log_id, epoch, holder, address, acquired_at)   the fencing epoch (lease.ts)
// Writes are one transaction that first reads the lease row FOR SHARE and refuses (not_leader)
// unless its epoch is the writer's: a takeover's UPDATE of that row waits for the transactions
// holding it, and every later one sees the new epoch. Families written once (entries, nodes,
// payloads, dedup index) are plain INSERTs, so even a writer that skipped the fence could not
// overwrite a seq (unique violation). A wipe mark ('w') is stored with the id of the transaction
// that wrote it (pg_current_xact_id, decimal), whatever value the plan gave: wipe.ts compares it
// with the snapshots still open before it clears the mark. Leaves out: connection management (the caller's pg.Pool)
// and what the keys mean (logstore/keys.ts). Invariant: a batch lands whole or not at all, and never
// under an epoch other than the one it was planned for.

import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import { ProtocolError } from '../../verifier/index.ts';
import type { KvRange, KvRead } from '../store-read.ts';
import type { Op } from '../append-plan.ts';
import { P } from '../keys.ts';
import { unavailableOr } from './pg-errors.ts';

/** Families whose keys are written once and never overwritten (INSERT, no upsert). */
const WRITE_ONCE = new Set<number>([P.entry, P.node, P.dedup]);
const PAGE = 1000;
const MAX_SEQ = BigInt(Number.MAX_SAFE_INTEGER);

/** Creates the shared tables (once per database; serialized by a transaction-scoped advisory lock). */
export async function ensureSchema(pool: Pool): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock(7236, 0)');
    await c.query(`CREATE TABLE IF NOT EXISTS cookwala_logs (log_id bigserial PRIMARY KEY, origin text NOT NULL UNIQUE)`);
    await c.query(
      `CREATE TABLE IF NOT EXISTS cookwala_kv (log_id bigint NOT NULL REFERENCES cookwala_logs, k bytea NOT NULL, v bytea NOT NULL, PRIMARY KEY (log_id, k))`,
    );
    await c.query(
      `CREATE TABLE IF NOT EXISTS cookwala_leases (log_id bigint PRIMARY KEY REFERENCES cookwala_logs, epoch bigint NOT NULL, holder text, address text, acquired_at timestamptz)`,
    );
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}

export function payloadTable(logId: number): string {
  if (!Number.isSafeInteger(logId) || logId < 1) throw new Error(`logstore: bad log id ${logId}`);
  return `cookwala_payload_${logId}`;
}

/** The log's id, creating its row, lease row (epoch 0) and payload table when `create`. */
export async function logIdOf(pool: Pool, origin: string, create: boolean): Promise<number | undefined> {
  const found = await pool.query<{ log_id: string }>('SELECT log_id FROM cookwala_logs WHERE origin = $1', [origin]);
  if (found.rows[0]) return Number(found.rows[0].log_id);
  if (!create) return undefined;
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock(7236, 0)');
    const again = await c.query<{ log_id: string }>('SELECT log_id FROM cookwala_logs WHERE origin = $1', [origin]);
    let id = again.rows[0] ? Number(again.rows[0].log_id) : undefined;
    if (id === undefined) {
      const r = await c.query<{ log_id: string }>('INSERT INTO cookwala_logs (origin) VALUES ($1) RETURNING log_id', [origin]);
      id = Number(r.rows[0].log_id);
      await c.query('INSERT INTO cookwala_leases (log_id, epoch) VALUES ($1, 0)', [id]);
      await c.query(`CREATE TABLE ${payloadTable(id)} (seq bigint PRIMARY KEY, v bytea NOT NULL)`);
    }
    await c.query('COMMIT');
    return id;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}

function isPayloadKey(k: Buffer): boolean {
  return k.length === 9 && k[0] === P.payload;
}

/** A seq bound from a (possibly short or all-0xff) payload-family range key. */
function seqBound(k: Buffer | undefined, low: boolean): bigint {
  if (!k || k.length < 9) return low ? 0n : MAX_SEQ;
  const v = k.readBigUInt64BE(1);
  return v > MAX_SEQ ? MAX_SEQ : v;
}

function payloadKeyOf(seq: string | number): Buffer {
  const b = Buffer.allocUnsafe(9);
  b[0] = P.payload;
  b.writeBigUInt64BE(BigInt(seq), 1);
  return b;
}

/** A range read; the payload family maps to the log's payload table. Keyset-paged, so constant memory. */
function rangeIsPayload(r: KvRange): boolean {
  return r.gte !== undefined && r.gte[0] === P.payload && r.lte !== undefined && r.lte[0] === P.payload;
}

export class PgKv implements KvRead {
  readonly payloads: string;

  constructor(
    private readonly pool: Pool,
    readonly logId: number,
  ) {
    this.payloads = payloadTable(logId);
  }

  /** One read query; a database that cannot be reached is store_unavailable (pg-errors.ts). */
  private async read<R extends QueryResultRow>(text: string, params: unknown[]): Promise<QueryResult<R>> {
    try {
      return await this.pool.query<R>(text, params);
    } catch (e) {
      throw unavailableOr(e);
    }
  }

  /** The lease row as the database has it now (epoch and the leader's address). */
  async leaseRow(): Promise<{ epoch: number | undefined; address: string | null }> {
    const r = await this.read<{ epoch: string; address: string | null }>('SELECT epoch, address FROM cookwala_leases WHERE log_id = $1', [
      this.logId,
    ]);
    return { epoch: r.rows[0] ? Number(r.rows[0].epoch) : undefined, address: r.rows[0]?.address ?? null };
  }

  async get(key: Buffer): Promise<Buffer | undefined> {
    return (await this.getMany([key]))[0];
  }

  async getMany(keys: Buffer[]): Promise<Array<Buffer | undefined>> {
    if (keys.length === 0) return [];
    const pk = keys.filter(isPayloadKey);
    const kk = keys.filter((k) => !isPayloadKey(k));
    const found = new Map<string, Buffer>();
    await Promise.all([
      kk.length === 0
        ? undefined
        : this.read<{ k: Buffer; v: Buffer }>('SELECT k, v FROM cookwala_kv WHERE log_id = $1 AND k = ANY($2::bytea[])', [
            this.logId,
            kk,
          ]).then((r) => {
            for (const row of r.rows) found.set(row.k.toString('latin1'), row.v);
          }),
      pk.length === 0
        ? undefined
        : this.read<{ seq: string; v: Buffer }>(`SELECT seq, v FROM ${this.payloads} WHERE seq = ANY($1::bigint[])`, [
            pk.map((k) => k.readBigUInt64BE(1).toString()),
          ]).then((r) => {
            for (const row of r.rows) found.set(payloadKeyOf(row.seq).toString('latin1'), row.v);
          }),
    ]);
    return keys.map((k) => found.get(k.toString('latin1')));
  }

  async *iterator(r: KvRange): AsyncIterable<[Buffer, Buffer]> {
    const desc = r.reverse === true;
    let left = r.limit ?? Infinity;
    if (rangeIsPayload(r)) {
      let lo = seqBound(r.gte, true);
      let hi = seqBound(r.lte, false);
      while (left > 0 && lo <= hi) {
        const n = Math.min(PAGE, left);
        const res = await this.read<{ seq: string; v: Buffer }>(
          `SELECT seq, v FROM ${this.payloads} WHERE seq >= $1 AND seq <= $2 ORDER BY seq ${desc ? 'DESC' : 'ASC'} LIMIT ${n}`,
          [lo.toString(), hi.toString()],
        );
        for (const row of res.rows) yield [payloadKeyOf(row.seq), row.v];
        left -= res.rows.length;
        if (res.rows.length < n) return;
        const last = BigInt(res.rows[res.rows.length - 1].seq);
        if (desc) hi = last - 1n;
        else lo = last + 1n;
      }
      return;
    }
    let gte = r.gte ?? Buffer.alloc(0);
    let gt: Buffer | undefined;
    let lte = r.lte;
    let lt: Buffer | undefined;
    while (left > 0) {
      const n = Math.min(PAGE, left);
      const params: unknown[] = [this.logId];
      const conds = ['log_id = $1'];
      const add = (op: string, v: Buffer | undefined) => {
        if (v === undefined) return;
        params.push(v);
        conds.push(`k ${op} $${params.length}`);
      };
      add(gt ? '>' : '>=', gt ?? gte);
      add(lt ? '<' : '<=', lt ?? lte);
      const res = await this.read<{ k: Buffer; v: Buffer }>(
        `SELECT k, v FROM cookwala_kv WHERE ${conds.join(' AND ')} ORDER BY k ${desc ? 'DESC' : 'ASC'} LIMIT ${n}`,
        params,
      );
      for (const row of res.rows) yield [row.k, row.v];
      left -= res.rows.length;
      if (res.rows.length < n) return;
      const last = res.rows[res.rows.length - 1].k;
      if (desc) {
        lt = last;
        lte = undefined;
      } else {
        gt = last;
        gte = last;
      }
    }
  }

  values(r: KvRange): AsyncIterable<Buffer> & { all(): Promise<Buffer[]> } {
    const it = this.iterator(r);
    const gen = async function* () {
      for await (const [, v] of it) yield v;
    };
    return {
      [Symbol.asyncIterator]: () => gen()[Symbol.asyncIterator](),
      async all() {
        const out: Buffer[] = [];
        for await (const [, v] of it) out.push(v);
        return out;
      },
    };
  }

  async keys(r: KvRange): Promise<Buffer[]> {
    const out: Buffer[] = [];
    for await (const [k] of this.iterator(r)) out.push(k);
    return out;
  }

  /**
   * One transaction: the fence (lease row FOR SHARE, epoch must be `epoch`), then the ops, the last
   * op of a key winning. Throws not_leader (nothing written) when the epoch moved on.
   */
  async write(ops: Op[], epoch: number): Promise<void> {
    const last = new Map<string, Op>();
    for (const op of ops) {
      const k = op.key.toString('latin1');
      last.delete(k);
      last.set(k, op);
    }
    const once: Op[] = [];
    const upsert: Op[] = [];
    const marks: Buffer[] = [];
    const del: Buffer[] = [];
    const payPut: Op[] = [];
    const payDel: string[] = [];
    for (const op of last.values()) {
      if (isPayloadKey(op.key)) {
        if (op.type === 'put') payPut.push(op);
        else payDel.push(op.key.readBigUInt64BE(1).toString());
      } else if (op.type === 'del') del.push(op.key);
      else if (op.key[0] === P.wipe) marks.push(op.key);
      else if (WRITE_ONCE.has(op.key[0])) once.push(op);
      else upsert.push(op);
    }
    const c: PoolClient = await this.pool.connect();
    // The server may end this session while we hold it (idle_in_transaction_session_timeout after a
    // pause): the socket error must not be an uncaught 'error' event; the next query rejects instead.
    const onError = (): void => undefined;
    c.on('error', onError);
    let released = false;
    try {
      await c.query('BEGIN');
      const lease = await c.query<{ epoch: string; address: string | null }>(
        'SELECT epoch, address FROM cookwala_leases WHERE log_id = $1 FOR SHARE',
        [this.logId],
      );
      const now = lease.rows[0] ? Number(lease.rows[0].epoch) : undefined;
      if (now !== epoch) {
        await c.query('ROLLBACK');
        throw new ProtocolError(
          'not_leader',
          `the lease of this log is at epoch ${now}, this writer holds ${epoch}: another sequencer took over`,
          { leader: lease.rows[0]?.address ?? undefined },
        );
      }
      const kv = (rows: Op[]) => [this.logId, rows.map((o) => o.key), rows.map((o) => (o as { value: Buffer }).value)];
      if (once.length) await c.query('INSERT INTO cookwala_kv (log_id, k, v) SELECT $1, * FROM unnest($2::bytea[], $3::bytea[])', kv(once));
      if (upsert.length)
        await c.query(
          'INSERT INTO cookwala_kv (log_id, k, v) SELECT $1, * FROM unnest($2::bytea[], $3::bytea[]) ON CONFLICT (log_id, k) DO UPDATE SET v = EXCLUDED.v',
          kv(upsert),
        );
      if (marks.length)
        await c.query(
          "INSERT INTO cookwala_kv (log_id, k, v) SELECT $1, k, convert_to(pg_current_xact_id()::text, 'UTF8') FROM unnest($2::bytea[]) AS k ON CONFLICT (log_id, k) DO UPDATE SET v = EXCLUDED.v",
          [this.logId, marks],
        );
      if (del.length) await c.query('DELETE FROM cookwala_kv WHERE log_id = $1 AND k = ANY($2::bytea[])', [this.logId, del]);
      if (payPut.length)
        await c.query(`INSERT INTO ${this.payloads} (seq, v) SELECT * FROM unnest($1::bigint[], $2::bytea[])`, [
          payPut.map((o) => o.key.readBigUInt64BE(1).toString()),
          payPut.map((o) => (o as { value: Buffer }).value),
        ]);
      if (payDel.length) await c.query(`DELETE FROM ${this.payloads} WHERE seq = ANY($1::bigint[])`, [payDel]);
      await c.query('COMMIT');
    } catch (e) {
      if (!(e instanceof ProtocolError)) {
        await c.query('ROLLBACK').catch(() => undefined);
        // A connection that failed mid-transaction is not given back to the pool.
        c.release(e as Error);
        released = true;
      }
      throw e;
    } finally {
      c.off('error', onError);
      if (!released) c.release();
    }
  }
}
