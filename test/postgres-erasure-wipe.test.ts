// An erasure through a real `cookwala sequencer --store postgres://…` child while a snapshot older
// than it is open, as a pg_dump's is (docs/design.md §6, §12a; docs/operations.md, the PostgreSQL
// backup): DELETE …/payload answers 200 at once and the payload answers 410, but the bytes are still
// in the database files; stdout has one `erasure_wipe_deferred` line naming the snapshot's backend
// and GET /metrics counts the waiting erasure (`cookwala_erasures_unwiped`). Once the snapshot ends,
// `erasure_wiped` follows, the gauge is back to 0 and the bytes are gone from the files. Real
// PostgreSQL (COOKWALA_TEST_PG), real HTTP, a real child process.
import { afterAll, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { makeTempDir } from '../testkit/tmp.ts';
import { createTestDatabase, databaseFilesContain } from '../testkit/postgres.ts';
import { freePort } from '../testkit/net.ts';
import { waitFor } from '../testkit/wait.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import { exitOf, prepareDataDirs, startPgSequencer } from '../tools/pg-procs.ts';
import { readLogLines, type LogRecord } from '../platform/logger.ts';

const LOG = 'wipe.example/missions/m-1';
const LEASE_MS = 2000;
const device = deviceKey(83);
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

it('an erasure during a long snapshot is answered at once, logged erasure_wipe_deferred and counted, and wiped from the files once the snapshot ends (erasure_wiped)', async () => {
  const db = await createTestDatabase();
  cleanup.push(() => db.drop());
  const base = await makeTempDir('cookwala-pg-wipe-');
  cleanup.push(() => rm(base, { recursive: true, force: true }));
  const { dirA } = await prepareDataDirs(base, db.url, LOG, [device], LEASE_MS);
  const p = await startPgSequencer('A', dirA, await freePort(), db.url, LEASE_MS);
  cleanup.push(async () => {
    p.child.kill('SIGTERM');
    await exitOf(p.child);
  });
  const token = (await readFile(join(dirA, 'operator.token'), 'utf8')).trim();
  const lines = (): LogRecord[] => readLogLines(p.output());
  const unwiped = async (): Promise<number | undefined> => {
    const text = await (await fetch(`${p.url}/metrics`)).text();
    const m = new RegExp(`^cookwala_erasures_unwiped\\{log="${LOG}"\\} (\\d+)$`, 'm').exec(text);
    return m ? Number(m[1]) : undefined;
  };

  const secret = `SECRET-${randomBytes(16).toString('hex')}`;
  const ce = eventStream(device).next('exec-1', { data: { note: secret } });
  const post = await fetch(`${p.url}${logPath(LOG, '/events')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': ce.id },
    body: JSON.stringify(ce),
  });
  expect(post.status, await post.clone().text()).toBe(201);
  const { seq } = (await post.json()) as { seq: number };
  expect(await databaseFilesContain(db.name, Buffer.from(secret))).toBe(true); // so the checks below can fail

  // A backup's snapshot: REPEATABLE READ, taken by its first read, held open.
  const dump = new pg.Client({ connectionString: db.url });
  await dump.connect();
  cleanup.push(() => dump.end());
  await dump.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
  const { pid } = (await dump.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, (SELECT count(*) FROM cookwala_kv) AS n')).rows[0];

  const del = await fetch(`${p.url}${logPath(LOG, `/events/${seq}/payload`)}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'consent withdrawn' }),
  });
  expect(del.status, await del.clone().text()).toBe(200);
  expect((await fetch(`${p.url}${logPath(LOG, `/events/${seq}`)}`)).status).toBe(410);
  const deferred = await waitFor(() => lines().find((r) => r.event === 'erasure_wipe_deferred'), {
    what: 'an erasure_wipe_deferred line',
    intervalMs: 50,
    detail: () => p.output().slice(-3000),
  });
  expect(deferred).toMatchObject({ level: 'warn', log: LOG, seqs: [seq] });
  expect(String(deferred.reason)).toContain(`backend ${pid}`);
  expect(await unwiped()).toBe(1);
  expect(await databaseFilesContain(db.name, Buffer.from(secret))).toBe(true);
  expect(lines().some((r) => r.event === 'erasure_wiped')).toBe(false);

  await dump.query('COMMIT');
  const wiped = await waitFor(() => lines().find((r) => r.event === 'erasure_wiped'), {
    what: 'an erasure_wiped line after the snapshot ended',
    intervalMs: 50,
    detail: () => p.output().slice(-3000),
  });
  expect(wiped).toMatchObject({ level: 'info', log: LOG, seqs: [seq] });
  expect(await unwiped()).toBe(0);
  expect(await databaseFilesContain(db.name, Buffer.from(secret))).toBe(false);
  expect(lines().filter((r) => r.level === 'error' || r.level === 'fatal')).toEqual([]);
}, 120_000); // two sequencer starts, and a retry up to twice the time the snapshot was held
