// The shared logstore compliance suite (testkit/logstore-compliance.ts) on the PostgreSQL driver,
// against the server .ci/run starts (COOKWALA_TEST_PG; none is a failure, not a skip). Each test
// gets its own database, dropped after. Raw bytes are searched in the database's relation files
// (heap, TOAST, indexes) after CHECKPOINT, which is how the erasure case proves the payload row
// and its TOAST chunks are gone (DELETE, then VACUUM FULL of the log's payload table; a wipe that
// a passing snapshot held back is judged once its retry went through).
import { afterEach } from 'vitest';
import type { LogStore } from '../types.ts';
import { runLogStoreCompliance } from '../../testkit/logstore-compliance.ts';
import { TEST_LOG, makeDescriptor } from '../../testkit/logstore.ts';
import { createTestDatabase, databaseFilesContain, withDatabase, type TestDatabase } from '../../testkit/postgres.ts';
import { waitFor } from '../../testkit/wait.ts';
import { openPostgresLogStore, type PostgresLogStore } from './store.ts';

const dbs: TestDatabase[] = [];
const open: LogStore[] = [];
const dbOf = new Map<LogStore, TestDatabase>();

afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
  for (const db of dbs.splice(0)) await db.drop();
  dbOf.clear();
});

async function openIn(db: TestDatabase): Promise<LogStore> {
  const s = await openPostgresLogStore({ url: db.url, log: TEST_LOG, leaseMs: 2000, waitForLeader: true });
  open.push(s);
  dbOf.set(s, db);
  return s;
}

async function close(s: LogStore): Promise<void> {
  await s.close();
  const i = open.indexOf(s);
  if (i >= 0) open.splice(i, 1);
}

runLogStoreCompliance('PostgreSQL', {
  async fresh(mode = 'full') {
    const db = await createTestDatabase();
    dbs.push(db);
    const s = await openIn(db);
    await s.init(makeDescriptor(mode));
    return s;
  },
  async reopen(s) {
    await close(s);
    return openIn(dbOf.get(s)!);
  },
  async tamper(s, puts) {
    await close(s);
    await withDatabase(dbOf.get(s)!.url, async (c) => {
      const id = (await c.query<{ log_id: string }>('SELECT log_id FROM cookwala_logs WHERE origin = $1', [TEST_LOG])).rows[0].log_id;
      for (const p of puts)
        await c.query('INSERT INTO cookwala_kv (log_id, k, v) VALUES ($1, $2, $3) ON CONFLICT (log_id, k) DO UPDATE SET v = EXCLUDED.v', [
          id,
          p.key,
          p.value,
        ]);
    });
  },
  open: (s) => openIn(dbOf.get(s)!),
  // A wipe that a snapshot elsewhere in the cluster held back (wipe.ts) is retried: the bytes are
  // judged once no erasure of the store waits for it.
  async bytesPresent(s, needle) {
    await waitFor(() => (s as PostgresLogStore).pendingWipes().length === 0, { what: 'no deferred wipe', intervalMs: 50 });
    return databaseFilesContain(dbOf.get(s)!.name, needle);
  },
});
