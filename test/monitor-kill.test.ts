// `cookwala monitor` killed with SIGKILL while it catches up a backlog (docs/monitoring.md
// "State"): a real sequencer child (testkit/monitor.ts) holds several thousand entries before the
// monitor starts from an empty state, with pages of 500 entries. The monitor is killed at seeded
// random points (the seed is printed; COOKWALA_KILL_SEED repeats a run) several times. Each run
// goes on from the place its state file kept (the first entries_progress or checkpoint_verified of
// a run starts exactly there: nothing skipped), re-verifies at most one page beyond it (counted
// from its log events and its state: what it had checked after its last kept place when it was
// killed; a place is logged once it is durable, so the state may be one place past the log), and the
// last run ends at the served checkpoint's size and root with nothing reported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { spawnCookwala, type Child } from '../testkit/witness-procs.ts';
import { monitorStateFile, sequencerChild, writeMonitorConfig, type SequencerChild } from '../testkit/monitor.ts';
import { PROBLEMS } from '../monitor/events.ts';
import { waitFor } from '../testkit/wait.ts';
import type { LogRecord } from '../platform/logger.ts';

const LOG = 'monitor.example/missions/backlog';
const BACKLOG = 4000;
const PAGE = 500;
const KILLS = 4;
const dirs = tempDirs('cookwala-mon-kill-');
let seq: SequencerChild;
const monitors: Child[] = [];
let dir = '';

type Rec = LogRecord & { seq?: number; entries?: number };

beforeAll(async () => {
  dir = await dirs.make();
  seq = await sequencerChild(join(dir, 'data'), [LOG]);
  await seq.post(LOG, BACKLOG);
}, 180_000);

afterAll(async () => {
  for (const m of monitors) if (m.proc.exitCode === null && m.proc.signalCode === null) m.proc.kill('SIGKILL');
  await Promise.all(monitors.map((m) => m.exited));
  const p = seq?.proc();
  if (p && p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
  await p?.exited;
});

/** Where the state file says a run goes on from: the pending page's last entry, else the verified size. */
async function keptAt(): Promise<{ at: number; size: number; root?: string }> {
  const t = await readFile(monitorStateFile(join(dir, 'state'), LOG), 'utf8').catch(() => undefined);
  if (t === undefined) return { at: 0, size: 0 };
  const s = JSON.parse(t) as { size: number; root: string; pending?: { seq: number } };
  return { at: s.pending && s.pending.seq > s.size ? s.pending.seq : s.size, size: s.size, root: s.root };
}

/** A tiny seeded generator (mulberry32), so a failing run can be repeated. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('cookwala monitor killed during a catch-up', () => {
  it('resumes from its kept place each time, re-verifies at most a page, skips nothing', { timeout: 300_000 }, async () => {
    const seed = Number(process.env.COOKWALA_KILL_SEED ?? Date.now() % 1_000_000);
    console.log(`monitor-kill seed ${seed} (COOKWALA_KILL_SEED=${seed} repeats it)`);
    const random = rng(seed);
    const config = join(dir, 'monitor.json');
    await writeMonitorConfig(config, seq.base, seq.policyPath, [LOG], { pageEntries: PAGE });
    const target = await waitFor(async () => ((await seq.size(LOG)) >= BACKLOG ? seq.size(LOG) : undefined), {
      what: 'the checkpoint of the whole backlog',
      timeoutMs: 60_000,
    });
    const start = () => {
      const m = spawnCookwala(['monitor', '--config', config, '--state', join(dir, 'state')]);
      monitors.push(m);
      return m;
    };
    const progress = (m: Child) =>
      m.logs.records.filter((r) => r.event === 'entries_progress' || r.event === 'checkpoint_verified') as Rec[];
    for (let k = 0; k < KILLS; k++) {
      const before = await keptAt();
      if (before.size >= target) break;
      const m = start();
      // Killed after a random number of kept pages (0-2) and a random moment within the next one.
      const pages = Math.floor(random() * 3);
      // (or the end of the catch-up, when fewer pages were left)
      if (pages > 0)
        await waitFor(() => progress(m).length >= pages || m.logs.events('checkpoint_verified').length > 0, {
          what: `${pages} kept pages`,
          timeoutMs: 120_000,
          intervalMs: 20,
        });
      await new Promise((r) => setTimeout(r, Math.floor(random() * 400))); // the random point within a page
      m.proc.kill('SIGKILL');
      await m.exited;
      const seen = progress(m);
      if (seen.length > 0) {
        // Nothing skipped, nothing redone before the kept place: the run started exactly there.
        expect(seen[0].seq! - seen[0].entries!, `run ${k}`).toBe(before.at);
        for (const r of seen) expect(r.seq!, `run ${k}`).toBeGreaterThan(before.at);
      }
      const after = await keptAt();
      expect(after.at).toBeGreaterThanOrEqual(before.at);
      // Each line is written once its place is durable, and the next page is checked meanwhile: a
      // kill between a write and its line leaves the state one kept place past the last line
      // (the next page's end, or the checkpoint's size).
      const logged = seen.length > 0 ? seen[seen.length - 1].seq! : before.at;
      expect([logged, logged + PAGE, target], `run ${k}`).toContain(after.at);
      // Kept places are page ends: what this run checked beyond its last one, and the next run
      // checks again, is less than a page.
      if (after.size === before.size) expect((after.at - before.at) % PAGE).toBe(0);
      expect(m.logs.records.filter((r) => PROBLEMS.has(r.event as never))).toEqual([]);
    }
    // The last run finishes the catch-up from its kept place.
    const before = await keptAt();
    const m = start();
    const done = (await m.logs.next('checkpoint_verified', (r) => (r as Rec).seq! >= target, 180_000)) as Rec;
    const seen = progress(m);
    expect(seen[0].seq! - seen[0].entries!).toBe(before.at);
    expect(done.seq! - done.entries!).toBe(before.at);
    const end = await keptAt();
    expect(end.size).toBe(done.seq);
    const cp = (await fetch(`${seq.base}/v1/logs/${encodeURIComponent(LOG)}/checkpoint`).then((r) => r.json())) as {
      seq: number;
      root: string;
    };
    if (cp.seq === end.size) expect(end.root).toBe(cp.root);
    expect(m.logs.records.filter((r) => PROBLEMS.has(r.event as never))).toEqual([]);
    m.proc.kill('SIGTERM');
    await m.exited;
  });
});
