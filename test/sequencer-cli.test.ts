// The CLIs as child processes: `cookwala init` (idempotent, usage errors exit 2), and
// `cookwala sequencer` refusing to start, with a clear message, when another process holds the
// store (store_locked: the environment, exit 2) or the store is behind its last signed checkpoint
// (store_behind_checkpoint: re-sequencing a signed seq would be a fork; exit 1).
import { afterAll, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Level } from 'level';
import { tempDirs } from '../testkit/tmp.ts';
import { openSequencer } from '../sequencer/app.ts';
import { logStoreDir, loadDataDir } from '../sequencer/data-dir.ts';
import { buildCheckpoint } from '../verifier/documents/checkpoint.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import { checkpointKey } from '../logstore/keys.ts';
import { encodeJson } from '../logstore/values.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const tmp = tempDirs();
afterAll(() => tmp.cleanup());

function cookwala(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['bin/cookwala.js', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => resolve({ code, out, err }));
  });
}

it('init is idempotent and prints what it created; bad flags exit 2', async () => {
  const dir = join(await tmp.make(), 'd');
  const a = await cookwala(['init', '--data', dir, '--log', 'cli.example/a', '--mode', 'full', '--port', '8799']);
  expect(a.code, a.err).toBe(0);
  expect(a.out).toContain('created sequencer.key.json');
  expect(a.out).toContain('log cli.example/a (full)');
  const key = await readFile(join(dir, 'sequencer.key.json'), 'utf8');
  const b = await cookwala(['init', '--data', dir]);
  expect(b.code).toBe(0);
  expect(b.out).toContain('nothing to create');
  expect(await readFile(join(dir, 'sequencer.key.json'), 'utf8')).toBe(key);
  expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')).port).toBe(8799);
  expect((await cookwala(['init', '--data', dir, '--mode', 'partial'])).code).toBe(2);
  expect((await cookwala(['init', '--bogus'])).code).toBe(2);
});

it("init --max-clock-skew / --max-delivery-delay: saved in config.json and declared by the new log's descriptor; bad durations exit 2", async () => {
  const dir = join(await tmp.make(), 'd');
  const r = await cookwala(['init', '--data', dir, '--log', 'cli.example/t', '--max-clock-skew', '30s', '--max-delivery-delay', '7d']);
  expect(r.code, r.err).toBe(0);
  expect(r.out).toContain('maxClockSkew 30s, maxDeliveryDelay 7d');
  const cfg = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
  expect([cfg.maxClockSkewMs, cfg.maxDeliveryDelayMs]).toEqual([30_000, 604_800_000]);
  const seq = await openSequencer(dir, { timers: false });
  try {
    expect(seq.logs.get('cli.example/t')!.descriptor.timeBounds).toEqual({ maxClockSkewMs: 30_000, maxDeliveryDelayMs: 604_800_000 });
  } finally {
    await seq.close();
  }
  for (const bad of [
    ['--max-clock-skew', '5 minutes'],
    ['--max-clock-skew', '2d'],
    ['--max-delivery-delay', '-1'],
    ['--max-delivery-delay', '400d'],
  ]) {
    const b = await cookwala(['init', '--data', dir, ...bad]);
    expect(b.code, bad.join(' ')).toBe(2);
    expect(b.err).toContain(bad[0]);
  }
});

it('refuses to start on a store held by another process (store_locked), exit 2', async () => {
  const dir = await tmp.make();
  expect((await cookwala(['init', '--data', dir])).code).toBe(0);
  const holder = await openSequencer(dir, { timers: false });
  try {
    const r = await cookwala(['sequencer', '--data', dir, '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('store_locked');
  } finally {
    await holder.close();
  }
});

it('refuses to start on a store behind its last signed checkpoint (store_behind_checkpoint), exit 1', async () => {
  const dir = await tmp.make();
  expect((await cookwala(['init', '--data', dir, '--log', 'cli.example/b'])).code).toBe(0);
  // A checkpoint signed for seq 5 while the store holds no entry: what a store restored from an
  // old backup (or a lost write) would look like. Written straight into the LevelDB.
  const d = await loadDataDir(dir);
  const cp = buildCheckpoint(
    { log: 'cli.example/b', seq: 5, head: 'sha256:' + 'ab'.repeat(32), root: 'sha256:' + 'cd'.repeat(32) },
    d.signer,
    formatTime(Date.now()),
  );
  const db = new Level<Buffer, Buffer>(logStoreDir(dir, 'cli.example/b'), { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.put(checkpointKey(5), encodeJson(cp), { sync: true });
  await db.close();
  const r = await cookwala(['sequencer', '--data', dir, '--port', '0']);
  expect(r.code).toBe(1);
  expect(r.err).toContain('store_behind_checkpoint');
  expect(r.err).toContain('refusing to re-sequence');
});
