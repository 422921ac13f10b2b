// Group commit over real sockets: 200 clients posting at once share synced batches (fewer
// batches than events, by the sequencer's own metrics), every 201 is in the log at the seq it
// named with the same hash, and no seq is handed out twice. Also: a clean close while a batch is
// held in flight (the committer's stall hook) finishes it (each request gets an answer, the held
// batch's requests get 201, and every 201 is durable after reopen).
import { afterAll, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { openSequencer } from '../sequencer/app.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';

const devices = Array.from({ length: 10 }, (_, i) => deviceKey(100 + i));
const opened: TestSequencer[] = [];
afterAll(async () => {
  for (const t of opened) await rm(t.dir, { recursive: true, force: true });
});

async function postAll(url: string, log: string, events: CloudEvent[]) {
  return Promise.all(
    events.map(async (ce, i) => {
      try {
        const r = await fetch(`${url}${logPath(log, '/events')}`, {
          method: 'POST',
          headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `c-${i}-${ce.id}` },
          body: JSON.stringify(ce),
        });
        return { status: r.status, body: (await r.json()) as { seq: number; hash: string; eventHash: string } };
      } catch {
        return { status: 0, body: { seq: 0, hash: '', eventHash: '' } }; // refused or reset: never acknowledged
      }
    }),
  );
}

it('200 parallel POSTs share batches and every 201 is in the log', async () => {
  const t = await startSequencer({ devices, listen: true });
  opened.push(t);
  // 10 devices x 20 subjects, one event each: no ordering conflicts between concurrent requests
  const events = devices.flatMap((d) => Array.from({ length: 20 }, (_, j) => eventStream(d).next(`exec-${d.record.kid}-${j}`)));
  const res = await postAll(t.url!, t.log, events);
  expect(res.filter((r) => r.status !== 201).slice(0, 3)).toEqual([]);
  const batches = await t.seq.metrics.value('cookwala_batches_total', { log: t.log });
  expect(batches).toBeGreaterThan(0);
  expect(batches).toBeLessThan(events.length);
  const seqs = res.map((r) => r.body.seq);
  expect(new Set(seqs).size).toBe(events.length);
  expect(t.headSeq()).toBe(events.length);
  const store = t.seq.logs.get(t.log)!.store;
  for (const r of res) {
    const e = await store.getEntry(r.body.seq);
    expect(e?.hash).toBe(r.body.hash);
    expect(e?.eventHash).toBe(r.body.eventHash);
  }
  await t.close();
});

it('close() finishes in-flight requests; every 201 survives a reopen', async () => {
  const t = await startSequencer({ devices, listen: true });
  opened.push(t);
  const events = devices.flatMap((d) => Array.from({ length: 10 }, (_, j) => eventStream(d).next(`exec-${d.record.kid}-${j}`)));
  // Hold the second synced batch at the committer's stall hook: the first is durable and
  // answered, the second is planned and in flight when close() starts. No counter is polled.
  const c = t.seq.logs.get(t.log)!.committer;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let held!: (entries: number) => void;
  const secondBatch = new Promise<number>((r) => (held = r));
  c.hooks.beforeAppend = (batch, entries) => {
    if (batch !== 2) return undefined;
    held(entries);
    return gate;
  };
  const pending = postAll(t.url!, t.log, events);
  const inFlight = await secondBatch;
  const durable = c.stats.entries;
  expect(durable).toBeGreaterThan(0);
  expect(inFlight).toBeGreaterThan(0);
  const closed = t.seq.close();
  release();
  await closed;
  const res = await pending;
  const acked = res.filter((r) => r.status === 201);
  // every request got a definite answer: appended, refused while closing, or never connected
  for (const r of res) expect([0, 201, 503]).toContain(r.status);
  // the batch that was in flight when close() began was finished and answered, not dropped
  const ackedSeqs = new Set(acked.map((r) => r.body.seq));
  for (let s = 1; s <= durable + inFlight; s++) expect(ackedSeqs.has(s), `seq ${s} answered 201`).toBe(true);
  const re = await openSequencer(t.dir, { timers: false });
  try {
    const store = re.logs.get(t.log)!.store;
    for (const r of acked) expect((await store.getEntry(r.body.seq))?.hash).toBe(r.body.hash);
    expect(store.head().seq).toBeGreaterThanOrEqual(acked.length);
    // the final checkpoint was signed over the final durable head on close
    expect((await store.latestCheckpoint())?.seq).toBe(store.head().seq);
  } finally {
    await re.close();
  }
});
