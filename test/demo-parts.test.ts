// test/demo-parts.test.ts: the demo's own pieces (demo/*.ts) without the whole network: taking the
// data directory (never deleting a user's data), the child supervisor (logs, deaths, SIGTERM then
// SIGKILL, refusing new children once stopping, secrets kept out of logs), bounded waits, and the
// pure formatting of the progress line and the simulator's device lines. Children here are tiny
// `node -e` scripts, so these run in a few seconds.

import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { MARKER, prepareDemoDir } from '../demo/data-dir.ts';
import { createSupervisor, redactArgs, SupervisorClosed, tailOf } from '../demo/children.ts';
import { formatProgress, type Snapshot } from '../demo/progress.ts';
import { parseDeviceLines, statusCounts } from '../demo/mission.ts';
import { forgedTree } from '../demo/fork.ts';
import { Aborted, DemoError, waitFor, within } from '../demo/wait.ts';

const tmp = tempDirs('cookwala-demo-parts-');
afterAll(() => tmp.cleanup());

describe('prepareDemoDir', () => {
  it('creates a missing DIR with the marker and logs/', async () => {
    const dir = join(await tmp.make(), 'data');
    const r = await prepareDemoDir(dir);
    expect(r).toEqual({ ok: true, dir, cleared: false });
    expect((await readdir(dir)).sort()).toEqual([MARKER, 'logs']);
    const m = JSON.parse(await readFile(join(dir, MARKER), 'utf8'));
    expect(m).toMatchObject({ kind: 'CookwalaDemo', pid: process.pid });
  });

  it('takes an empty DIR', async () => {
    const dir = await tmp.make();
    expect(await prepareDemoDir(dir)).toMatchObject({ ok: true, cleared: false });
  });

  it('refuses a non-empty DIR without the marker and leaves it untouched', async () => {
    const dir = await tmp.make();
    await writeFile(join(dir, 'precious.txt'), 'keep me');
    const r = await prepareDemoDir(dir);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/not empty/);
    expect(await readdir(dir)).toEqual(['precious.txt']);
    expect(await readFile(join(dir, 'precious.txt'), 'utf8')).toBe('keep me');
  });

  it('refuses a file, and a marker that is not ours', async () => {
    const base = await tmp.make();
    await writeFile(join(base, 'f'), 'x');
    expect((await prepareDemoDir(join(base, 'f'))).ok).toBe(false);
    const dir = join(base, 'd');
    await mkdir(dir);
    await writeFile(join(dir, MARKER), JSON.stringify({ kind: 'SomethingElse' }));
    await writeFile(join(dir, 'other'), 'x');
    const r = await prepareDemoDir(dir);
    expect(r.ok).toBe(false);
    expect((await readdir(dir)).sort()).toEqual([MARKER, 'other']);
  });

  it("clears a previous demo's DIR (a dead pid in its marker)", async () => {
    const dir = await tmp.make();
    await writeFile(
      join(dir, MARKER),
      JSON.stringify({ kind: 'CookwalaDemo', pid: 2 ** 22 + 12345, startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    await mkdir(join(dir, 'sequencer', 'logs'), { recursive: true });
    await writeFile(join(dir, 'bundle.ndjson'), '{}\n');
    const r = await prepareDemoDir(dir);
    expect(r).toMatchObject({ ok: true, cleared: true });
    expect((await readdir(dir)).sort()).toEqual([MARKER, 'logs']);
  });

  it('refuses a DIR whose marker names a demo that is still running', async () => {
    const dir = await tmp.make();
    // A live process whose command line says `demo`, standing in for a running `cookwala demo`.
    const p = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', 'demo'], { stdio: 'ignore' });
    try {
      await writeFile(join(dir, MARKER), JSON.stringify({ kind: 'CookwalaDemo', pid: p.pid, startedAt: '2026-01-01T00:00:00.000Z' }));
      await writeFile(join(dir, 'bundle.ndjson'), '{}\n');
      const r = await prepareDemoDir(dir);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(/another cookwala demo/);
      expect((await readdir(dir)).sort()).toEqual(['bundle.ndjson', MARKER]);
    } finally {
      p.kill('SIGKILL');
    }
  });
});

describe('supervisor', () => {
  const script = (code: string) => ['-e', code, '--'];

  it('runs a command to its end with its output in DIR/logs/<name>.log, secrets blanked', async () => {
    const logs = await tmp.make();
    const sup = createSupervisor({
      logsDir: logs,
      script: script('console.log("hello", process.argv.slice(1).join(" ")); process.exit(3)'),
    });
    const r = await sup.run({ name: 'one', args: ['a', '--register-token=s3cret'] }, 10_000);
    expect(r.code).toBe(3);
    expect(r.output).toContain('hello a --register-token=s3cret');
    const log = await readFile(join(logs, 'one.log'), 'utf8');
    expect(log).toMatch(/^--- \S+ cookwala a --register-token=\*\*\*\n/);
    expect(redactArgs(['--register-token=abc', '--token=x', '--log=y'])).toBe('--register-token=*** --token=*** --log=y');
    await sup.stopAll();
  });

  it('reports an unexpected death with the tail of its log, and not an expected exit 0', async () => {
    const logs = await tmp.make();
    const sup = createSupervisor({
      logsDir: logs,
      script: script(
        'const [m] = process.argv.slice(1); console.log("last words " + m); setTimeout(() => process.exit(m === "die" ? 7 : 0), 200)',
      ),
    });
    sup.start({ name: 'fine', args: ['ok'], expectExit: true });
    const doomed = sup.start({ name: 'doomed', args: ['die'] });
    const d = await within('a death', sup.died, 10_000);
    expect(d.child.name).toBe('doomed');
    expect(d.child.pid).toBe(doomed.pid);
    expect(d.exit.code).toBe(7);
    expect(d.tail).toContain('last words die');
    expect(await tailOf(doomed.logPath, 1)).toBe('last words die');
    await sup.stopAll();
  });

  it('stops with SIGTERM, escalates to SIGKILL after the timeout, then refuses new children', async () => {
    const logs = await tmp.make();
    const code =
      'const m = process.argv[1]; if (m === "stubborn") process.on("SIGTERM", () => console.log("ignored")); console.log("up"); setInterval(() => {}, 1000)';
    const sup = createSupervisor({ logsDir: logs, script: script(code) });
    const polite = sup.start({ name: 'polite', args: ['polite'], tier: 1 });
    const stubborn = sup.start({ name: 'stubborn', args: ['stubborn'], tier: 2 });
    await waitFor(
      'both up',
      async () => ((await polite.output()).includes('up') && (await stubborn.output()).includes('up') ? true : undefined),
      { timeoutMs: 10_000 },
    );
    let died = false;
    void sup.died.then(() => (died = true));
    const out = await sup.stopAll(1_000);
    expect(out.map((x) => x.name)).toEqual(['stubborn', 'polite']); // higher tier first
    expect(out[0]).toMatchObject({ killed: true, exit: { signal: 'SIGKILL' } });
    expect(out[1]).toMatchObject({ killed: false, exit: { signal: 'SIGTERM' } });
    expect(await stubborn.output()).toContain('ignored');
    expect(() => sup.start({ name: 'late', args: [] })).toThrow(SupervisorClosed);
    await new Promise((r) => setTimeout(r, 50));
    expect(died).toBe(false); // stopping is not dying
  });
});

describe('waits', () => {
  it('waitFor names what timed out; an abort ends it at once', async () => {
    await expect(waitFor('the moon', () => undefined, { timeoutMs: 150, intervalMs: 20 })).rejects.toThrow(
      /timed out .* waiting for the moon/,
    );
    await expect(waitFor('x', () => undefined, { timeoutMs: 150 })).rejects.toBeInstanceOf(DemoError);
    const c = new AbortController();
    setTimeout(() => c.abort(), 30);
    await expect(waitFor('y', () => undefined, { timeoutMs: 60_000, signal: c.signal })).rejects.toBeInstanceOf(Aborted);
    expect(
      await waitFor(
        'z',
        (() => {
          let n = 0;
          return () => (++n >= 3 ? n : undefined);
        })(),
        { timeoutMs: 5_000, intervalMs: 5 },
      ),
    ).toBe(3);
  });
});

describe('formatting', () => {
  it('prints head, cosigners, devices, events/s and forks; ? for what did not answer', () => {
    const prev: Snapshot = { at: 1_000_000, head: 100 };
    const cur: Snapshot = {
      at: 1_002_000,
      head: 110,
      checkpoint: { seq: 108, cosigners: ['witness-3', 'witness-1'] },
      devices: { alive: 2, total: 3 },
      forks: 1,
    };
    const line = formatProgress(cur, prev, 2);
    expect(line).toMatch(
      /^\[\d\d:\d\d:\d\d\] head 110 · cosigned 108 by witness-1, witness-3 \(quorum 2\) · devices 2\/3 alive · 5\.0 events\/s · 1 fork proof known$/,
    );
    expect(formatProgress({ at: 5 }, undefined, 2)).toBe(
      `[${new Date(5).toISOString().slice(11, 19)}] head ? · no published checkpoint yet · devices ? · ? events/s`,
    );
  });

  it("reads the simulator's device lines", () => {
    const out =
      'sim1-abc (urn:cookwala:device:sim1-abc) API http://127.0.0.1:4001\nsim1-abc pasta 1234 #1 accepted\nsim2-def (urn:cookwala:device:sim2-def) API http://127.0.0.1:4002\n';
    expect(parseDeviceLines(out)).toEqual([
      { name: 'sim1-abc', source: 'urn:cookwala:device:sim1-abc', url: 'http://127.0.0.1:4001' },
      { name: 'sim2-def', source: 'urn:cookwala:device:sim2-def', url: 'http://127.0.0.1:4002' },
    ]);
  });

  it("counts the statuses in the simulator's event lines", () => {
    const out =
      'sim1-abc (urn:cookwala:device:sim1-abc) API http://127.0.0.1:4001\nsim1-abc rye-bread 303f6d22 #1 accepted\nsim1-abc rye-bread 303f6d22 #4 paused (paused_locally)\nsim1-abc rye-bread 303f6d22 #6 needs_human (human_check)\nsim2-x pasta ae3406b9 #7 stopped (stop_requested)\nsimulation: 2 missions\n';
    expect(statusCounts(out)).toEqual({ accepted: 1, paused: 1, needs_human: 1, stopped: 1 });
  });

  it('forges a tree per seq that differs from any other seq', () => {
    const a = forgedTree(7);
    expect(a).toEqual(forgedTree(7));
    expect(a.head).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(a.head).not.toBe(a.root);
    expect(forgedTree(8).head).not.toBe(a.head);
  });
});
