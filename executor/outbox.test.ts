// Outbox delivery against an in-memory model of the sequencer's ingest rules ((source, id) dedup,
// per-subject cookwalaseq = last+1 else out_of_order with expected): at least once, in order per
// subject, consent gating (no request at all under `none`), withdrawal, retry with bounded
// exponential backoff on a manual clock, resend from `expected`, dead letters (and the time
// window's codes: signed_in_future retried, delivery_too_late dead), 413 halving.
import { afterAll, describe, expect, it } from 'vitest';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { backoffDelay } from './outbox.ts';
import type { BatchAnswer, EventResult, SequencerClient } from './sequencer-client.ts';
import { SIMPLE_BODY, testExecutor } from '../testkit/executor.ts';
import type { Executor } from './executor.ts';

const dirs = tempDirs('cookwala-exec-outbox-');
afterAll(() => dirs.cleanup());

interface FakeSequencer extends SequencerClient {
  log: CloudEvent[];
  calls: number;
  batches: number[];
  /** Hook per event: return a result to answer without the model (e.g. a lie or a refusal). */
  intercept?: (e: CloudEvent) => EventResult | undefined;
  down: boolean;
  whole?: BatchAnswer;
}

function fakeSequencer(): FakeSequencer {
  const ids = new Map<string, string>();
  const last = new Map<string, number>();
  const f: FakeSequencer = {
    log: [],
    calls: 0,
    batches: [],
    down: false,
    async postBatch(events) {
      f.calls++;
      if (f.down) throw new Error('connect ECONNREFUSED');
      if (f.whole) return f.whole;
      f.batches.push(events.length);
      const results = events.map((e): EventResult => {
        const hit = f.intercept?.(e);
        if (hit) return hit;
        const k = `${e.source} ${e.id}`;
        const body = JSON.stringify(e);
        if (ids.has(k)) return ids.get(k) === body ? { status: 200, seq: 0 } : { status: 409, code: 'duplicate_id_conflict' };
        if (typeof e.subject === 'string' && typeof e.cookwalaseq === 'number') {
          const l = last.get(e.subject);
          if (l !== undefined && e.cookwalaseq !== l + 1) return { status: 409, code: 'out_of_order', expected: l + 1 };
          last.set(e.subject, e.cookwalaseq);
        }
        ids.set(k, body);
        f.log.push(e);
        return { status: 201, seq: f.log.length };
      });
      return { kind: 'results', results };
    },
    async postHeartbeat() {
      f.calls++;
      return { status: 200 };
    },
    registerKey: async () => ({ status: 201 }),
    listKeys: async () => [],
  };
  return f;
}

/** An executor whose client is the fake (the real client is replaced through deps.fetch-free path). */
async function setup(opts: { consent?: 'none' | 'research_only' | 'open'; batchSize?: number } = {}) {
  const fake = fakeSequencer();
  const t = await testExecutor(await dirs.make(), {
    sequencerUrl: 'http://127.0.0.1:9',
    log: 'test/log',
    consent: opts.consent,
    heartbeatIntervalMs: 3_600_000,
    delivery: { batchSize: opts.batchSize ?? 100, baseBackoffMs: 1000, maxBackoffMs: 8000, random: () => 0.5 },
  });
  // Swap the transport: the delivery loop talks to the client through this object.
  Object.assign(t.ex.client as SequencerClient, { postBatch: fake.postBatch, postHeartbeat: fake.postHeartbeat });
  // Every wait below is on the delivery loop's own steps (testkit/executor.ts deliveryWaits), never a sleep.
  return { ...t, fake, until: t.waits.until };
}

async function mission(ex: Executor, key: string, path: Array<'preparing' | 'running' | 'completed' | 'paused'>) {
  const c = await ex.service.create(SIMPLE_BODY, key);
  if (!c.ok) throw new Error(c.detail);
  for (const to of path) {
    const r = await ex.service.change(c.value.execution.id, to);
    if (!r.ok) throw new Error(r.detail);
  }
  return c.value.execution.id;
}

const order = (log: CloudEvent[], subject: string) => log.filter((e) => e.subject === subject).map((e) => e.cookwalaseq);

describe('backoff', () => {
  it('doubles from the base, capped, with jitter in [d/2, d)', () => {
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelay(a, 100, 1000, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect(backoffDelay(2, 100, 1000, () => 0.999)).toBeLessThan(400);
    expect(backoffDelay(200, 100, 1000, () => 0.5)).toBe(750);
  });
});

describe('delivery', () => {
  it('consent none: nothing leaves, not even a request; opting in delivers everything in order', async () => {
    const { ex, fake, waits, until } = await setup();
    await ex.start();
    const a = await mission(ex, 'a', ['preparing', 'running', 'completed']);
    const b = await mission(ex, 'b', ['preparing']);
    // The loop looked at the outbox after the last write and found nothing it may send.
    const before = waits.count();
    ex.delivery!.wake();
    await until(() => waits.count() > before && waits.last()?.reason === 'idle', 'the loop to look and rest');
    expect(fake.calls).toBe(0);
    expect(await ex.store.pendingCount()).toBe(6);
    expect(ex.heartbeats).toBeDefined();
    expect(await ex.heartbeats!.beat()).toBeUndefined();
    expect(fake.calls).toBe(0);
    await ex.setConsent('research_only');
    await until(async () => (await ex.store.pendingCount()) === 0, 'drain');
    expect(order(fake.log, a)).toEqual([1, 2, 3, 4]);
    expect(order(fake.log, b)).toEqual([1, 2]);
    expect(fake.log.map((e) => e.id)).toEqual([`${a}.1`, `${a}.2`, `${a}.3`, `${a}.4`, `${b}.1`, `${b}.2`]);
    await ex.close();
  });

  it('retries after faults with exponential backoff on the clock, then delivers once', async () => {
    const { ex, fake, clock, waits, until } = await setup({ consent: 'research_only' });
    fake.down = true;
    await ex.start();
    const a = await mission(ex, 'a', ['preparing', 'running']);
    await until(() => fake.calls === 1 && waits.last()?.reason === 'backoff', 'first attempt');
    // waiting out the backoff on the clock (750 ms with this jitter), not spinning
    expect(waits.last()).toEqual({ reason: 'backoff', ms: 750 });
    const rested = waits.count();
    clock.advance(749); // the manual clock runs due timers now: the backoff is not due
    await ex.service.settle();
    expect(fake.calls).toBe(1);
    expect(waits.count()).toBe(rested);
    clock.advance(1);
    await until(() => fake.calls === 2, 'second attempt');
    clock.advance(1500); // second delay: base*2 -> 1500
    await until(() => fake.calls === 3, 'third attempt');
    expect(ex.delivery?.stats()).toMatchObject({ failures: 3, consecutiveFailures: 3, delivered: 0 });
    fake.down = false;
    clock.advance(3000);
    await until(async () => (await ex.store.pendingCount()) === 0, 'drain');
    expect(order(fake.log, a)).toEqual([1, 2, 3]);
    expect(ex.delivery?.stats()).toMatchObject({ delivered: 3, consecutiveFailures: 0 });
    await ex.close();
  });

  it('an event acknowledged but lost on the way: out_of_order -> resend from expected', async () => {
    const { ex, fake, until } = await setup({ consent: 'research_only', batchSize: 1 });
    let lied = false;
    fake.intercept = (e) => {
      if (!lied && e.cookwalaseq === 2) {
        lied = true;
        return { status: 201, seq: 99 }; // a middlebox answered for the sequencer and dropped it
      }
      return undefined;
    };
    const a = await mission(ex, 'a', ['preparing', 'running', 'completed']);
    await ex.start();
    await until(async () => (await ex.store.pendingCount()) === 0 && fake.log.length === 4, 'recovery');
    expect(order(fake.log, a)).toEqual([1, 2, 3, 4]);
    expect(ex.delivery?.stats().requeued).toBe(1);
    expect(ex.delivery?.stats().deadLetters).toBe(0);
    await ex.close();
  });

  it('a middlebox that always loses one event: resends, but backs off instead of spinning', async () => {
    const { ex, fake, clock, waits, until } = await setup({ consent: 'research_only' });
    fake.intercept = (e) => (e.cookwalaseq === 2 ? { status: 201, seq: 0 } : undefined); // never forwarded
    await ex.start();
    const a = await mission(ex, 'a', ['preparing', 'running']);
    await until(() => (ex.delivery?.stats().failures ?? 0) >= 1 && waits.last()?.reason === 'backoff', 'backoff');
    const calls = fake.calls;
    expect(waits.last()?.reason).toBe('backoff'); // waiting on the clock, not looping
    await ex.service.settle();
    expect(fake.calls).toBe(calls);
    expect(ex.delivery!.stats().requeued).toBe(4);
    expect(order(fake.log, a)).toEqual([1]);
    fake.intercept = undefined; // the middlebox is fixed
    clock.advance(10_000);
    await until(async () => (await ex.store.pendingCount()) === 0 && fake.log.length === 3, 'delivery');
    expect(order(fake.log, a)).toEqual([1, 2, 3]);
    await ex.close();
  });

  it('a refusal that can never succeed becomes a dead letter; a regression too', async () => {
    const { ex, fake, until } = await setup({ consent: 'research_only' });
    fake.intercept = (e) => (e.id.endsWith('.2') ? { status: 403, code: 'source_mismatch', detail: 'x' } : undefined);
    await ex.start();
    const a = await mission(ex, 'a', ['preparing']);
    await until(async () => (await ex.store.pendingCount()) === 0, 'settled');
    const dead = await ex.store.deadLetters();
    expect(dead.map((d) => [d.event.id, d.code])).toEqual([[`${a}.2`, 'source_mismatch']]);
    expect(await ex.store.isPending(a, 2)).toBe('dead');
    // Its successor can only be out of order now, and is blocked rather than looping forever.
    fake.intercept = undefined;
    await ex.service.change(a, 'running');
    await until(async () => (await ex.store.deadLetters()).length === 2, 'blocked successor');
    expect((await ex.store.deadLetters())[1]).toMatchObject({ code: 'out_of_order' });
    expect((await ex.store.deadLetters())[1].detail).toContain('dead letter');
    // A regression (the sequencer already went past this seq under other ids) is dead too.
    const b = await mission(ex, 'b', []);
    fake.intercept = (e) => (e.subject === b ? { status: 409, code: 'out_of_order', expected: 5 } : undefined);
    await ex.service.change(b, 'preparing');
    await until(async () => (await ex.store.deadLetters()).length === 4, 'regressions');
    expect(order(fake.log, a)).toEqual([1]);
    await ex.close();
  });

  it("signed_in_future (the device clock ahead of the sequencer's) is retried, never dead; delivery_too_late is a dead letter", async () => {
    const { ex, fake, clock, waits, until } = await setup({ consent: 'research_only' });
    let ahead = true;
    fake.intercept = () => (ahead ? { status: 422, code: 'signed_in_future', detail: 'ahead' } : undefined);
    await ex.start();
    const a = await mission(ex, 'a', ['preparing']);
    await until(() => fake.calls === 1 && waits.last()?.reason === 'backoff', 'refused, backing off');
    expect(await ex.store.deadLetters()).toEqual([]);
    expect(await ex.store.pendingCount()).toBe(2);
    ahead = false; // the sequencer's clock caught up
    clock.advance(1000);
    await until(async () => (await ex.store.pendingCount()) === 0, 'drain');
    expect(order(fake.log, a)).toEqual([1, 2]);
    fake.intercept = () => ({ status: 422, code: 'delivery_too_late', detail: 'late' });
    const b = await mission(ex, 'b', ['preparing']);
    await until(async () => (await ex.store.deadLetters()).length === 2, 'dead letters');
    expect((await ex.store.deadLetters()).map((d) => [d.event.subject, d.code])).toEqual([
      [b, 'delivery_too_late'],
      [b, 'delivery_too_late'],
    ]);
    await ex.close();
  });

  it('a batch too large for the sequencer is halved', async () => {
    const { ex, fake, until } = await setup({ consent: 'research_only', batchSize: 8 });
    // Final before start (start() fails executions a restart interrupted): 3 x 4 events.
    for (let i = 0; i < 3; i++) await mission(ex, `m${i}`, ['preparing', 'running', 'completed']);
    fake.whole = { kind: 'error', status: 413, code: 'body_too_large', detail: 'too big' };
    const seen: number[] = [];
    const orig = fake.postBatch;
    fake.postBatch = async (evs) => {
      seen.push(evs.length);
      if (evs.length <= 2) fake.whole = undefined;
      return orig(evs);
    };
    Object.assign(ex.client as SequencerClient, { postBatch: fake.postBatch });
    await ex.start();
    await until(async () => (await ex.store.pendingCount()) === 0, 'drain');
    expect(seen.slice(0, 3)).toEqual([8, 4, 2]);
    expect(fake.log.length).toBe(12);
    await ex.close();
  });

  it('withdrawing consent sends only the withdrawal; pending events stay local; old executions never leave', async () => {
    const { ex, fake, clock, waits, until } = await setup({ consent: 'research_only' });
    fake.down = true;
    await ex.start();
    const a = await mission(ex, 'a', ['preparing', 'running']);
    await until(() => fake.calls >= 1, 'an attempt');
    expect(await ex.withdrawConsent()).toBe(true);
    expect(await ex.withdrawConsent()).toBe(false);
    expect(ex.store.consent()).toEqual({ dataset: 'none', epoch: 1 });
    fake.down = false;
    clock.advance(10_000); // end the backoff
    await until(async () => fake.log.length === 1 && (await ex.store.pendingCount()) === 0, 'the withdrawal');
    expect(fake.log[0]).toMatchObject({ type: 'cookwala.consent.withdrawn', data: { previous: 'research_only' } });
    // The old execution goes on, locally; a new one is held while consent is none.
    await ex.service.change(a, 'completed');
    const b = await mission(ex, 'b', ['preparing']);
    const before = waits.count();
    ex.delivery!.wake();
    await until(() => waits.count() > before && waits.last()?.reason === 'idle', 'the loop to look and rest');
    expect(fake.log.length).toBe(1);
    expect(await ex.store.events(a)).toHaveLength(4);
    for (const s of [1, 3, 4]) expect(await ex.store.isPending(a, s)).toBe('local');
    expect(await ex.store.isPending(b, 2)).toBe('pending');
    // Consent given again: the new execution's events leave, the old execution's never do.
    await ex.setConsent('research_only');
    await until(() => fake.log.length === 3, 'the new execution');
    expect(fake.log.slice(1).map((e) => [e.subject, e.cookwalaseq])).toEqual([
      [b, 1],
      [b, 2],
    ]);
    expect(await ex.store.requeue(a, 1, 5)).toBe(0);
    await ex.close();
  });
});
