// Backup and restore of a LevelDB sequencer as docs/operations.md says to do it, with only the CLI
// and tar: stop the sequencer (SIGTERM: it signs a last checkpoint and closes the stores), archive
// the whole data directory, restore it into another path (the move to a new machine; the old one
// never runs again), start it there; the restored log verifies (`cookwala verify` VALID over an
// export) and keeps growing from the next seq. And the
// guard the procedure relies on: a store older than the data directory's last signed checkpoint
// (an old backup of logs/ alone put back) is refused with store_behind_checkpoint, exit 1,
// rather than signing a second head at a seq it already signed. For PostgreSQL: pg_dump of the
// stopped sequencer's database, pg_restore into another database, and the same sequencer data
// directory started on it verifies and keeps growing (skipped, reason printed, without pg_dump).
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cookwala } from '../testkit/audit.ts';
import { spawnCookwala, stopChild, type Child } from '../testkit/witness-procs.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { createTestDatabase, type TestDatabase } from '../testkit/postgres.ts';

const tmp = tempDirs('cookwala-backup-');
const dbs: TestDatabase[] = [];
afterAll(async () => {
  for (const d of dbs) await d.drop().catch(() => undefined);
  await tmp.cleanup();
});
const PG_DUMP = ['/usr/bin/pg_dump'].find((p) => existsSync(p));
const PG_RESTORE = ['/usr/bin/pg_restore'].find((p) => existsSync(p));
const noPg = !PG_DUMP || !PG_RESTORE ? 'pg_dump/pg_restore are absent (Debian package postgresql-client)' : undefined;
if (noPg) process.stdout.write(`test/ops-backup.test.ts: the PostgreSQL backup check is skipped: ${noPg}\n`);
const LOG = 'backup.example/missions/m-1';
const SOURCE = 'urn:cookwala:device:backup-1';

async function start(dataDir: string, extra: string[] = []): Promise<{ child: Child; url: string }> {
  const child = spawnCookwala(['sequencer', '--data', dataDir, '--port', '0', ...extra]);
  const died = child.exited.then(() => Promise.reject(new Error(`sequencer exited: ${child.err()}`)));
  died.catch(() => undefined);
  const url = (await Promise.race([child.logs.next('listening', undefined, 60_000), died])).url as string;
  return { child, url };
}

/** Sign `count` events as one batch file and post it; returns the seqs. */
async function deliver(dir: string, url: string, first: number, count: number): Promise<number[]> {
  const events = Array.from({ length: count }, (_, i) => ({
    specversion: '1.0',
    id: `b-${first + i}`,
    source: SOURCE,
    type: 'cookwala.execution.running',
    subject: 'exec-1',
    cookwalaseq: first + i,
    datacontenttype: 'application/json',
    data: { step: first + i },
  }));
  const f = join(dir, `batch-${first}.json`);
  await writeFile(f, JSON.stringify(events));
  expect((await cookwala(['device', 'sign', f, '--key', join(dir, 'k.json'), '--out', `${f}.signed`])).code).toBe(0);
  const p = await cookwala(['device', 'post', `${f}.signed`, '--url', url, '--log', LOG]);
  expect(p.code, p.stderr + p.stdout).toBe(0);
  return JSON.parse(p.stdout).results.map((r: { seq: number }) => r.seq);
}

async function verifyExport(dir: string, url: string, name: string): Promise<string> {
  expect((await cookwala(['checkpoint', '--url', url, '--log', LOG, '--wait', '30s'])).code).toBe(0);
  const out = join(dir, `${name}.ndjson`);
  const e = await cookwala(['export', '--url', url, '--log', LOG, '--out', out]);
  expect(e.code, e.stderr).toBe(0);
  return out;
}

describe('LevelDB backup and restore', () => {
  it('a stopped sequencer archived with tar, restored elsewhere, verifies and keeps growing', async () => {
    const dir = await tmp.make();
    const live = join(dir, 'seq');
    expect((await cookwala(['init', '--data', live, '--log', LOG])).code).toBe(0);
    let s = await start(live);
    expect(
      (
        await cookwala([
          'device',
          'keygen',
          '--kid',
          'backup-1',
          '--source',
          SOURCE,
          '--out',
          join(dir, 'k.json'),
          '--record',
          join(dir, 'r.json'),
        ])
      ).code,
    ).toBe(0);
    const reg = await cookwala([
      'keys',
      'register',
      join(dir, 'r.json'),
      '--url',
      s.url,
      '--log',
      LOG,
      '--token-file',
      join(live, 'operator.token'),
    ]);
    expect(reg.code, reg.stderr).toBe(0);
    expect(await deliver(dir, s.url, 1, 5)).toEqual([1, 2, 3, 4, 5]);
    const before = await verifyExport(dir, s.url, 'before');

    // the procedure: stop, archive the whole directory (the original is then retired)
    expect((await stopChild(s.child)).code).toBe(0);
    const archive = join(dir, 'seq-backup.tar.gz');
    execFileSync('tar', ['-C', live, '-czf', archive, '.']);

    // the restore: the whole archive into a new path, on the machine that replaces the old one
    const restored = join(dir, 'restored');
    await mkdir(restored);
    execFileSync('tar', ['-C', restored, '-xzf', archive]);
    s = await start(restored);
    try {
      // the log goes on after seq 5 (a cookwala.hub.device_lost entry of the sequencer's own may come first)
      const more = await deliver(dir, s.url, 6, 3);
      expect(more[0]).toBeGreaterThan(5);
      expect(more).toEqual([more[0], more[0] + 1, more[0] + 2]);
      const after = await verifyExport(dir, s.url, 'after');
      for (const b of [before, after]) {
        const v = await cookwala(['verify', b, '--policy', join(restored, 'policy.json'), '--json']);
        expect(v.code, v.stdout).toBe(0);
      }
      const lines = (await readFile(after, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const seqs = lines.filter((l) => l.kind === 'Event').map((l) => l.seq);
      expect(seqs).toEqual(Array.from({ length: more[2] }, (_, i) => i + 1));
    } finally {
      await stopChild(s.child);
    }

    // the archive's logs/ alone put back under the newer checkpoints/: refused, nothing served
    const stale = join(dir, 'stale');
    await mkdir(stale);
    execFileSync('tar', ['-C', stale, '-xzf', archive]);
    await rm(join(restored, 'logs'), { recursive: true });
    execFileSync('cp', ['-a', join(stale, 'logs'), join(restored, 'logs')]);
    const refused = spawnCookwala(['sequencer', '--data', restored, '--port', '0']);
    const r = await refused.exited;
    expect(r.code).toBe(1);
    expect(refused.err()).toMatch(/store_behind_checkpoint/);
  }, 300_000);
});

describe.skipIf(noPg !== undefined)('PostgreSQL backup and restore', () => {
  it('pg_dump of a stopped sequencer restored into another database verifies and keeps growing', async () => {
    const dir = await tmp.make();
    const data = join(dir, 'seq');
    const a = await createTestDatabase();
    dbs.push(a);
    expect((await cookwala(['init', '--data', data, '--log', LOG, '--store', a.url])).code).toBe(0);
    let s = await start(data, ['--store', a.url]);
    expect(
      (
        await cookwala([
          'device',
          'keygen',
          '--kid',
          'backup-pg',
          '--source',
          SOURCE,
          '--out',
          join(dir, 'k.json'),
          '--record',
          join(dir, 'r.json'),
        ])
      ).code,
    ).toBe(0);
    const reg = await cookwala([
      'keys',
      'register',
      join(dir, 'r.json'),
      '--url',
      s.url,
      '--log',
      LOG,
      '--token-file',
      join(data, 'operator.token'),
    ]);
    expect(reg.code, reg.stderr).toBe(0);
    expect(await deliver(dir, s.url, 1, 3)).toEqual([1, 2, 3]);
    expect((await stopChild(s.child)).code).toBe(0);
    const dump = join(dir, 'cookwala.dump');
    execFileSync(PG_DUMP!, ['--format=custom', `--file=${dump}`, a.url]);
    const b = await createTestDatabase();
    dbs.push(b);
    execFileSync(PG_RESTORE!, ['--no-owner', `--dbname=${b.url}`, dump]);
    s = await start(data, ['--store', b.url]);
    try {
      const more = await deliver(dir, s.url, 4, 2);
      expect(more[0]).toBeGreaterThan(3);
      const out = await verifyExport(dir, s.url, 'pg');
      const v = await cookwala(['verify', out, '--policy', join(data, 'policy.json'), '--json']);
      expect(v.code, v.stdout).toBe(0);
    } finally {
      await stopChild(s.child);
    }
  }, 300_000);
});
