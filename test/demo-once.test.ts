// test/demo-once.test.ts: the main job as a user runs it (docs/design.md §12): `node
// bin/cookwala.js demo --once --fork --data <tmp>` starts the sequencer, three witnesses and the
// simulated devices as real processes, and must exit 0 with a verified verdict and a proven fork,
// leaving in DIR what an auditor is handed; those files are then checked again by the auditor's
// own commands (`cookwala verify`, `cookwala verify-fork`), and no process of the demo may be left.
// One run covers both brief cases (--once alone is the same path minus step 6) to keep the test's
// time small. A non-empty DIR without the demo's marker is refused with exit 2 and left untouched.

import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { COOKWALA_JS, PROJECT_ROOT } from '../demo/children.ts';

const tmp = tempDirs('cookwala-demo-');

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

function cookwala(args: string[], timeoutMs: number): Promise<Ran> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [COOKWALA_JS, ...args], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (b: Buffer) => (out += b.toString()));
    p.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const t = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
    p.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, out, err });
    });
  });
}

/** Pids of processes whose command line mentions `dir` (what a demo leaves running if it leaks). */
function processesUsing(dir: string): number[] {
  const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return ps
    .split('\n')
    .filter((l) => l.includes(dir))
    .map((l) => Number(l.trim().split(/\s+/)[0]))
    .filter((pid) => pid !== process.pid);
}

const dirs: string[] = [];
afterAll(async () => {
  // A failed run must not leave children behind: kill what mentions our dirs, by pid.
  for (const d of dirs) for (const pid of processesUsing(d)) process.kill(pid, 'SIGKILL');
  await tmp.cleanup();
});

describe('cookwala demo', () => {
  it('--once --fork: verified bundle and a proven fork, files an auditor can check again, nothing left running', async () => {
    const dir = join(await tmp.make(), 'data');
    dirs.push(dir);
    const r = await cookwala(['demo', '--once', '--fork', `--data=${dir}`], 240_000);
    if (r.code !== 0) console.error(r.out, r.err);
    expect(r.code).toBe(0);
    expect(r.out).toContain('verdict: VERIFIED');
    // The web pages first: the offline verifier page on disk, then the explorer's URL.
    expect(r.out.split('\n')[0]).toMatch(/^verifier page: file:\/\/\S+\/web\/dist\/verifier\.html /);
    expect(r.out).toMatch(/^explorer: +http:\/\/127\.0\.0\.1:\d+\/ /m);
    expect(r.out).toMatch(/VALID: localhost\/missions\/demo \(hash_only\)/);
    expect(r.out).toMatch(/payloads\s+\d+ present, [1-9]\d* erased, 0 missing/);
    expect(r.out).toContain('fork: PROVEN');
    expect(r.out).toMatch(/witness-3, never asked, learned the ForkProof by gossip/);
    // Witness-3 is asked over C2SP tlog-witness HTTP (whether its cosignature/v1 is in the
    // checkpoint exported depends on who answered first), and the auditor gets the curl line.
    expect(r.out).toMatch(
      /witness-3 up: .* asked over C2SP tlog-witness http:\/\/127\.0\.0\.1:\d+\/add-checkpoint \(vkey witness-3\+[0-9a-f]{8}\+/,
    );
    expect(r.out).toMatch(/curl http:\/\/127\.0\.0\.1:\d+\/tlog\/localhost%2Fmissions%2Fdemo\/checkpoint$/m);
    expect(r.out).toContain(`children's logs in ${join(dir, 'logs')}`);

    const names = await readdir(dir);
    for (const f of [
      'demo.json',
      'bundle.ndjson',
      'policy.json',
      'keys.json',
      'fork-proof.json',
      'logs',
      'sequencer',
      'witness-1',
      'witness-2',
      'witness-3',
      'executors',
    ])
      expect(names).toContain(f);
    const logs = await readdir(join(dir, 'logs'));
    for (const f of [
      'sequencer.log',
      'witness-1.log',
      'witness-2.log',
      'witness-3.log',
      'executors.log',
      'export.log',
      'keys.log',
      'verify.log',
      'verify-fork.log',
    ])
      expect(logs).toContain(f);
    // The operator token never reaches a log.
    const token = (await readFile(join(dir, 'sequencer', 'operator.token'), 'utf8')).trim();
    for (const f of logs) expect(await readFile(join(dir, 'logs', f), 'utf8')).not.toContain(token);

    const policy = JSON.parse(await readFile(join(dir, 'policy.json'), 'utf8'));
    expect(policy).toMatchObject({ kind: 'WitnessPolicy', log: 'localhost/missions/demo', quorum: 2 });
    expect(policy.witnesses).toHaveLength(3);

    const [verify, fork] = await Promise.all([
      cookwala(
        ['verify', join(dir, 'bundle.ndjson'), '--policy', join(dir, 'policy.json'), '--keys', join(dir, 'keys.json'), '--json'],
        60_000,
      ),
      cookwala(['verify-fork', join(dir, 'fork-proof.json'), '--policy', join(dir, 'policy.json'), '--json'], 60_000),
    ]);
    expect(verify.code).toBe(0);
    expect(JSON.parse(verify.out)).toMatchObject({ valid: true });
    expect(fork.code).toBe(0);
    expect(JSON.parse(fork.out)).toMatchObject({ proven: true, log: 'localhost/missions/demo' });

    expect(processesUsing(dir)).toEqual([]);
  }, 300_000);

  it('refuses a non-empty DIR without its marker (exit 2) and leaves it untouched', async () => {
    const dir = await tmp.make();
    dirs.push(dir);
    await writeFile(join(dir, 'thesis.tex'), 'years of work');
    const r = await cookwala(['demo', '--once', `--data=${dir}`], 60_000);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not empty/);
    expect(await readdir(dir)).toEqual(['thesis.tex']);
    expect(await readFile(join(dir, 'thesis.tex'), 'utf8')).toBe('years of work');
  });

  it('refuses bad flags with exit 2', async () => {
    const r = await cookwala(['demo', '--devices=0'], 60_000);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--devices/);
  });
});
