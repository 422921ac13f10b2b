// testkit/witness-procs.ts: helpers for the cross-process witness tests (test/witness-*.test.ts,
// test/e2e-*.test.ts): run `node bin/cookwala.js …` as a child process, collect its output, wait
// for a witness's DIR/witness-info.json, stop it with a signal and wait for the exit. Waits use
// testkit/wait.ts; every child is killed by its own pid, never by name. Never imported by production code.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WitnessInfo } from '../witness/server/service.ts';
import { logEvents, type LogWatch } from './logs.ts';
import { waitFor } from './wait.ts';

export const PROJECT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const COOKWALA = join(PROJECT_ROOT, 'bin', 'cookwala.js');

export interface Child {
  proc: ChildProcess;
  out: () => string;
  err: () => string;
  /** Its JSON log lines on stdout, followed from the start (testkit/logs.ts). */
  logs: LogWatch;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnCookwala(args: string[], env: Record<string, string> = {}, cwd: string = PROJECT_ROOT): Child {
  const proc = spawn(process.execPath, [COOKWALA, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const logs = logEvents(proc.stdout!);
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    proc.once('exit', (code, signal) => r({ code, signal })),
  );
  return { proc, out: () => out, err: () => err, logs, exited };
}

/** Run to completion: exit code and output. */
export async function runCookwala(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ code: number | null; out: string; err: string }> {
  const c = spawnCookwala(args, env, cwd);
  const { code } = await c.exited;
  return { code, out: c.out(), err: c.err() };
}

export async function readInfo(dir: string): Promise<WitnessInfo | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'witness-info.json'), 'utf8')) as WitnessInfo;
  } catch {
    return undefined;
  }
}

/** Start `cookwala witness --data DIR` and wait until it has written witness-info.json. */
export async function startWitnessProcess(dir: string, extra: string[] = []): Promise<Child & { info: WitnessInfo }> {
  // A SIGKILLed witness leaves its info file behind: never read the previous run's.
  await rm(join(dir, 'witness-info.json'), { force: true });
  const c = spawnCookwala(['witness', '--data', dir, ...extra]);
  let dead = false;
  void c.exited.then(() => (dead = true));
  const info = await waitFor(
    async () => {
      if (dead) throw new Error(`witness in ${dir} exited early:\n${c.err()}`);
      return readInfo(dir);
    },
    { timeoutMs: 60_000, what: `witness ${dir} to start`, detail: c.err },
  );
  return { ...c, info };
}

/** Signal a child by its pid and wait for it to exit. */
export async function stopChild(
  c: Child,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill(signal);
  return c.exited;
}
