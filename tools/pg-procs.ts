// tools/pg-procs.ts: the processes of the PostgreSQL fail-over harness (docs/design.md §12a): a real
// `cookwala sequencer --store postgres://…` child started on a port and awaited until it logs
// `listening`, and the two data directories both processes use: made once (`initDataDir` with the
// PostgreSQL backend, device keys registered through a first process, then stopped) and copied,
// so both hold the same sequencer key. Shared by tools/pg-failover.ts, tools/soak-pg.ts and
// test/postgres-failover.test.ts. Leaves out the load and the faults. Invariant: a Proc is
// returned only once its process listens; one that exits first is an error with its output.

import { spawn, type ChildProcess } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestKey } from '../testkit/index.ts';
import { logPath } from '../testkit/index.ts';
import { freePort } from '../testkit/index.ts';
import { initDataDir } from '../sequencer/index.ts';
import { readLogLines } from '../platform/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface Proc {
  name: 'A' | 'B';
  url: string;
  port: number;
  dir: string;
  child: ChildProcess;
  /** stdout+stderr so far (for failure messages). */
  output(): string;
}

export function startPgSequencer(name: 'A' | 'B', dir: string, port: number, storeUrl: string, leaseMs: number): Promise<Proc> {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    process.execPath,
    [
      'bin/cookwala.js',
      'sequencer',
      '--data',
      dir,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--store',
      storeUrl,
      '--advertise',
      url,
      '--lease-ms',
      String(leaseMs),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const proc: Proc = { name, url, port, dir, child, output: () => out };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sequencer ${name} did not start: ${out}`)), 90_000);
    const onData = () => {
      if (readLogLines(out).some((r) => r.event === 'listening')) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve(proc);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sequencer ${name} exited with ${code} before listening: ${out}`));
    });
  });
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((r) => child.once('exit', (code) => r(code)));
}

export async function prepareDataDirs(
  base: string,
  storeUrl: string,
  log: string,
  devices: TestKey[],
  leaseMs: number,
  config: Record<string, unknown> = {},
): Promise<{ dirA: string; dirB: string }> {
  const dirA = join(base, 'a');
  const dirB = join(base, 'b');
  await initDataDir({ dir: dirA, logs: [log], mode: 'hash_only', store: { url: storeUrl, leaseMs } });
  const cfgPath = join(dirA, 'config.json');
  const cfg = JSON.parse(await readFile(cfgPath, 'utf8'));
  await writeFile(cfgPath, JSON.stringify({ ...cfg, checkpointIntervalMs: 100, ...config }));
  const token = (await readFile(join(dirA, 'operator.token'), 'utf8')).trim();
  const p = await startPgSequencer('A', dirA, await freePort(), storeUrl, leaseMs);
  try {
    for (const d of devices) {
      const r = await fetch(`${p.url}${logPath(log, '/keys')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(d.record),
      });
      if (r.status !== 201) throw new Error(`registering ${d.record.kid}: ${r.status} ${await r.text()}`);
    }
  } finally {
    p.child.kill('SIGTERM');
    await exitOf(p.child);
  }
  await cp(dirA, dirB, { recursive: true });
  return { dirA, dirB };
}
