// Group commit on a real store: concurrent submits share synced batches; dedup and per-subject
// order are judged against the store AND the items already accepted into the same group; a failed
// write answers internal_error to every waiter, calls onFatal and refuses further work; exclusive
// work runs between groups; sequencedAt never goes backwards; close() drains then refuses; device
// signatures reach the store in the member order of its compact entry form.
import { afterAll, afterEach, expect, it } from 'vitest';
import { openLogStore, type LogStore } from '../logstore/index.ts';
import { createCommitter, storedOrder, type Candidate } from './committer.ts';
import { encodeEntry } from '../logstore/entry-codec.ts';
import { verifyEntryHash } from '../verifier/documents/entry.ts';
import type { Signature } from '../verifier/signing/signature.ts';
import { createManualClock } from '../testkit/clock.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { deviceKey } from '../testkit/keys.ts';
import { makeEvent, signed } from '../testkit/events.ts';
import { buildLogDescriptor } from '../verifier/documents/log-descriptor.ts';
import { decodeCookwalasig, eventHash, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { signerKey } from '../testkit/keys.ts';
import type { FaultHooks } from '../logstore/index.ts';

const LOG = 'test.example/committer';
const dev = deviceKey(1);
const seqKey = signerKey('c', 'sequencer');
const tmp = tempDirs();
const stores: LogStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => undefined);
});
afterAll(() => tmp.cleanup());

async function newStore(faults?: FaultHooks): Promise<LogStore> {
  const s = await openLogStore(await tmp.make(), { faults });
  await s.init(buildLogDescriptor({ log: LOG, mode: 'hash_only', createdAt: '2026-11-30T09:00:00.000Z' }, seqKey.signer));
  stores.push(s);
  return s;
}

function cand(ce: CloudEvent): Candidate {
  const s = signed(ce, dev);
  const h = eventHash(s);
  const sig = decodeCookwalasig(s.cookwalasig!);
  if (!h.ok || !sig.ok) throw new Error();
  return { ce: s, eventHash: h.value, signature: sig.value };
}
const ev = (id: string, subject?: string, cookwalaseq?: number, data: unknown = { id }) =>
  cand(makeEvent({ source: dev.owner, id, subject, cookwalaseq, data }));

it('concurrent submits share batches and get consecutive seqs in submission order', async () => {
  const store = await newStore();
  const c = createCommitter({ store, log: LOG, clock: createManualClock() });
  const outs = await Promise.all(Array.from({ length: 50 }, (_, i) => c.submit([ev(`e${i}`)])));
  expect(outs.map((o) => o[0].ok && o[0].seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  expect(c.stats.batches).toBeLessThanOrEqual(3);
  expect(c.stats.entries).toBe(50);
  expect(store.head().seq).toBe(50);
});

it('judges dedup and order against the store and within one group', async () => {
  const store = await newStore();
  const c = createCommitter({ store, log: LOG, clock: createManualClock() });
  await c.submit([ev('a', 's', 1)]);
  const [same, other, next, gap, twin, twinConflict, afterNext] = await c.submit([
    ev('a', 's', 1), // already stored, same hash
    ev('a', 's', 1, { changed: true }), // already stored, other hash
    ev('b', 's', 2),
    ev('c', 's', 4), // gap after the in-group 2
    ev('b', 's', 2), // twin of an item in this group
    ev('b', 's', 2, { other: 1 }),
    ev('d', 's', 3),
  ]);
  expect(same).toMatchObject({ ok: true, status: 200, seq: 1 });
  expect(other).toMatchObject({ ok: false, code: 'duplicate_id_conflict', seq: 1 });
  expect(next).toMatchObject({ ok: true, status: 201, seq: 2 });
  expect(gap).toMatchObject({ ok: false, code: 'out_of_order', expected: 3 });
  expect(twin).toMatchObject({ ok: true, status: 200, seq: 2 });
  expect(twinConflict).toMatchObject({ ok: false, code: 'duplicate_id_conflict' });
  expect(afterNext).toMatchObject({ ok: true, status: 201, seq: 3 });
  expect(store.head().seq).toBe(3);
  expect(await store.lastSubjectSeq('s')).toBe(3);
});

it('a failed write answers internal_error to every waiter, calls onFatal, and refuses further work', async () => {
  let fail = false;
  const store = await newStore({
    afterWrite: (k) => {
      if (fail && k === 'append') throw new Error('disk on fire');
    },
  });
  const fatal: unknown[] = [];
  const c = createCommitter({ store, log: LOG, clock: createManualClock(), onFatal: (e) => fatal.push(e) });
  await c.submit([ev('ok')]);
  fail = true;
  const outs = await Promise.all([c.submit([ev('x1')]), c.submit([ev('x2'), ev('x3')])]);
  expect(outs.flat().every((o) => !o.ok && o.code === 'internal_error')).toBe(true);
  expect(fatal).toHaveLength(1);
  fail = false;
  expect((await c.submit([ev('x4')]))[0]).toMatchObject({ ok: false, code: 'internal_error' });
  await expect(c.exclusive(async () => 1)).rejects.toMatchObject({ code: 'internal_error' });
});

it('runs exclusive work between groups, with next() building the following entry', async () => {
  const store = await newStore();
  const clock = createManualClock();
  const c = createCommitter({ store, log: LOG, clock });
  const first = c.submit([ev('g1')]);
  const ex = c.exclusive(async (next) => {
    const item = await next(ev('own'));
    expect(item.entry.seq).toBe(store.head().seq + 1);
    return store.append([item]);
  });
  const later = c.submit([ev('g2')]);
  await first;
  expect((await ex).seq).toBe(2);
  expect((await later)[0]).toMatchObject({ ok: true, seq: 3 });
  await expect(
    c.exclusive(async () => {
      throw new Error('programmer error');
    }),
  ).rejects.toThrow('programmer error');
});

it('never lets sequencedAt go backwards, and refuses work once closed', async () => {
  const store = await newStore();
  const clock = createManualClock();
  const c = createCommitter({ store, log: LOG, clock });
  await c.submit([ev('t1')]);
  clock.advance(-60_000);
  await c.submit([ev('t2')]);
  const [e1, e2] = [await store.getEntry(1), await store.getEntry(2)];
  expect(e2!.sequencedAt >= e1!.sequencedAt).toBe(true);
  // a fresh committer on the same store picks the last sequencedAt up from the head entry
  const c2 = createCommitter({ store, log: LOG, clock });
  await c2.submit([ev('t3')]);
  expect((await store.getEntry(3))!.sequencedAt >= e2!.sequencedAt).toBe(true);
  const pending = c2.submit([ev('t4')]);
  await c2.close();
  expect((await pending)[0]).toMatchObject({ ok: true, seq: 4 });
  expect((await c2.submit([ev('t5')]))[0]).toMatchObject({ ok: false, code: 'shutting_down' });
});

it('answers a stored duplicate among new events from the index (the store refuses, the group is judged again)', async () => {
  const store = await newStore();
  const c = createCommitter({ store, log: LOG, clock: createManualClock() });
  await c.submit([ev('old')]);
  const [fresh1, dup, fresh2] = await c.submit([ev('n1'), ev('old'), ev('n2')]);
  expect(fresh1).toMatchObject({ ok: true, status: 201, seq: 2 });
  expect(dup).toMatchObject({ ok: true, status: 200, seq: 1 });
  expect(fresh2).toMatchObject({ ok: true, status: 201, seq: 3 });
  expect(store.head().seq).toBe(3);
});

it('keeps per-subject order right when the subject cache evicts', async () => {
  const store = await newStore();
  const c = createCommitter({ store, log: LOG, clock: createManualClock(), subjectCacheMax: 2 });
  for (const s of ['a', 'b', 'c', 'd']) expect((await c.submit([ev(`${s}1`, s, 1)]))[0].ok).toBe(true);
  // 'a' was evicted: its last seq is read from the store again
  expect((await c.submit([ev('a3', 'a', 3)]))[0]).toMatchObject({ ok: false, code: 'out_of_order', expected: 2 });
  expect((await c.submit([ev('a2', 'a', 2)]))[0]).toMatchObject({ ok: true, status: 201 });
  expect((await c.submit([ev('d2', 'd', 2), ev('d3', 'd', 3)])).every((o) => o.ok)).toBe(true);
  // a fresh committer (restart) reads every subject from the store
  const c2 = createCommitter({ store, log: LOG, clock: createManualClock() });
  expect((await c2.submit([ev('d9', 'd', 9)]))[0]).toMatchObject({ ok: false, code: 'out_of_order', expected: 4 });
});

it("hands the store each device signature in its compact entry form's member order, hash unchanged", async () => {
  const store = await newStore();
  const c = createCommitter({ store, log: LOG, clock: createManualClock() });
  const cd = ev('compact', 's-compact', 1);
  expect(Object.keys(cd.signature)).toEqual(['alg', 'kid', 'sig', 'signedAt']); // JCS order, as decoded
  const [o] = await c.submit([cd]);
  expect(o.ok).toBe(true);
  const e = (await store.getEntry(1))!;
  expect(Object.keys(e.eventSignature)).toEqual(['alg', 'kid', 'signedAt', 'sig']);
  expect(encodeEntry(e)[0]).toBe(0x01); // the binary form, not JSON text ('{')
  expect(e.eventSignature).toEqual(cd.signature);
  expect(verifyEntryHash(e)).toEqual({ ok: true, value: true });
  expect(o.ok && o.hash).toBe(e.hash);
  // Other member sets are handed over as they are.
  const odd = { ...cd.signature, 'x-v-note': 'n' } as unknown as Signature;
  expect(storedOrder(odd)).toBe(odd);
  expect(storedOrder(e.eventSignature)).toBe(e.eventSignature);
});
