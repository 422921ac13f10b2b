// The short soak in `npm test` (`npm run soak` runs the long one): one SIGKILL each of
// the sequencer, the witness and the executor under mixed load (single, batch, binary, retries of
// acknowledged events), every invariant of tools/soak.ts checked after each restart and at the
// end: every acknowledged event exactly once at its seq, no gap, chain and tree verify, no fork or
// rollback of checkpoints, no witness rollback, no executor event lost, no stale temp file.
import { expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runSoak, summaryLine } from '../tools/soak.ts';
import { changes, waitFor } from '../testkit/wait.ts';

/** Live processes whose command line names `dir`. */
async function processesIn(dir: string): Promise<number[]> {
  const out: number[] = [];
  for (const p of await readdir('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    const cmd = await readFile(`/proc/${p}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes(dir)) out.push(Number(p));
  }
  return out;
}

it('SIGKILL of the sequencer, the witness and the executor under mixed load loses, duplicates and forks nothing', async () => {
  const s = await runSoak({ kills: 3, durationMs: 60_000, order: ['sequencer', 'witness', 'executor'] });
  console.log(summaryLine(s));
  expect(s.failures).toEqual([]);
  expect(s.kills).toMatchObject({ sequencer: 1, witness: 1, executor: 1, total: 3 });
  expect(s.checks).toBe(4);
  expect(s.fullChecks).toBe(1); // the end; the kills' checks read what is new and a sample
  expect(s.acknowledged).toBeGreaterThan(0);
  expect(s.byMode.retry).toBeGreaterThan(0);
  expect(s.byMode.binary).toBeGreaterThan(0);
  expect(s.publishedSeq).toBeGreaterThan(0);
  expect(s.executorEvents.written).toBeGreaterThan(0);
}, 120_000);

it('npm run soak stopped by SIGTERM ends with its summary, leaves no child process and removes its temp dir', async () => {
  const root = join(import.meta.dirname, '..');
  const p = spawn(process.execPath, ['--import', 'tsx', 'tools/soak-cli.ts', '--kills', '1000', '--minutes', '5'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const seen = changes();
  let err = '';
  let out = '';
  p.stderr.on('data', (d) => ((err += d), seen.notify()));
  p.stdout.on('data', (d) => ((out += d), seen.notify()));
  const exit = new Promise<number | null>((r) => p.once('exit', (c) => (seen.notify(), r(c))));
  const dir = await waitFor(() => /set up in \d+ ms in (\S+)/.exec(err)?.[1], {
    what: 'the soak to set up',
    timeoutMs: 60_000,
    wake: seen,
  });
  await waitFor(() => /^kill 1 /m.test(err) || undefined, {
    what: 'the first kill',
    timeoutMs: 60_000,
    wake: seen,
    detail: () => err.slice(-2000),
  });
  p.kill('SIGTERM');
  expect(await exit).toBe(0);
  expect(out).toMatch(/^soak: [1-9]\d* kills .* no loss, duplicate, gap, fork, rollback or stale temp file/m);
  expect(await processesIn(dir)).toEqual([]);
  await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
}, 120_000);
