// A Cookwala log followed by `cookwala monitor` from a static copy alone (docs/monitoring.md
// "Static tiles"), every part a real child process on 127.0.0.1: a sequencer (testkit/monitor.ts:
// LevelDB, hash_only, a registered device's signed events), `cookwala tiles --url … --entries
// --out DIR` writing the copy, Debian's nginx serving DIR (testkit/nginx.ts; that part skipped,
// saying so, only without a binary), and `cookwala monitor --once` with a config that names the
// copy (`tiles`) and no sequencer `url`, reading in steps of 100 entries (so most steps join
// two pages, cut at both ends). The copy is the same byte for byte when written twice; the
// monitor reaches the log's size with the sequencer's root; the log grows past a page boundary, the
// copy is refreshed and the monitor advances; a payload erased on the sequencer leaves the copy's
// page at the next round and the monitor stays quiet; and a byte changed in an entry line of a
// page makes the monitor report that entry (exit 1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { runCookwala } from '../testkit/witness-procs.ts';
import { monitorStateFile, sequencerChild, type SequencerChild } from '../testkit/monitor.ts';
import { nginxBinary, startNginx, type Nginx } from '../testkit/nginx.ts';
import { waitFor } from '../testkit/wait.ts';
import { readLogLines } from '../platform/logger.ts';
import { PROBLEMS } from '../monitor/events.ts';

const LOG = 'static.example/missions/copied';
const dirs = tempDirs('cookwala-mon-static-');
let seq: SequencerChild;
let dir = '';
let copy = '';
let nginx: Nginx | undefined;
const nginxPath = nginxBinary();

type Rec = Record<string, unknown> & { event: string; seq?: number; code?: string };

beforeAll(async () => {
  dir = await dirs.make();
  copy = join(dir, 'copy');
  seq = await sequencerChild(join(dir, 'data'), [LOG]);
}, 120_000);

afterAll(async () => {
  await nginx?.stop();
  await seq?.stop();
  await dirs.cleanup();
});

/** The sequencer's published checkpoint. */
async function published(): Promise<{ seq: number; root: string }> {
  const r = await fetch(`${seq.base}/v1/logs/${encodeURIComponent(LOG)}/checkpoint`, { headers: { accept: 'application/json' } });
  return (await r.json()) as { seq: number; root: string };
}

/** Posts `n` events and waits until a checkpoint covers them; its size. */
async function grow(n: number): Promise<number> {
  const before = await seq.size(LOG);
  await seq.post(LOG, n);
  return waitFor(async () => ((await seq.size(LOG)) >= before + n ? seq.size(LOG) : undefined), {
    what: `${n} entries checkpointed`,
    timeoutMs: 60_000,
  });
}

async function tiles(out: string): Promise<{ size: number; pages: number; erasures: number; ms: number }> {
  const r = await runCookwala(['tiles', '--url', seq.base, '--log', LOG, '--entries', '--out', out]);
  expect(r.code, r.err).toBe(0);
  const line = r.out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { event: string; size: number; pages: number; erasures: number; ms: number })
    .find((l) => l.event === 'tiles_written');
  expect(line).toBeDefined();
  return line!;
}

async function files(d: string): Promise<string[]> {
  return (await readdir(d, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(d.length))
    .sort();
}

/** One `cookwala monitor --once` round from the copy behind nginx (no sequencer URL in its config), in steps of 100 entries. */
async function monitorOnce(): Promise<{ code: number | null; records: Rec[]; err: string }> {
  const policy = JSON.parse(await readFile(seq.policyPath, 'utf8')) as Record<string, unknown>;
  await writeFile(join(dir, 'policy.json'), JSON.stringify({ ...policy, log: LOG }));
  const cfg = join(dir, 'monitor.json');
  await writeFile(
    cfg,
    JSON.stringify({
      kind: 'MonitorConfig',
      logs: [{ origin: LOG, kind: 'cookwala', tiles: nginx!.url, policy: 'policy.json' }],
      // Steps of 100 entries: most cut a page of 256 at both ends.
      pageEntries: 100,
    }),
  );
  const r = await runCookwala(['monitor', '--config', cfg, '--state', join(dir, 'state'), '--once']);
  return { code: r.code, records: readLogLines(r.out) as unknown as Rec[], err: r.err };
}

const problems = (rs: Rec[]) => rs.filter((r) => PROBLEMS.has(r.event as never));
const verified = (rs: Rec[]) => rs.filter((r) => r.event === 'checkpoint_verified').map((r) => r.seq);
const stateOf = async () => JSON.parse(await readFile(monitorStateFile(join(dir, 'state'), LOG), 'utf8')) as { size: number; root: string };

describe('cookwala monitor following a Cookwala log from its static copy', () => {
  it('copies the log byte for byte, and the monitor verifies it from the copy behind nginx', { timeout: 180_000 }, async () => {
    const size = await grow(300);
    const a = await tiles(copy);
    expect(a.size).toBe(size);
    await tiles(join(dir, 'copy-b'));
    const list = await files(copy);
    expect(list).toEqual(await files(join(dir, 'copy-b')));
    for (const f of ['/checkpoint', '/cookwala/checkpoint.json', '/cookwala/log.json', '/cookwala/keys.json', '/cookwala/entries/000'])
      expect(list).toContain(f);
    expect(list).toContain(`/cookwala/entries/001.p/${size - 256}`);
    for (const f of list) expect(Buffer.compare(await readFile(copy + f), await readFile(join(dir, 'copy-b') + f)), f).toBe(0);
    const cp = JSON.parse(await readFile(join(copy, 'cookwala/checkpoint.json'), 'utf8')) as { seq: number };
    expect(cp.seq).toBe(size);

    if (!nginxPath) {
      console.log('skipped the nginx part: no nginx binary in /usr/sbin or /usr/bin');
      return;
    }
    nginx = await startNginx(nginxPath, copy, join(dir, 'nginx'), 'cookwala/checkpoint.json');
    const r = await monitorOnce();
    expect(r.code, r.err + JSON.stringify(r.records)).toBe(0);
    expect(verified(r.records)).toEqual([size]);
    expect(problems(r.records)).toEqual([]);
    const s = await stateOf();
    expect(s.size).toBe(size);
    const p = await published();
    expect(p.seq).toBe(size);
    expect(s.root).toBe(p.root);
  });

  it('advances when the log grows past a page boundary and the copy is refreshed', { timeout: 120_000 }, async () => {
    if (!nginxPath) return;
    const before = (await stateOf()).size;
    const size = await grow(300);
    expect(Math.floor(size / 256)).toBeGreaterThan(Math.floor(before / 256)); // the partial page became full
    await tiles(copy);
    const list = await files(copy);
    expect(list).toContain('/cookwala/entries/001');
    const r = await monitorOnce();
    expect(r.code, r.err + JSON.stringify(r.records)).toBe(0);
    expect(verified(r.records)).toEqual([size]);
    expect((await stateOf()).root).toBe((await published()).root);
  });

  it('drops an erased payload from its page at the next round, and the monitor stays quiet', { timeout: 120_000 }, async () => {
    if (!nginxPath) return;
    const target = 12;
    const page0 = join(copy, 'cookwala/entries/000');
    const payloadOf = (b: string) => b.includes(`{"kind":"Payload","seq":${target},`);
    expect(payloadOf(await readFile(page0, 'utf8'))).toBe(true);
    const before = await seq.size(LOG);
    await seq.erase(LOG, target);
    await waitFor(async () => (await seq.size(LOG)) > before || undefined, { what: 'the erasure entry checkpointed', timeoutMs: 60_000 });
    const w = await tiles(copy);
    expect(w.erasures).toBe(1);
    expect(payloadOf(await readFile(page0, 'utf8'))).toBe(false);
    const r = await monitorOnce();
    expect(r.code, r.err + JSON.stringify(r.records)).toBe(0);
    expect(verified(r.records)).toEqual([w.size]);
    expect(problems(r.records)).toEqual([]);
  });

  it('reports an entry whose line was changed in a page of the copy', { timeout: 120_000 }, async () => {
    if (!nginxPath) return;
    const size = await grow(50);
    const w = await tiles(copy);
    expect(w.size).toBe(size);
    const page = join(copy, `cookwala/entries/${String(Math.floor((size - 1) / 256)).padStart(3, '0')}.p/${size % 256}`);
    const tampered = size - 10;
    const text = await readFile(page, 'utf8');
    const start = text.indexOf(`"seq":${tampered},"prev"`);
    expect(start).toBeGreaterThanOrEqual(0);
    const at = text.indexOf('"eventHash":"sha256:', start) + '"eventHash":"sha256:'.length;
    const flipped = text.slice(0, at) + (text[at] === '0' ? '1' : '0') + text.slice(at + 1);
    await writeFile(page, flipped);
    const r = await monitorOnce();
    expect(r.code, r.err + JSON.stringify(r.records)).toBe(1);
    expect(verified(r.records)).toEqual([]);
    const found = problems(r.records);
    expect(found.map((f) => [f.event, f.seq])).toContainEqual(['entry_invalid', tampered]);
  });
});
