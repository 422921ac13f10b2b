// `cookwala verify` reads a bundle from a pipe: `cat B | cookwala verify /dev/stdin`
// and a FIFO (what `verify <(cat B)` hands over) verify a valid bundle with exit 0, where a
// positional read at offset 0 used to fail with ESPIPE. A pipe has no read-ahead, so checkpoints
// below the last one are reported as skipped for head and root, never as passed; a tampered bundle
// over a pipe is still refused (exit 1). Real child processes, real pipes. Trust files are read up
// to the strict reader's bound and no further (body_too_large).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateLog } from '../testkit/log-generator.ts';
import { ROOT } from '../testkit/audit.ts';
import { readKeyCacheFile, readPolicyFile } from './trust-files.ts';
import { readTextIfExists } from '../platform/durable-file.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

let dir: string;
let lines: string[];
beforeAll(async () => {
  dir = await makeTempDir('cookwala-verify-pipe-');
  const g = generateLog({ events: 30, checkpointEvery: 10 });
  lines = [...g.lines()].join('').split('\n');
  lines.pop();
  await writeFile(join(dir, 'b.ndjson'), lines.join('\n') + '\n');
  await writeFile(join(dir, 'policy.json'), JSON.stringify(g.policy));
  await writeFile(join(dir, 'keys.json'), JSON.stringify({ kind: 'KeyCache', keys: g.deviceKeys }));
  const bad = [...lines];
  const i = bad.findIndex((l) => l.includes('"kind":"Event"') && l.includes('"seq":17,'));
  bad[i] = bad[i].replace('"seq":17,', '"seq":71,');
  await writeFile(join(dir, 'bad.ndjson'), bad.join('\n') + '\n');
});
afterAll(async () => {
  await removeDir(dir);
});

/** A shell pipeline (real pipes, as a user types it): `cat SOURCE | cookwala verify TARGET …`. */
function verify(target: string, source: string): Promise<{ code: number | null; report: any; stderr: string }> {
  return new Promise((resolve, reject) => {
    const cmd = `cat "$SRC" | "$NODE" "$CLI" verify "$TARGET" --policy "$DIR/policy.json" --keys "$DIR/keys.json" --json --workers 0`;
    const child = spawn('sh', ['-c', cmd], {
      cwd: ROOT,
      env: { ...process.env, SRC: source, NODE: process.execPath, CLI: join(ROOT, 'bin/cookwala.js'), TARGET: target, DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, report: out ? JSON.parse(out) : undefined, stderr: err }));
  });
}

/** `cookwala verify FIFO` with SOURCE written into the FIFO by another process (bash's `<(cat B)`). */
function verifyFifo(fifo: string, source: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const cmd = `cat "$SRC" > "$FIFO" & "$NODE" "$CLI" verify "$FIFO" --policy "$DIR/policy.json" --keys "$DIR/keys.json" --workers 0; code=$?; wait; exit $code`;
    const child = spawn('sh', ['-c', cmd], {
      cwd: ROOT,
      env: { ...process.env, SRC: source, NODE: process.execPath, CLI: join(ROOT, 'bin/cookwala.js'), FIFO: fifo, DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr: err }));
  });
}

describe('cookwala verify from a pipe', () => {
  it('cat B | cookwala verify /dev/stdin: exit 0, earlier checkpoints skipped for head and root', async () => {
    const r = await verify('/dev/stdin', join(dir, 'b.ndjson'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.report.valid).toBe(true);
    expect(r.report.entries).toBe(30);
    expect(r.report.checkpoints.count).toBe(3);
    expect(r.report.skipped.filter((s: { check: string }) => s.check === 'head and root').map((s: { seq: number }) => s.seq)).toEqual([
      10, 20,
    ]);
  }, 30_000);
  it('a FIFO (what verify <(cat B) gets) verifies; a tampered bundle over a pipe exits 1', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const r = await verifyFifo(fifo, join(dir, 'b.ndjson'));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const bad = await verify('/dev/stdin', join(dir, 'bad.ndjson'));
    expect(bad.code).toBe(1);
    expect(bad.report.failures.map((f: { kind: string }) => f.kind)).toContain('chain_broken');
  }, 30_000);
  it('a policy or key-cache file over 16 MiB is refused body_too_large without being held (read in 1 MiB pieces, stopped at the bound)', async () => {
    const big = join(dir, 'big-policy.json');
    await writeFile(big, '{"kind":"WitnessPolicy","pad":"' + 'x'.repeat((16 << 20) + 10) + '"}');
    await expect(readPolicyFile(big)).rejects.toThrow(/body_too_large/);
    await expect(readKeyCacheFile(big)).rejects.toThrow(/body_too_large/);
    await expect(readTextIfExists(big)).rejects.toMatchObject({ code: 'body_too_large' });
    expect(await readTextIfExists(join(dir, 'policy.json'))).toContain('WitnessPolicy');
  });
});
