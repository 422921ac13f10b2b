// Executor -> real sequencer (createSequencer from sequencer/, temp LevelDB, real HTTP on
// 127.0.0.1): every status event lands exactly once, in subject order, and the log verifies from
// scratch (entry hashes, links from the descriptor, device signatures); an event lost on the way
// is recovered from the sequencer's out_of_order `expected`; delivery retries while the sequencer
// is down, survives an executor restart, and completes when it is back; under consent `none` not
// one request reaches a sequencer; after a withdrawal only the withdrawal notice leaves.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventHash, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { openSequencer } from '../sequencer/app.ts';
import { startSequencer, type TestSequencer } from '../testkit/sequencer.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { waitFor } from '../testkit/wait.ts';
import { systemClock } from '../platform/clock.ts';
import { createSimulatedHardware } from '../executor/runner.ts';
import { createSequencerClient, ensureRegistered, type FetchLike } from '../executor/sequencer-client.ts';
import { checkChain, fetchLog, SIMPLE_BODY, subjectOrder, testDevice, testExecutor } from '../testkit/executor.ts';
import type { Executor } from '../executor/executor.ts';
import type { ExecutionState } from '../executor/lifecycle.ts';

const dirs = tempDirs('cookwala-exec-deliv-');
afterAll(() => dirs.cleanup());

const FAST = { baseBackoffMs: 20, maxBackoffMs: 200 };

async function drive(ex: Executor, key: string, path: ExecutionState[]): Promise<string> {
  const c = await ex.service.create(SIMPLE_BODY, key);
  if (!c.ok) throw new Error(c.detail);
  for (const to of path) {
    const r = to === 'stopping' ? await ex.service.stop(c.value.execution.id) : await ex.service.change(c.value.execution.id, to);
    if (!r.ok) throw new Error(`${to}: ${r.detail}`);
  }
  return c.value.execution.id;
}

/** The device's own log of each execution, as the sequencer must end up holding it. */
async function deviceLog(ex: Executor, ids: string[]): Promise<CloudEvent[]> {
  return (await Promise.all(ids.map((id) => ex.store.events(id)))).flat();
}

/** A dead letter empties the outbox too: after each drain, name any refusal before reading the log. */
async function expectNoDeadLetters(ex: Executor): Promise<void> {
  expect((await ex.store.deadLetters()).map((d) => `${d.code}: ${d.detail}`)).toEqual([]);
}

function expectExactlyOnce(entries: { ce: { source: string; id: string } }[], events: CloudEvent[]): void {
  const ids = entries.map((e) => `${e.ce.source} ${e.ce.id}`);
  expect(new Set(ids).size).toBe(ids.length);
  for (const ev of events) expect(ids.filter((i) => i === `${ev.source} ${ev.id}`)).toHaveLength(1);
}

describe('delivery to a real sequencer', () => {
  let seq: TestSequencer;
  beforeAll(async () => {
    seq = await startSequencer({ listen: true, dir: await dirs.make() });
  });
  afterAll(() => seq.close());

  it('every status event once, in subject order; the log verifies; heartbeats are liveness, not log', async () => {
    const dev = testDevice('dev-deliver');
    const client = createSequencerClient({ url: seq.url!, log: seq.log });
    expect(await ensureRegistered(client, dev.keyRecord, seq.token)).toEqual({ ok: true, status: 201 });
    expect(await ensureRegistered(client, dev.keyRecord, seq.token)).toEqual({ ok: true, status: 200 });
    expect((await ensureRegistered(client, dev.keyRecord, 'wrong-token')).ok).toBe(false);
    const { ex, waits } = await testExecutor(await dirs.make(), {
      name: 'dev-deliver',
      sequencerUrl: seq.url,
      log: seq.log,
      consent: 'research_only',
      delivery: FAST,
      heartbeatIntervalMs: 3_600_000,
      deps: { networkClock: systemClock() },
    });
    await ex.start();
    const a = await drive(ex, 'a', ['preparing', 'running', 'paused', 'running', 'needs_human', 'running', 'completed']);
    const b = await drive(ex, 'b', ['preparing', 'running', 'stopping']);
    const c = await drive(ex, 'c', []); // still accepted
    await waits.until(async () => (await ex.store.pendingCount()) === 0, 'drain');
    await expectNoDeadLetters(ex);
    const { descriptorHash, entries } = await fetchLog(seq.url!, seq.log);
    expect(checkChain(descriptorHash, entries, [dev.keyRecord])).toBeUndefined();
    const mine = entries.filter((e) => e.ce.source === dev.source);
    const events = await deviceLog(ex, [a, b, c]);
    expect(mine).toHaveLength(events.length);
    expectExactlyOnce(mine, events);
    const order = subjectOrder(entries, dev.source);
    expect(order.get(a)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(order.get(b)).toEqual([1, 2, 3, 4, 5]);
    expect(order.get(c)).toEqual([1]);
    // The sequencer hashed exactly what the device signed.
    for (const e of mine) {
      const ev = events.find((x) => x.id === e.ce.id)!;
      expect(e.eventHash).toBe((eventHash(ev) as { value: string }).value);
      expect(e.ce.type).toBe(ev.type);
    }
    // A stop is a local safety report.
    const stopped = events.find((e) => e.subject === b && e.type === 'cookwala.execution.stopped');
    expect(stopped?.cookwalalatency).toBe('local_safety');
    // Heartbeats: accepted, shown in /v1/devices, never appended.
    const head = seq.headSeq();
    expect(await ex.heartbeats!.beat()).toBe(200);
    expect(seq.headSeq()).toBe(head);
    const devices = (await (await fetch(`${seq.url}/v1/devices`)).json()) as { devices: { source: string; state: string }[] };
    expect(devices.devices.find((d) => d.source === dev.source)?.state).toBe('alive');
    expect(ex.delivery!.stats().deadLetters).toBe(0);
    await ex.close();
  });

  it("an event lost on the way is resent from the sequencer's `expected`", async () => {
    const dev = testDevice('dev-lossy');
    expect((await seq.registerKey(dev.keyRecord)).statusCode).toBe(201);
    let dropped = 0;
    // A middlebox that acknowledges cookwalaseq 2 without forwarding it, once.
    const lossy: FetchLike = async (url, init) => {
      if (
        init.method === 'POST' &&
        url.endsWith('/events') &&
        init.headers['content-type'] === 'application/cloudevents-batch+json' &&
        dropped === 0
      ) {
        const evs = JSON.parse(init.body!) as CloudEvent[];
        const i = evs.findIndex((e) => e.cookwalaseq === 2);
        if (i >= 0) {
          dropped++;
          const rest = evs.filter((_, j) => j !== i);
          const res = await fetch(url, {
            ...init,
            body: JSON.stringify(rest),
            headers: { ...init.headers, 'idempotency-key': `${init.headers['idempotency-key']}-lossy` },
          });
          const { results } = (await res.json()) as { results: unknown[] };
          results.splice(i, 0, { status: 201, seq: 1, hash: `sha256:${'0'.repeat(64)}` });
          return { status: 200, text: async () => JSON.stringify({ results }) };
        }
      }
      return fetch(url, init);
    };
    const { ex, waits } = await testExecutor(await dirs.make(), {
      name: 'dev-lossy',
      sequencerUrl: seq.url,
      log: seq.log,
      consent: 'research_only',
      delivery: FAST,
      deps: { networkClock: systemClock(), fetch: lossy },
    });
    // Written before start so that one batch carries all four events.
    const a = await drive(ex, 'a', ['preparing', 'running', 'completed']);
    await ex.start();
    await waits.until(
      async () => (await ex.store.pendingCount()) === 0 && subjectOrder((await fetchLog(seq.url!, seq.log)).entries).get(a)?.length === 4,
      'recovery',
    );
    await expectNoDeadLetters(ex);
    expect(dropped).toBe(1);
    const { descriptorHash, entries } = await fetchLog(seq.url!, seq.log);
    expect(subjectOrder(entries).get(a)).toEqual([1, 2, 3, 4]);
    expect(checkChain(descriptorHash, entries, [dev.keyRecord])).toBeUndefined();
    expectExactlyOnce(
      entries.filter((e) => e.ce.source === dev.source),
      await deviceLog(ex, [a]),
    );
    expect(ex.delivery!.stats()).toMatchObject({ requeued: 1, deadLetters: 0 });
    await ex.close();
  });

  it('withdrawing consent: the notice is delivered, then nothing more leaves', async () => {
    const dev = testDevice('dev-withdraw');
    expect((await seq.registerKey(dev.keyRecord)).statusCode).toBe(201);
    const { ex, waits } = await testExecutor(await dirs.make(), {
      name: 'dev-withdraw',
      sequencerUrl: seq.url,
      log: seq.log,
      consent: 'open',
      delivery: FAST,
      heartbeatIntervalMs: 3_600_000,
      deps: { networkClock: systemClock() },
    });
    await ex.start();
    const a = await drive(ex, 'a', ['preparing', 'running']);
    await waits.until(async () => (await ex.store.pendingCount()) === 0, 'first delivery');
    await expectNoDeadLetters(ex);
    expect(await ex.withdrawConsent()).toBe(true);
    await waits.until(async () => (await ex.store.pendingCount()) === 0, 'the withdrawal');
    await expectNoDeadLetters(ex);
    await ex.service.change(a, 'completed');
    await drive(ex, 'b', ['preparing']);
    expect(await ex.heartbeats!.beat()).toBeUndefined();
    // The loop looked at the outbox after the last write and found nothing it may send.
    const before = waits.count();
    ex.delivery!.wake();
    await waits.until(() => waits.count() > before && waits.last()?.reason === 'idle', 'the loop to look and rest');
    const mine = (await fetchLog(seq.url!, seq.log)).entries.filter((e) => e.ce.source === dev.source);
    expect(mine.map((e) => e.ce.type)).toEqual([
      'cookwala.execution.accepted',
      'cookwala.execution.preparing',
      'cookwala.execution.running',
      'cookwala.consent.withdrawn',
    ]);
    // Under `open` consent the event times were coarsened to the day.
    const evs = await ex.store.events(a);
    expect(evs[0].time).toMatch(/T00:00:00\.000Z$/);
    await ex.close();
  });
});

describe('when the sequencer is down', () => {
  it('retries with backoff, survives an executor restart, and delivers everything once it is back', async () => {
    const dev = testDevice('dev-down');
    const seq = await startSequencer({
      listen: true,
      dir: await dirs.make(),
      devices: [{ signer: dev.signer, record: dev.keyRecord, owner: dev.source }],
    });
    const url = seq.url!;
    const port = Number(new URL(url).port);
    await seq.close(); // the sequencer goes away; its port is free
    const dir = await dirs.make();
    let { ex, waits } = await testExecutor(dir, {
      name: 'dev-down',
      sequencerUrl: url,
      log: seq.log,
      consent: 'research_only',
      delivery: FAST,
      deps: { networkClock: systemClock() },
    });
    await ex.start();
    const a = await drive(ex, 'a', ['preparing', 'running']);
    await waits.until(() => ex.delivery!.stats().failures >= 3, 'failed attempts');
    expect(ex.delivery!.stats().lastError).toMatch(/network/);
    await ex.close(); // the device restarts while the sequencer is still down
    ({ ex, waits } = await testExecutor(dir, {
      name: 'dev-down',
      sequencerUrl: url,
      log: seq.log,
      delivery: FAST,
      deps: { networkClock: systemClock() },
    }));
    await ex.start(); // a restart fails the running execution: one more event to deliver
    const b = await drive(ex, 'b', ['preparing', 'running', 'completed']);
    expect(await ex.store.pendingCount()).toBe(4 + 4);
    await waits.until(() => ex.delivery!.stats().failures >= 2, 'failures after restart');
    const back = await openSequencer(seq.dir, { timers: false });
    await back.app.listen({ host: '127.0.0.1', port });
    try {
      await waits.until(async () => (await ex.store.pendingCount()) === 0, 'delivery after the sequencer is back');
      await expectNoDeadLetters(ex);
      const { descriptorHash, entries } = await fetchLog(url, seq.log);
      expect(checkChain(descriptorHash, entries, [dev.keyRecord])).toBeUndefined();
      expect(subjectOrder(entries).get(a)).toEqual([1, 2, 3, 4]);
      expect(subjectOrder(entries).get(b)).toEqual([1, 2, 3, 4]);
      expectExactlyOnce(entries, await deviceLog(ex, [a, b]));
      expect(entries.find((e) => e.ce.subject === a && e.ce.cookwalaseq === 4)?.ce.type).toBe('cookwala.execution.failed');
    } finally {
      await ex.close();
      await back.close();
    }
  });
});

describe('consent none keeps everything local', () => {
  let server: Server;
  let requests = 0;
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      req.resume();
      res.writeHead(503).end();
    });
    server.on('connection', () => requests++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const a = server.address();
    url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a whole mission with heartbeats makes no request to the sequencer; opting in does', async () => {
    let fetches = 0;
    const spy: FetchLike = (u, init) => {
      fetches++;
      return fetch(u, init);
    };
    const { ex, clock, waits } = await testExecutor(await dirs.make(), {
      name: 'dev-private',
      sequencerUrl: url,
      log: 'test.example/missions/m-1',
      heartbeatIntervalMs: 10,
      delivery: FAST,
      deps: {
        networkClock: systemClock(),
        fetch: spy,
        hardware: (svc, c) => createSimulatedHardware(svc, c, { prepareMs: 10, preheatMs: 10, spinDownMs: 10 }),
      },
    });
    await ex.start();
    expect(ex.store.consent().dataset).toBe('none');
    const c = await ex.service.create(SIMPLE_BODY, 'k');
    if (!c.ok) throw new Error(c.detail);
    const id = c.value.execution.id;
    // The mission runs on the manual clock; each check moves it a minute on.
    await waitFor(
      async () => {
        clock.advance(61_000);
        await ex.service.settle();
        return (await ex.service.get(id))?.status === 'completed';
      },
      { what: 'the mission to complete', intervalMs: 5 },
    );
    // 20 heartbeat intervals came due on the real network clock, and not one was sent.
    const ticks = ex.heartbeats!.ticks();
    await waitFor(() => ex.heartbeats!.ticks() >= ticks + 20, { what: '20 more heartbeat ticks', intervalMs: 10 });
    expect([fetches, requests, ex.heartbeats!.sent()]).toEqual([0, 0, 0]);
    expect(await ex.store.pendingCount()).toBe(4); // held in the outbox, undelivered
    // The control: the same device, once it may, does talk to the sequencer.
    await ex.setConsent('research_only');
    await waits.until(() => fetches > 0 && requests > 0, 'requests after opting in');
    await ex.close();
  });
});
