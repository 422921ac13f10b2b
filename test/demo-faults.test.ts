// test/demo-faults.test.ts: the demo when things go wrong (docs/design.md §12), run as a user
// would (`node bin/cookwala.js demo --data <tmp>`, real children): a witness SIGKILLed under it
// while the network is being set up makes the demo name that child, show the tail of its log, stop
// every other child and exit 1; once the network is up, a witness killed (by the
// --kill-witness-after flag, and from outside with SIGKILL) is said, shown unreachable on the
// progress line, restarted at its old addresses and cosigns again, and the demo exits 0 on Ctrl-C;
// a SIGINT (Ctrl-C) before the verdict stops every child and exits 1 (nothing was verified). Both
// strike as soon as the witnesses are up, so each test takes seconds, not a whole demo run.

import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { COOKWALA_JS, PROJECT_ROOT } from '../demo/children.ts';
import { waitFor } from '../testkit/wait.ts';

const tmp = tempDirs('cookwala-demo-faults-');
const dirs: string[] = [];

function processes(dir: string): Array<{ pid: number; args: string }> {
  const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .filter((l) => l.includes(dir))
    .map((l) => {
      const m = /^\s*(\d+)\s+(.*)$/.exec(l)!;
      return { pid: Number(m[1]), args: m[2] };
    })
    .filter((p) => p.pid !== process.pid);
}

afterAll(async () => {
  for (const d of dirs) for (const p of processes(d)) process.kill(p.pid, 'SIGKILL');
  await tmp.cleanup();
});

function startDemo(
  dir: string,
  extra: string[] = [],
): { proc: ChildProcess; done: Promise<{ code: number | null; out: string; err: string }> } {
  const proc = spawn(process.execPath, [COOKWALA_JS, 'demo', `--data=${dir}`, ...extra], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const t = setTimeout(() => proc.kill('SIGKILL'), 580_000);
  const done = new Promise<{ code: number | null; out: string; err: string }>((r) =>
    proc.on('exit', (code) => {
      clearTimeout(t);
      r({ code, out, err });
    }),
  );
  return { proc, done };
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );
/** A witness runs once its witness-info.json (written at init, kept after it stops) names the HTTP address it listens on. */
const running = async (wdir: string) => {
  try {
    return typeof (JSON.parse(await readFile(join(wdir, 'witness-info.json'), 'utf8')) as { http?: unknown }).http === 'string';
  } catch {
    return false;
  }
};

describe('cookwala demo faults', () => {
  it('a witness killed under it: named, tail of its log shown, the rest stopped, exit 1', async () => {
    const dir = join(await tmp.make(), 'data');
    dirs.push(dir);
    const demo = startDemo(dir);
    const victim = await waitFor(
      async () =>
        (await running(join(dir, 'witness-2')))
          ? processes(dir).find((p) => p.args.includes(`witness run --data=${join(dir, 'witness-2')}`))
          : undefined,
      { what: 'witness-2 to run', timeoutMs: 90_000, intervalMs: 100 },
    );
    process.kill(victim.pid, 'SIGKILL');
    const r = await demo.done;
    expect(r.code).toBe(1);
    expect(r.err).toContain(`witness-2 (pid ${victim.pid}) exited unexpectedly: killed by SIGKILL`);
    expect(r.err).toContain(`last lines of ${join(dir, 'logs', 'witness-2.log')}:`);
    expect(r.err).toMatch(/witness witness-2 peer 12D3/); // the tail is the witness's own output
    expect(r.out).not.toContain('verdict');
    expect(processes(dir)).toEqual([]);
  }, 150_000);

  it('once the network is up a witness may die: said, shown unreachable, restarted, cosigning again', async () => {
    const dir = join(await tmp.make(), 'data');
    dirs.push(dir);
    const demo = startDemo(dir, ['--kill-witness-after=2']);
    let out = '';
    demo.proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    await waitFor(() => /witness-2 restarted \(pid \d+\)/.test(out), {
      what: 'the flag to kill and restart witness-2',
      timeoutMs: 240_000,
      intervalMs: 200,
    });
    expect(out).toMatch(/--kill-witness-after 2: killed witness-2 \(SIGKILL\); it comes back in 2 s/);
    expect(out).toMatch(/witness-2 is down \(killed by the demo\): 2 of 3 witnesses left, quorum 2 — the log goes on/);
    // The live step: progress lines. Now witness-2 dies from outside.
    await waitFor(() => / · witnesses 3\/3 up/.test(out), {
      what: 'a progress line with every witness up',
      timeoutMs: 240_000,
      intervalMs: 200,
    });
    const victim = processes(dir).find((p) => p.args.includes(`witness run --data=${join(dir, 'witness-2')}`));
    expect(victim).toBeDefined();
    const mark = out.length;
    process.kill(victim!.pid, 'SIGKILL');
    await waitFor(() => out.slice(mark).includes('witnesses 2/3 up (witness-2 unreachable)'), {
      what: 'witness-2 shown unreachable',
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    expect(out.slice(mark)).toMatch(/witness-2 is down \(killed by SIGKILL\): 2 of 3 witnesses left, quorum 2 — the log goes on/);
    await waitFor(() => /witness-2 restarted/.test(out.slice(mark)), { what: 'witness-2 restarted', timeoutMs: 30_000, intervalMs: 200 });
    const back = out.length;
    await waitFor(() => /cosigned \d+ by [^·]*witness-2[^·]*· .*witnesses 3\/3 up/.test(out.slice(back)), {
      what: 'witness-2 cosigning again',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    demo.proc.kill('SIGINT');
    const r = await demo.done;
    expect(r.err).not.toMatch(/exited unexpectedly/);
    expect(r.code).toBe(0);
    expect(processes(dir)).toEqual([]);
  }, 600_000);

  it('Ctrl-C before the verdict stops every child and exits 1', async () => {
    const dir = join(await tmp.make(), 'data');
    dirs.push(dir);
    const demo = startDemo(dir);
    await waitFor(() => running(join(dir, 'witness-1')), { what: 'witness-1 to run', timeoutMs: 90_000, intervalMs: 100 });
    expect(processes(dir).length).toBeGreaterThan(0);
    demo.proc.kill('SIGINT');
    const r = await demo.done;
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/SIGINT: stopping every child/);
    expect(r.out).toMatch(/stopped \d+ children/);
    expect(r.err).not.toMatch(/exited unexpectedly/);
    expect(processes(dir)).toEqual([]);
    // witness-1 stopped cleanly: its last log line says so, and its card outlives it.
    expect(await readFile(join(dir, 'logs', 'witness-1.log'), 'utf8')).toMatch(/"event":"shutdown"/);
    expect(await exists(join(dir, 'witness-1', 'witness-info.json'))).toBe(true);
  }, 150_000);
});
