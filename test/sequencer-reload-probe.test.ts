// A reload refuses no connection (docs/design.md §12; docs/operations.md, "Reload"): real processes
// on 127.0.0.1, a `cookwala sequencer` child witnessed by one `cookwala witness` child (quorum 1, so
// a false witness_error or quorum_lost around the re-open would show), reloaded five times with
// SIGHUP (what `systemctl reload` sends), each reload waited on by its `policy_reloaded` line. All
// the while, several probers GET /v1/logs back to back, each request on a NEW TCP connection
// (agent: false, `Connection: close`), and a device posts signed events, resending an event
// unchanged (same Idempotency-Key) on a 503 as a device's outbox does. Asserted: no probe fails to
// connect or is reset (no ECONNREFUSED, no ECONNRESET), every probe is answered 200, each reload
// is crossed by probes (the window between its `policy_reload` and `policy_reloaded` lines, by
// their timestamps, overlaps probes of every prober, and probes complete before and after it: the
// test is not vacuous), events are acknowledged between the reloads, every acknowledged event is in
// the exported bundle at the seq and hash it was acknowledged with, the bundle verifies with the
// policy, and the sequencer logs no `witness_error`, no `quorum_lost` and nothing at error level.
// What holds the port open is sequencer/held-listener.ts: the listening socket belongs to the
// process, and a connection that arrives while no app serves waits for the re-opened one.
import { afterAll, expect, it } from 'vitest';
import { request } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCookwala, spawnCookwala, startWitnessProcess, stopChild, type Child } from '../testkit/witness-procs.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { waitFor } from '../testkit/wait.ts';
import { parseNdjson } from '../testkit/verify-log.ts';
import { readLogLines, type LogRecord } from '../platform/logger.ts';

const LOG = 'reload.example/missions/m-7';
const RELOADS = 5;
const PROBERS = 4;
const MIN_PROBES = 200;
/** Probes and acknowledged events that must complete between two reloads. */
const BETWEEN = { probes: 20, acks: 3 };

const tmp = tempDirs('cookwala-reload-');
const children: Child[] = [];
afterAll(async () => {
  for (const c of children) await stopChild(c, 'SIGKILL');
  await tmp.cleanup();
});

async function ok(args: string[]): Promise<string> {
  const r = await runCookwala(args);
  expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
  return r.out;
}

interface Probe {
  start: number;
  end: number;
  status?: number;
  /** The socket error (code) when the request got no answer. */
  error?: string;
}

/** One GET on a connection of its own, closed after the answer; never rejects. */
function probe(port: number, path: string): Promise<Probe> {
  const start = Date.now();
  return new Promise((resolve) => {
    const done = (p: Omit<Probe, 'start' | 'end'>) => resolve({ start, end: Date.now(), ...p });
    const req = request({ host: '127.0.0.1', port, path, agent: false, headers: { connection: 'close' }, timeout: 60_000 }, (res) => {
      res.on('error', (e: NodeJS.ErrnoException) => done({ error: e.code ?? e.message }));
      res.on('end', () => done({ status: res.statusCode }));
      res.resume();
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer within 60 s'), { code: 'TIMEOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => done({ error: e.code ?? e.message }));
    req.end();
  });
}

interface Ack {
  id: string;
  seq: number;
  hash: string;
  eventHash: string;
}

it('five SIGHUP reloads under probes on new connections: none refused or reset, all 200, every acknowledged event exported', async () => {
  const root = await tmp.make();
  const seqDir = join(root, 'seq');
  const w1 = join(root, 'w1');
  await ok(['witness', 'init', '--data', w1, '--http-port', '0']);
  await ok(['init', '--data', seqDir, '--log', LOG]);
  const witness = await startWitnessProcess(w1);
  children.push(witness);
  await ok(['witness', 'add-log', '--data', w1, '--log', LOG, '--sequencer-key', join(seqDir, 'sequencer.keyrecord.json')]);
  await witness.logs.next('log_admitted', undefined, 60_000);
  await ok(['policy', 'add-witness', '--data', seqDir, '--from', join(w1, 'witness-info.json')]);
  const policy = join(seqDir, 'policy.json');

  const s = spawnCookwala(['sequencer', '--data', seqDir, '--port', '0']);
  children.push(s);
  const url = (await s.logs.next('listening', undefined, 60_000)).url as string;
  expect((await s.logs.next('witnessing', undefined, 60_000)).quorum).toBe(1);
  const port = Number(new URL(url).port);

  const dev = deviceKey(11);
  const token = (await readFile(join(seqDir, 'operator.token'), 'utf8')).trim().split('\n').pop()!;
  const reg = await fetch(`${url}${logPath(LOG, '/keys')}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(dev.record),
  });
  expect(reg.status, await reg.text()).toBe(201);

  // The device: one event at a time, resent unchanged on a 503 (the old app answers shutting_down
  // to a request that reaches it while it closes) or a keep-alive connection the old app closed.
  const events = eventStream(dev);
  const acks: Ack[] = [];
  let resent = 0;
  let posting = true;
  let postError: unknown;
  const post = async (n: number) => {
    const ce = events.next('exec-1');
    for (let attempt = 0; ; attempt++) {
      const r = await fetch(`${url}${logPath(LOG, '/events')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `reload-${n}` },
        body: JSON.stringify(ce),
      }).catch(() => undefined);
      const text = (await r?.text()) ?? '';
      if (r?.status === 201) {
        const a = JSON.parse(text) as Omit<Ack, 'id'>;
        return void acks.push({ id: ce.id, seq: a.seq, hash: a.hash, eventHash: a.eventHash });
      }
      if ((r !== undefined && r.status !== 503) || attempt >= 200) throw new Error(`event ${n}: ${r?.status ?? 'no answer'} ${text}`);
      resent++;
      await new Promise((done) => setTimeout(done, 20)); // a device's retry delay, not a wait for state
    }
  };
  const device = (async () => {
    for (let n = 0; posting && n < 100_000; n++) await post(n);
  })().catch((e: unknown) => void (postError = e));

  // The probers: back to back, each request on a new connection.
  const probes: Probe[] = [];
  let probing = true;
  const probers = Array.from({ length: PROBERS }, async () => {
    while (probing && probes.length < 200_000) probes.push(await probe(port, '/v1/logs'));
  });

  const progress = async (what: string, fromProbes: number, fromAcks: number) =>
    waitFor(
      () => {
        if (postError) throw postError;
        return (probes.length >= fromProbes + BETWEEN.probes && acks.length >= fromAcks + BETWEEN.acks) || undefined;
      },
      { what, timeoutMs: 120_000, intervalMs: 20, detail: () => `${probes.length} probes, ${acks.length} events acknowledged` },
    );
  await progress('probes and events before the first reload', 0, 0);
  const reloads: Array<{ from: number; to: number }> = [];
  for (let k = 0; k < RELOADS; k++) {
    const seen = new Set<LogRecord>(s.logs.events('policy_reloaded'));
    const seenStart = new Set<LogRecord>(s.logs.events('policy_reload'));
    const started = s.logs.next('policy_reload', (r) => !seenStart.has(r), 60_000);
    const done = s.logs.next('policy_reloaded', (r) => !seen.has(r), 60_000);
    s.proc.kill('SIGHUP');
    const [a, b] = [await started, await done];
    expect(a.why).toBe('SIGHUP');
    expect(b.url).toBe(url);
    reloads.push({ from: Date.parse(a.time), to: Date.parse(b.time) });
    await progress(`probes and events after reload ${k + 1}`, probes.length, acks.length);
  }
  await waitFor(() => probes.length >= MIN_PROBES || undefined, { what: `${MIN_PROBES} probes`, timeoutMs: 120_000 });
  probing = false;
  posting = false;
  await Promise.all([...probers, device]);
  expect(postError).toBeUndefined();

  // No connection refused or reset, every answer 200.
  const failed = probes.filter((p) => p.error !== undefined || p.status !== 200);
  expect(failed.map((p) => `${new Date(p.start).toISOString()}: ${p.error ?? p.status}`)).toEqual([]);
  expect(probes.length).toBeGreaterThanOrEqual(MIN_PROBES);
  // Each reload crossed by probes: overlapping its window, and completed before and after it.
  const perReload = reloads.map((r) => ({
    ms: r.to - r.from,
    overlapping: probes.filter((p) => p.start <= r.to && p.end >= r.from).length,
    before: probes.filter((p) => p.end < r.from).length,
    after: probes.filter((p) => p.start > r.to).length,
  }));
  process.stdout.write(
    `sequencer-reload-probe: ${probes.length} probes, ${acks.length} events (${resent} resends), reloads ${JSON.stringify(perReload)}\n`,
  );
  for (const r of perReload) {
    expect(r.overlapping).toBeGreaterThanOrEqual(PROBERS);
    expect(r.before).toBeGreaterThan(0);
    expect(r.after).toBeGreaterThan(0);
  }

  // Every acknowledged event exported at its seq and hash; the bundle verifies with the policy.
  const cp = await ok(['checkpoint', '--url', url, '--log', LOG, '--policy', policy, '--wait', '60s']);
  expect(cp).toMatch(/1 cosignature \(quorum 1 of 1 witnesses\): met/);
  const bundle = join(root, 'bundle.ndjson');
  await ok(['export', '--url', url, '--log', LOG, '--out', bundle]);
  const verdict = await ok(['verify', bundle, '--policy', policy]);
  expect(verdict).toMatch(/VALID/);
  const lines = parseNdjson<{ kind?: string; seq?: number; hash?: string; eventHash?: string; ce?: { id: string } }>(
    await readFile(bundle, 'utf8'),
  );
  const entries = new Map(lines.filter((l) => l.kind === 'Event').map((e) => [e.seq!, e]));
  expect(acks.length).toBeGreaterThanOrEqual((RELOADS + 1) * BETWEEN.acks);
  for (const a of acks) {
    const e = entries.get(a.seq);
    expect(e, `event ${a.id} acknowledged at seq ${a.seq}`).toMatchObject({ hash: a.hash, eventHash: a.eventHash, ce: { id: a.id } });
  }
  expect(new Set(acks.map((a) => a.seq)).size).toBe(acks.length);

  const exit = await stopChild(s);
  expect(exit.code, s.err()).toBe(0);
  const logged = readLogLines(s.out());
  expect(logged.filter((r) => r.event === 'policy_reloaded')).toHaveLength(RELOADS);
  expect(logged.filter((r) => r.event === 'witness_error' || r.event === 'quorum_lost').map((r) => `${r.event}: ${r.msg}`)).toEqual([]);
  expect(logged.filter((r) => r.level === 'error' || r.level === 'fatal').map((r) => `${r.event}: ${r.msg}`)).toEqual([]);
}, 480_000);
