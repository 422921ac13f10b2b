// `cookwala monitor` and a rewritten old entry of our own log (docs/monitoring.md "What one step
// checks", 3), all real child processes on 127.0.0.1: a sequencer (testkit/monitor.ts: LevelDB,
// checkpoints every 200 ms) hosting two logs under load, and one monitor following both. The
// sequencer is stopped, one old entry of the first log is rewritten in its LevelDB store (its
// sequencedAt changed, every later entry re-chained, the tree rebuilt: what an operator with
// write access to the store can do), and the sequencer is started again and signs checkpoints over
// the rewritten tree as the log grows. The monitor reports rewrite_detected for that log within a
// checkpoint interval of the first such checkpoint, naming a range of entries that holds the
// rewritten seq (its frontier node that differs: the monitor keeps no older hashes), and never
// advances past it (the checkpoint re-signed at the size it had verified is also a fork_detected,
// and the first new entry's broken link an entry_invalid); the second log, honest over the same time, restart included,
// gets nothing, also for a payload erased after the monitor verified it (hash_only), whose erasure
// entry the monitor checks in a later step.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { spawnCookwala, type Child } from '../testkit/witness-procs.ts';
import {
  CHECKPOINT_MS,
  monitorStateFile,
  rewriteEntry,
  sequencerChild,
  writeMonitorConfig,
  type SequencerChild,
} from '../testkit/monitor.ts';
import { waitFor } from '../testkit/wait.ts';
import { PROBLEMS } from '../monitor/events.ts';
import type { LogRecord } from '../platform/logger.ts';

const REWRITTEN = 'monitor.example/missions/rewritten';
const HONEST = 'monitor.example/missions/honest';
const dirs = tempDirs('cookwala-mon-rw-');
let seq: SequencerChild;
let monitor: Child | undefined;
let dir = '';

type Rec = LogRecord & { log?: string; seq?: number; from?: number; to?: number };

beforeAll(async () => {
  dir = await dirs.make();
  seq = await sequencerChild(join(dir, 'data'), [REWRITTEN, HONEST]);
}, 120_000);

afterAll(async () => {
  if (monitor && monitor.proc.exitCode === null && monitor.proc.signalCode === null) monitor.proc.kill('SIGKILL');
  await monitor?.exited;
  const p = seq?.proc();
  if (p && p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
  await p?.exited;
});

const stateSize = async (log: string) => {
  const t = await readFile(monitorStateFile(join(dir, 'state'), log), 'utf8').catch(() => undefined);
  return t === undefined ? 0 : (JSON.parse(t) as { size: number }).size;
};

describe('cookwala monitor on a log rewritten in its store', () => {
  it('reports rewrite_detected with the rewritten range; the honest log reports nothing', { timeout: 240_000 }, async () => {
    await seq.post(REWRITTEN, 300);
    await seq.post(HONEST, 300);
    const config = join(dir, 'monitor.json');
    await writeMonitorConfig(config, seq.base, seq.policyPath, [REWRITTEN, HONEST]);
    monitor = spawnCookwala(['monitor', '--config', config, '--state', join(dir, 'state')]);
    const m = monitor;
    const problems = (log: string) => m.logs.records.filter((r) => PROBLEMS.has(r.event as never) && (r as Rec).log === log) as Rec[];
    // Both followed to the sizes the sequencer serves.
    const served = { rw: await seq.size(REWRITTEN), ok: await seq.size(HONEST) };
    await waitFor(async () => (await stateSize(REWRITTEN)) >= 300 && (await stateSize(HONEST)) >= 300, {
      what: 'both logs verified',
      timeoutMs: 60_000,
    });
    expect(served.rw).toBeGreaterThan(0);
    // hash_only: a payload the monitor verified is erased; its erasure entry comes in a later step.
    await seq.erase(HONEST, 12);
    await seq.post(HONEST, 100);
    const verifiedRw = await stateSize(REWRITTEN);

    // Stopped, an old entry rewritten in the store, started again; both logs grow.
    await seq.stop();
    const target = 37;
    const r = await rewriteEntry(seq.dir, REWRITTEN, target);
    expect(r.newHash).not.toBe(r.oldHash);
    await seq.start();
    const restartedAt = Date.now();
    await seq.post(REWRITTEN, 50);
    await seq.post(HONEST, 50);
    const rw = (await m.logs.next('rewrite_detected', (x) => (x as Rec).log === REWRITTEN && (x as Rec).from !== undefined, 30_000)) as Rec;
    expect(rw.from!).toBeLessThanOrEqual(target);
    expect(rw.to!).toBeGreaterThanOrEqual(target);
    expect(rw.seq).toBe(rw.from);
    // Within a checkpoint interval (and the monitor's own) of the sequencer signing the rewritten tree, on a loaded machine.
    expect(Date.now() - restartedAt).toBeLessThan(20 * CHECKPOINT_MS + 10_000);
    // The honest log goes on being verified past the restart, with nothing to report.
    const honestTarget = await seq.size(HONEST);
    await waitFor(async () => (await stateSize(HONEST)) >= Math.max(honestTarget, 450), {
      what: 'the honest log verified past the restart',
      timeoutMs: 60_000,
    });
    expect(problems(HONEST)).toEqual([]);
    // The rewritten log's state never moved past what it had verified before the rewrite.
    expect(await stateSize(REWRITTEN)).toBe(verifiedRw);
    // Besides the rewrite: the checkpoint re-signed at the verified size (a fork, with its proof), and
    // the first new entry not linking to the verified head.
    for (const p of problems(REWRITTEN))
      expect(
        p.event === 'rewrite_detected' ||
          p.event === 'fork_detected' ||
          (p.event === 'entry_invalid' && (p as Rec & { code?: string }).code === 'chain_broken' && p.seq === verifiedRw + 1),
        JSON.stringify(p),
      ).toBe(true);
  });
});
