// testkit/postgres.ts: the PostgreSQL fixture of the tests and the bench (docs/design.md §12a): the
// server is the one .ci/run installs and starts (COOKWALA_TEST_PG, an admin URL); each test gets
// its own database (CREATE DATABASE with a random name, dropped after). No PostgreSQL is a test
// FAILURE with a message saying how to get one, never a skip. Also reads the raw relation files
// of a database, for the erasure proof: after CHECKPOINT (shared buffers flushed to the files),
// every file under base/<database oid>/ is searched for the bytes. Leaves out: starting the server.

import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ENV = 'COOKWALA_TEST_PG';

export function adminUrl(): string {
  const u = process.env[PG_ENV];
  if (!u) {
    throw new Error(
      `${PG_ENV} is not set: these tests need PostgreSQL. Run .ci/run (it installs Debian's postgresql, starts a local cluster and exports ${PG_ENV}), or start one and set ${PG_ENV}=postgres://postgres@127.0.0.1:55432/postgres`,
    );
  }
  return u;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl() });
  try {
    await c.connect();
  } catch (e) {
    throw new Error(
      `cannot reach PostgreSQL at ${PG_ENV}=${adminUrl()}: ${(e as Error).message} (run .ci/run to start the local cluster)`,
      { cause: e },
    );
  }
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(prefix = 'cookwala_t'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** Do any of the database's relation files (heap, TOAST, indexes, free space maps) hold `needle`? */
export async function databaseFilesContain(dbName: string, needle: Uint8Array): Promise<boolean> {
  const dir = await admin(async (c) => {
    await c.query('CHECKPOINT');
    const d = await c.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'data_directory'");
    const o = await c.query<{ oid: string }>('SELECT oid FROM pg_database WHERE datname = $1', [dbName]);
    return path.join(d.rows[0].setting, 'base', String(o.rows[0].oid));
  });
  const n = Buffer.from(needle);
  for (const f of fs.readdirSync(dir)) {
    const p = path.join(dir, f);
    let bytes: Buffer;
    try {
      if (!fs.statSync(p).isFile()) continue;
      bytes = fs.readFileSync(p);
    } catch (e) {
      // PostgreSQL may unlink a file (pg_internal.init, a truncated segment) between the listing
      // and the read: a file that is gone holds nothing.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    if (bytes.indexOf(n) >= 0) return true;
  }
  return false;
}

/** Run SQL against a test database (tampering in crash-guard tests). */
export async function withDatabase<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}
