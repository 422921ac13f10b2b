// `cookwala monitor` and payloads it finds erased before their erasure entry is in a verified
// checkpoint (docs/monitoring.md "Erased payloads"), all real child processes on 127.0.0.1: a
// sequencer (testkit/monitor.ts: LevelDB, hash_only, checkpoints every CHECKPOINT_MS) hosting two
// logs, read by the monitor through a caching proxy written here that can hold each log's
// checkpoint as it was (a CDN in front of the sequencer). On the first log the operator erases a
// payload after the held checkpoint was signed: the monitor reads the entry without its payload
// while the erasure entry is beyond that checkpoint, keeps the seq in its state, and clears it
// with no alert once the proxy lets the next checkpoint through. On the second log a payload's
// bytes are deleted from the LevelDB store behind the sequencer's back (no erasure record, no
// erasure entry): the monitor keeps that seq too, and reports it (entry_invalid, payload_missing,
// with the seq) in the step whose checkpoint first passes the bound in entries. The first monitor
// is SIGKILLed while both seqs wait; a second one started on the same state clears one and reports
// the other, so the waiting set is durable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDirs } from '../testkit/tmp.ts';
import { spawnCookwala, type Child } from '../testkit/witness-procs.ts';
import { monitorStateFile, removePayload, sequencerChild, writeMonitorConfig, type SequencerChild } from '../testkit/monitor.ts';
import { waitFor } from '../testkit/wait.ts';
import { PROBLEMS } from '../monitor/events.ts';
import type { LogRecord } from '../platform/logger.ts';

const ERASED = 'monitor.example/missions/erased';
const TAMPERED = 'monitor.example/missions/tampered';
/** erasureWithinEntries: verified entries a found gap may wait for its erasure entry. */
const BOUND = 200;
const REMOVED = 350;
const dirs = tempDirs('cookwala-mon-er-');
let seq: SequencerChild;
const monitors: Child[] = [];
let dir = '';
let proxy: Server;
let proxyUrl = '';
/** Checkpoint paths answered from what they were when held. */
const held = new Map<string, { status: number; type: string; body: Buffer }>();

type Rec = LogRecord & { log?: string; seq?: number; code?: string };
type Waiting = [number, string, number, number];

const checkpointPath = (log: string) => `/v1/logs/${encodeURIComponent(log)}/checkpoint`;

beforeAll(async () => {
  dir = await dirs.make();
  seq = await sequencerChild(join(dir, 'data'), [ERASED, TAMPERED]);
  proxy = createServer((req, res) => {
    void (async () => {
      const h = held.get((req.url ?? '').split('?')[0]);
      if (h) {
        res.writeHead(h.status, { 'content-type': h.type }).end(h.body);
        return;
      }
      const up = await fetch(seq.base + req.url, { headers: { accept: String(req.headers.accept ?? '*/*') } });
      const body = Buffer.from(await up.arrayBuffer());
      res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/octet-stream' }).end(body);
    })().catch((e: unknown) => res.writeHead(502).end(String(e)));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const a = proxy.address();
  proxyUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}, 120_000);

afterAll(async () => {
  for (const m of monitors) if (m.proc.exitCode === null && m.proc.signalCode === null) m.proc.kill('SIGKILL');
  await Promise.all(monitors.map((m) => m.exited));
  const p = seq?.proc();
  if (p && p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
  await p?.exited;
  await new Promise((r) => proxy?.close(r));
});

/** Hold the log's checkpoint as the sequencer serves it now; its size. */
async function hold(log: string): Promise<number> {
  const r = await fetch(seq.base + checkpointPath(log), { headers: { accept: 'application/json' } });
  const body = Buffer.from(await r.arrayBuffer());
  expect(r.status).toBe(200);
  held.set(checkpointPath(log), { status: r.status, type: r.headers.get('content-type') ?? 'application/json', body });
  return (JSON.parse(body.toString()) as { seq: number }).seq;
}

async function stateOf(log: string): Promise<{ size: number; erasures?: { waiting: Waiting[]; dropped: number } }> {
  const t = await readFile(monitorStateFile(join(dir, 'state'), log), 'utf8').catch(() => undefined);
  return t === undefined ? { size: 0 } : JSON.parse(t);
}

function startMonitor(config: string): Child {
  const m = spawnCookwala(['monitor', '--config', config, '--state', join(dir, 'state')]);
  monitors.push(m);
  return m;
}

const problems = (m: Child, log: string) => m.logs.records.filter((r) => PROBLEMS.has(r.event as never) && (r as Rec).log === log) as Rec[];

describe('cookwala monitor and payloads found erased', () => {
  it('clears an honest erasure when its entry comes and reports a payload removed with none', { timeout: 240_000 }, async () => {
    await seq.post(ERASED, 300);
    await seq.post(TAMPERED, 400);
    await waitFor(async () => (await seq.size(ERASED)) >= 300 && (await seq.size(TAMPERED)) >= 400, {
      what: 'both logs checkpointed',
      timeoutMs: 60_000,
    });
    // Behind the sequencer's back: one payload's bytes deleted from the store, nothing appended.
    await seq.stop();
    await removePayload(seq.dir, TAMPERED, REMOVED);
    await seq.start();
    const heldSize = { erased: await hold(ERASED), tampered: await hold(TAMPERED) };
    expect(heldSize.tampered).toBeGreaterThanOrEqual(400);
    // The operator erases a payload: its erasure entry comes after the held checkpoint.
    await seq.erase(ERASED, 12);

    const config = join(dir, 'monitor.json');
    await writeMonitorConfig(config, proxyUrl, seq.policyPath, [ERASED, TAMPERED], {
      erasureWithinEntries: BOUND,
      erasureWithinMs: 600_000,
    });
    const first = startMonitor(config);
    await waitFor(async () => (await stateOf(ERASED)).size === heldSize.erased && (await stateOf(TAMPERED)).size === heldSize.tampered, {
      what: 'the held checkpoints verified',
      timeoutMs: 60_000,
    });
    // Both gaps wait in the state file, each with its entry's eventHash and the checkpoint that found it.
    const waitingErased = (await stateOf(ERASED)).erasures!.waiting;
    const waitingTampered = (await stateOf(TAMPERED)).erasures!.waiting;
    expect(waitingErased.map((w) => [w[0], w[2]])).toEqual([[12, heldSize.erased]]);
    expect(waitingTampered.map((w) => [w[0], w[2]])).toEqual([[REMOVED, heldSize.tampered]]);
    expect(waitingTampered[0][1]).toMatch(/^[0-9a-f]{64}$/);
    expect([...problems(first, ERASED), ...problems(first, TAMPERED)]).toEqual([]);
    first.proc.kill('SIGKILL');
    await first.exited;

    // The proxy lets the sequencer's checkpoints through again; both logs grow.
    held.clear();
    const second = startMonitor(config);
    await seq.post(ERASED, 100);
    // The erasure entry arrives in a verified checkpoint and clears seq 12, with nothing reported.
    await waitFor(
      async () => {
        const s = await stateOf(ERASED);
        return s.size > heldSize.erased + 1 && s.erasures === undefined;
      },
      { what: 'the erasure of 12 matched', timeoutMs: 60_000 },
    );
    await seq.post(TAMPERED, 300);
    const found = (await second.logs.next(
      'entry_invalid',
      (r) => (r as Rec).log === TAMPERED && (r as Rec).code === 'payload_missing',
      60_000,
    )) as Rec;
    expect(found.seq).toBe(REMOVED);
    // Reported in the step whose checkpoint first passed the bound: every checkpoint of that log
    // verified before it was short of the bound, and the one reported with it is past it.
    const at = second.logs.records.indexOf(found);
    const verified = (from: number, to: number) =>
      second.logs.records.slice(from, to).filter((r) => r.event === 'checkpoint_verified' && (r as Rec).log === TAMPERED) as Rec[];
    for (const r of verified(0, at)) expect(r.seq!).toBeLessThan(heldSize.tampered + BOUND);
    const withIt = await second.logs.next(
      'checkpoint_verified',
      (r) => (r as Rec).log === TAMPERED && second.logs.records.indexOf(r) > at,
      30_000,
    );
    expect((withIt as Rec).seq!).toBeGreaterThanOrEqual(heldSize.tampered + BOUND);
    expect(verified(at + 1, second.logs.records.indexOf(withIt))).toEqual([]);
    // Reported once, no longer waiting; the honest log reported nothing.
    await waitFor(async () => (await stateOf(TAMPERED)).erasures === undefined, { what: 'the state without 350', timeoutMs: 10_000 });
    expect(problems(second, TAMPERED)).toEqual([found]);
    expect(problems(second, ERASED)).toEqual([]);
    second.proc.kill('SIGTERM');
    await second.exited;
  });
});
