// testkit/pg-cluster.ts: a throwaway PostgreSQL cluster of one test's own (docs/design.md §12a, §14), for
// the tests that stop and start the database under a running sequencer: initdb into a temp directory
// owned by the postgres user (root cannot run postgres; .ci/run does the same for the shared
// cluster), pg_ctl start on a free port of 127.0.0.1 with its socket in that directory, and
// `restart()` as an operator's `pg_ctl restart -m fast` does it (every session ended, the server
// down for a moment, then up again). The shared cluster of COOKWALA_TEST_PG is never touched.
// Leaves out: replication, any setting beyond the port. Invariant: destroy() stops the server and
// removes its directory, whatever state it is in.

import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './net.ts';

const run = promisify(execFile);

function pgBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = readdirSync(base).sort((a, b) => Number(a) - Number(b));
  if (versions.length === 0) throw new Error('no PostgreSQL under /usr/lib/postgresql: run .ci/run');
  return join(base, versions[versions.length - 1], 'bin');
}

export interface PgCluster {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** pg_ctl restart -m fast, waiting until the server accepts connections again. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startPgCluster(): Promise<PgCluster> {
  const bin = pgBin();
  const dir = await mkdtemp(join(tmpdir(), 'cookwala-pgc-'));
  const data = join(dir, 'data');
  const ids = await run('id', ['-u', 'postgres']).then((r) => Number(r.stdout.trim()));
  const gid = await run('id', ['-g', 'postgres']).then((r) => Number(r.stdout.trim()));
  await chown(dir, ids, gid);
  const asPg = (cmd: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { timeout: 60_000 });
  await asPg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8']);
  const port = await freePort();
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=100 -c fsync=off`;
  const pgctl = (...args: string[]) => asPg('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', ...args]);
  await pgctl('-o', opts, 'start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    restart: () => pgctl('-m', 'fast', '-o', opts, 'restart').then(() => undefined),
    stop: () => pgctl('-m', 'fast', 'stop').then(() => undefined),
    start: () => pgctl('-o', opts, 'start').then(() => undefined),
    async destroy() {
      await pgctl('-m', 'immediate', 'stop').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
