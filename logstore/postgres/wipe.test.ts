// An erasure's wipe on the PostgreSQL driver while a snapshot older than the erasure is open
// (docs/design.md §6, §12a; wipe.ts): real PostgreSQL (.ci/run's cluster, a database per test),
// the snapshot a REPEATABLE READ transaction on another connection that has read once, as a
// pg_dump's would be. VACUUM FULL keeps the dead row then, so the erasure is answered but its mark
// and bytes stay, erasure_wipe_deferred names the backend, and the retry wipes once the snapshot
// ended. A store closed meanwhile finds the mark (with its erasing transaction) at the next load.
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { AppendItem, LogStore } from '../types.ts';
import { P } from '../keys.ts';
import { TEST_LOG, T0, itemFor, makeDescriptor, makeEvent, sequencerSigner } from '../../testkit/logstore.ts';
import { createTestDatabase, databaseFilesContain, withDatabase, type TestDatabase } from '../../testkit/postgres.ts';
import { changes, waitFor, type Changes } from '../../testkit/wait.ts';
import { openPostgresLogStore, type PostgresLogStore, type WipeChange } from './store.ts';
import { xid32 } from './wipe.ts';

const dbs: TestDatabase[] = [];
const open: LogStore[] = [];
const snapshots: pg.Client[] = [];
afterEach(async () => {
  for (const c of snapshots.splice(0)) await c.end().catch(() => undefined);
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
  for (const db of dbs.splice(0)) await db.drop();
});

async function db(): Promise<TestDatabase> {
  const d = await createTestDatabase();
  dbs.push(d);
  return d;
}

/** A store whose wipe changes land in `seen` (waking `wake`), retrying at most every 200 ms. */
async function openStore(d: TestDatabase, seen: WipeChange[], wake: Changes): Promise<PostgresLogStore> {
  const s = await openPostgresLogStore({
    url: d.url,
    log: TEST_LOG,
    leaseMs: 2000,
    waitForLeader: true,
    wipeRetryMaxMs: 200,
    onWipe(w) {
      seen.push(w);
      wake.notify();
    },
  });
  open.push(s);
  return s;
}

async function closeStore(s: LogStore): Promise<void> {
  await s.close();
  open.splice(open.indexOf(s), 1);
}

const marks = (url: string) =>
  withDatabase(url, async (c) =>
    Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM cookwala_kv WHERE get_byte(k, 0) = $1', [P.wipe])).rows[0].n),
  );

/** A personal payload at seq 1, on disk (the search runs CHECKPOINT), so the checks below can fail. */
async function withSecret(s: PostgresLogStore, d: TestDatabase): Promise<{ secret: Buffer; t: AppendItem }> {
  await s.init(makeDescriptor('hash_only'));
  const secret = Buffer.from(`SECRET-${randomBytes(16).toString('hex')}`);
  const t = itemFor(TEST_LOG, s.head(), makeEvent('personal', { data: { note: secret.toString() } }), sequencerSigner());
  await s.append([t]);
  expect(await databaseFilesContain(d.name, secret)).toBe(true);
  return { secret, t };
}

function erase(s: PostgresLogStore, t: AppendItem) {
  const data = { seq: 1, eventHash: t.entry.eventHash, reason: 'consent withdrawn' };
  const er = makeEvent('erase-1', { source: 'urn:cookwala:sequencer', type: 'cookwala.log.erased', data });
  return s.erasePayload(1, { ...data, erasedAt: T0 }, itemFor(TEST_LOG, s.head(), er, sequencerSigner()));
}

/** A REPEATABLE READ transaction that has read once (its snapshot is taken), left open; its backend pid. */
async function holdSnapshot(url: string): Promise<{ pid: number; end(): Promise<void> }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  snapshots.push(c);
  await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
  const r = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, (SELECT count(*) FROM cookwala_logs) AS logs');
  return { pid: r.rows[0].pid, end: () => c.query('COMMIT').then(() => undefined) };
}

const wipedIn = (seen: WipeChange[]) => seen.find((w) => w.event === 'erasure_wiped');

describe('PostgreSQL erasure wipe under an open snapshot', () => {
  it('the erasure is answered, its mark and bytes stay while the snapshot is open (erasure_wipe_deferred names it), and the retry wipes them once it ended', async () => {
    const d = await db();
    const seen: WipeChange[] = [];
    const wake = changes();
    const s = await openStore(d, seen, wake);
    const { secret, t } = await withSecret(s, d);
    const snap = await holdSnapshot(d.url);
    expect((await erase(s, t)).seq).toBe(2);
    expect(await s.getPayload(1)).toMatchObject({ erased: { seq: 1, erasureSeq: 2 } });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ event: 'erasure_wipe_deferred', log: TEST_LOG, seqs: [1], pending: 1 });
    expect(seen[0].reason).toContain(`backend ${snap.pid}`);
    expect(await databaseFilesContain(d.name, secret)).toBe(true); // VACUUM FULL would have kept the row
    // Whatever retries ran meanwhile (the file search takes a checkpoint), the snapshot is open: the mark stays.
    expect(await marks(d.url)).toBe(1);
    expect(s.pendingWipes()).toEqual([1]);
    expect(wipedIn(seen)).toBeUndefined();

    await snap.end();
    const done = await waitFor(() => wipedIn(seen), { what: 'erasure_wiped after the snapshot ended', wake });
    expect(done).toMatchObject({ log: TEST_LOG, seqs: [1], pending: 0 });
    expect(await marks(d.url)).toBe(0);
    expect(s.pendingWipes()).toEqual([]);
    expect(await databaseFilesContain(d.name, secret)).toBe(false);
    expect(await s.getPayload(1)).toMatchObject({ erased: { seq: 1, erasureSeq: 2 } });
    // The log goes on.
    expect((await s.append([itemFor(TEST_LOG, s.head(), makeEvent('after'), sequencerSigner())])).seq).toBe(3);
  });

  it('a store closed while its wipe waits: the next load defers again while the snapshot is open, and a load after it ended wipes', async () => {
    const d = await db();
    const seen: WipeChange[] = [];
    const wake = changes();
    const s = await openStore(d, seen, wake);
    const { secret, t } = await withSecret(s, d);
    const snap = await holdSnapshot(d.url);
    await erase(s, t);
    expect(seen.map((w) => w.event)).toEqual(['erasure_wipe_deferred']);
    await closeStore(s);
    expect(await marks(d.url)).toBe(1);

    // The mark kept the erasing transaction: the reopened store's load judges the same snapshot.
    const atLoad: WipeChange[] = [];
    const r = await openStore(d, atLoad, wake);
    expect(atLoad[0]).toMatchObject({ event: 'erasure_wipe_deferred', seqs: [1] });
    expect(atLoad[0].reason).toContain(`backend ${snap.pid}`);
    expect(r.pendingWipes()).toEqual([1]);
    expect(await databaseFilesContain(d.name, secret)).toBe(true);
    await closeStore(r);

    await snap.end();
    const later: WipeChange[] = [];
    const again = await openStore(d, later, wake);
    const done = await waitFor(() => wipedIn(later), { what: 'erasure_wiped by the load after the snapshot ended', wake });
    expect(done.seqs).toEqual([1]);
    expect(await marks(d.url)).toBe(0);
    expect(await databaseFilesContain(d.name, secret)).toBe(false);
    expect(await again.getPayload(1)).toMatchObject({ erased: { seq: 1, erasureSeq: 2 } });
  });

  it('xid32: the 32-bit transaction id of a full one; the three special ids order like the last normal id before them', () => {
    expect(xid32(5n)).toBe('5');
    expect(xid32((1n << 32n) + 7n)).toBe('7');
    expect(xid32(1n << 32n)).toBe('4294967295');
    expect(xid32((1n << 32n) + 2n)).toBe('4294967295');
    expect(xid32((3n << 32n) - 1n)).toBe('4294967295');
  });
});
