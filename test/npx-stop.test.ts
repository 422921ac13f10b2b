// Stopping a service started the way the README starts it: `npx cookwala witness --data W > W.log &`
// in a bash script (real npm, real shell, real node; platform/parent-watch.ts). npm runs the command
// through `sh -c`, which does not pass a signal on, so the node process would outlive the job. Both
// ways of stopping the job are checked: SIGTERM to the npx process by its pid (`kill PID`), and
// `kill %1` in the script itself. Each time the node process that serves is gone within a bounded
// wait (no pid, or only a zombie where nothing reaps orphans), it stopped cleanly (its `shutdown`
// line in W.log), and the next start on the same data directory and the same ports succeeds
// (LevelDB lock and ports released). Linux only: the process tree is read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../testkit/net.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { waitFor } from '../testkit/wait.ts';
import { PROJECT_ROOT, runCookwala, startWitnessProcess, stopChild } from '../testkit/witness-procs.ts';
import { readLogLines } from '../platform/logger.ts';

const tmp = tempDirs('cookwala-npx-stop-');
const shells: ChildProcess[] = [];
afterAll(async () => {
  // Whatever a failed run left: the script's process group (npm, sh, node stay in it).
  for (const p of shells) if (p.pid !== undefined) killGroup(p.pid);
  await tmp.cleanup();
});

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group is empty
  }
}

/** pid -> [ppid, state] for every process now. */
function processTable(): Map<number, { ppid: number; state: string }> {
  const t = new Map<number, { ppid: number; state: string }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      t.set(Number(d), { ppid: Number(ppid), state });
    } catch {
      // gone while reading
    }
  }
  return t;
}

function argvOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined; // gone
  }
}

/**
 * The node process below `root` whose argv names `dir` as a word (`node …/cookwala witness --data DIR`;
 * the shell between has it inside its one `-c` string), or undefined.
 */
function cookwalaBelow(root: number, dir: string): number | undefined {
  const t = processTable();
  const below = (pid: number) => {
    for (let p = t.get(pid)?.ppid; p !== undefined && p > 1; p = t.get(p)?.ppid) if (p === root) return true;
    return false;
  };
  for (const pid of t.keys()) {
    if (!below(pid)) continue;
    const argv = argvOf(pid);
    if (argv && basename(argv[0]).startsWith('node') && argv.includes(dir)) return pid;
  }
  return undefined;
}

/** No such process any more, or a zombie (dead; nothing here reaps reparented children). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

interface Started {
  shell: ChildProcess;
  npx: number;
  node: number;
  out: () => string;
  logFile: string;
}

/** Run `script` in bash (its own process group) from the project root, as a user in the clone does. */
async function startScript(script: string, dir: string, logFile: string): Promise<Started> {
  const shell = spawn('bash', ['-c', script], {
    cwd: PROJECT_ROOT,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    // npm must not reach for the registry; the bin is this checkout's own.
    env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
  });
  shells.push(shell);
  let out = '';
  shell.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  shell.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const npx = await waitFor(() => Number(/^npx (\d+)$/m.exec(out)?.[1]) || undefined, { what: 'the npx pid', detail: () => out });
  const node = await waitFor(() => cookwalaBelow(npx, dir), { what: 'node under npx', timeoutMs: 60_000, detail: () => out });
  await waitFor(
    async () => {
      const text = await readFile(logFile, 'utf8').catch(() => '');
      return readLogLines(text).some((r) => r.event === 'listening') || undefined;
    },
    { what: `${logFile}: listening`, timeoutMs: 120_000, intervalMs: 100, detail: () => out },
  );
  return { shell, npx, node, out: () => out, logFile };
}

async function witnessDir(): Promise<string> {
  const root = await tmp.make();
  const dir = join(root, 'w1');
  const [http, p2p] = [await freePort(), await freePort()];
  const r = await runCookwala(['witness', 'init', '--data', dir, '--http-port', String(http), '--listen', `/ip4/127.0.0.1/tcp/${p2p}`]);
  expect(r.code, r.err).toBe(0);
  return dir;
}

/** The node process is gone, stopped cleanly, and the data directory and ports open again. */
async function expectStoppedAndReusable(s: Started, dir: string): Promise<void> {
  await waitFor(() => gone(s.node) || undefined, { what: `node ${s.node} to exit`, timeoutMs: 30_000, detail: s.out });
  const lines = readLogLines(await readFile(s.logFile, 'utf8'));
  expect(lines.map((r) => r.event)).toContain('shutdown');
  const again = await startWitnessProcess(dir);
  try {
    expect((await again.logs.next('listening', undefined, 60_000)).event).toBe('listening');
  } finally {
    expect((await stopChild(again)).code, again.err()).toBe(0);
  }
}

describe.skipIf(!existsSync('/proc/self/stat'))('a service started with `npx cookwala … &` stops with its job', () => {
  it('SIGTERM to the npx process: node is gone, stopped cleanly, and the next start succeeds', { timeout: 240_000 }, async () => {
    const dir = await witnessDir();
    const log = `${dir}.log`;
    const s = await startScript(`npx cookwala witness --data ${dir} > ${log} &\necho "npx $!"\nwait`, dir, log);
    process.kill(s.npx, 'SIGTERM');
    await expectStoppedAndReusable(s, dir);
  });

  it('`kill %1` in the script: node is gone, stopped cleanly, and the next start succeeds', { timeout: 240_000 }, async () => {
    const dir = await witnessDir();
    const log = `${dir}.log`;
    const s = await startScript(`npx cookwala witness --data ${dir} > ${log} &\necho "npx $!"\nread go\nkill %1\nwait`, dir, log);
    s.shell.stdin!.write('go\n');
    await expectStoppedAndReusable(s, dir);
  });
});
