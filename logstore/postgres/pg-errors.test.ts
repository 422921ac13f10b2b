// What a read of the PostgreSQL store says while the database cannot be reached (pg-errors.ts): the
// errors a restart, a shutdown or a cut connection give (SQLSTATE 57P03, 57P01, 08006, a refused
// socket, the pg client's "Connection terminated") become store_unavailable (503, with
// Retry-After on the wire) on every read path of PgKv; an error about the data itself (a syntax or
// constraint error) is thrown on unchanged. The real outage (a cluster stopped and started under
// load) is in test/postgres-failover.test.ts.
import { describe, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { ProtocolError } from '../../verifier/errors.ts';
import { problemOf } from '../../platform/http-problem.ts';
import { isDatabaseUnavailable } from './pg-errors.ts';
import { PgKv } from './pg-kv.ts';

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });
const failing = (e: unknown) => ({ query: () => Promise.reject(e) }) as unknown as Pool;

describe('reads while the database is down', () => {
  const outages = [
    pgError('57P03', 'the database system is shutting down'),
    pgError('57P01', 'terminating connection due to administrator command'),
    pgError('08006', 'connection failure'),
    pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
    new Error('Connection terminated unexpectedly'),
    new AggregateError([pgError('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432')], 'all addresses failed'),
  ];
  for (const e of outages) {
    it(`${(e as { code?: string }).code ?? e.message}: every read path answers store_unavailable`, async () => {
      expect(isDatabaseUnavailable(e)).toBe(true);
      const kv = new PgKv(failing(e), 1);
      for (const read of [() => kv.get(Buffer.from([1])), () => kv.keys({ gte: Buffer.from([1]) }), () => kv.leaseRow()]) {
        const err = await read().then(
          () => undefined,
          (x: unknown) => x,
        );
        expect(err).toBeInstanceOf(ProtocolError);
        expect((err as ProtocolError).code).toBe('store_unavailable');
        expect(problemOf({ ok: false, code: 'store_unavailable', detail: '' }).status).toBe(503);
      }
    });
  }

  it('an error about the data is not an outage', async () => {
    const e = pgError('42601', 'syntax error at or near "x"');
    expect(isDatabaseUnavailable(e)).toBe(false);
    expect(isDatabaseUnavailable(pgError('23505', 'duplicate key value violates unique constraint'))).toBe(false);
    await expect(new PgKv(failing(e), 1).get(Buffer.from([1]))).rejects.toBe(e);
  });
});
