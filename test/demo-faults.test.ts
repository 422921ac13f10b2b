// test/demo-faults.test.ts: the demo when things go wrong (docs/design.md §12), run as a user
// would (`node bin/cookwala.js demo --data <tmp>`, real children): a witness SIGKILLed under it
// makes the demo name that child, show the tail of its log, stop every other child and exit 1;
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

function startDemo(dir: string): { proc: ChildProcess; done: Promise<{ code: number | null; out: string; err: string }> } {
  const proc = spawn(process.execPath, [COOKWALA_JS, 'demo', `--data=${dir}`], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const t = setTimeout(() => proc.kill('SIGKILL'), 120_000);
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
