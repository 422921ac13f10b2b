// The CLI's PostgreSQL backend (docs/design.md §12, §12a): `cookwala init --store postgres://…` creates
// the log in that database (a signed descriptor there, nothing under DIR/logs), re-running it
// creates nothing, and `--store` with anything but a postgres URL (or `--advertise` without it) is
// a usage error (exit 2) before anything is opened. Real PostgreSQL (.ci/run), own database.
import { afterAll, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '../testkit/tmp.ts';
import { cookwala } from '../testkit/audit.ts';
import { createTestDatabase, withDatabase, type TestDatabase } from '../testkit/postgres.ts';
import { singleKey } from '../logstore/keys.ts';

const LOG = 'cli.example/missions/pg';
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanup) await c().catch(() => undefined);
});

it('init --store creates the log in PostgreSQL, idempotently; bad --store values are usage errors', async () => {
  const db: TestDatabase = await createTestDatabase();
  cleanup.push(() => db.drop());
  const dir = await makeTempDir('cookwala-pg-cli-');
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const data = join(dir, 'seq');
  const r = await cookwala(['init', '--data', data, '--log', LOG, '--mode', 'hash_only', '--store', db.url]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain(`log ${LOG} (hash_only)`);
  const desc = await withDatabase(db.url, async (c) => {
    const row = await c.query<{ v: Buffer }>('SELECT v FROM cookwala_kv JOIN cookwala_logs USING (log_id) WHERE origin = $1 AND k = $2', [
      LOG,
      singleKey.descriptor,
    ]);
    return row.rows[0] ? (JSON.parse(row.rows[0].v.toString('utf8')) as { kind: string; log: string; mode: string }) : undefined;
  });
  expect(desc).toMatchObject({ kind: 'Log', log: LOG, mode: 'hash_only' });
  expect(existsSync(join(data, 'logs', encodeURIComponent(LOG), 'CURRENT'))).toBe(false);
  const again = await cookwala(['init', '--data', data, '--log', LOG, '--mode', 'hash_only', '--store', db.url]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toContain('nothing to create');

  const bad = await cookwala(['sequencer', '--data', data, '--store', 'mysql://x/y']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toMatch(/--store takes a postgres:\/\//);
  const orphan = await cookwala(['sequencer', '--data', data, '--advertise', 'http://a:1']);
  expect(orphan.code).toBe(2);
  expect(orphan.stderr).toMatch(/--advertise and --lease-ms go with --store/);
});
