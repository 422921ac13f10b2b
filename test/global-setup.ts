// test/global-setup.ts: the services the suite needs, started once for a run (vitest globalSetup).
// PostgreSQL (docs/design.md §12a): when COOKWALA_TEST_PG is already set (.ci/run starts a cluster and
// sets it) nothing happens; otherwise, when Debian's postgresql package is installed, a throwaway
// cluster is made in a temp folder (trust auth, 127.0.0.1 only, a free port; run as the postgres
// user when we are root, since root cannot run postgres), its URL exported for the test workers,
// and it is stopped and removed at the end. Without the package nothing is started: the PostgreSQL
// tests then FAIL with a message naming the package (testkit/postgres.ts), never skip. Leaves out:
// installing packages (that is .ci/run's job) and Chromium (the web tests launch it themselves).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PG_ENV = 'COOKWALA_TEST_PG';

function pgBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(a) - Number(b));
  return versions.length ? join(root, versions[versions.length - 1], 'bin') : undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

export default async function setup(): Promise<(() => void) | undefined> {
  if (process.env[PG_ENV]) return undefined;
  const bin = pgBin();
  if (!bin) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'cookwala-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  const run = (cmd: string, args: string[]) =>
    execFileSync(asRoot ? 'runuser' : cmd, asRoot ? ['-u', 'postgres', '--', cmd, ...args] : args, { stdio: 'pipe' });
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const port = await freePort();
  run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8']);
  run(join(bin, 'pg_ctl'), [
    '-D',
    data,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-o',
    `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c max_connections=200`,
    'start',
  ]);
  process.env[PG_ENV] = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return () => {
    try {
      run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
