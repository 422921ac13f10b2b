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
import type { Signature } from '../verifier/documents/signature.ts';
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

/**
 * A store whose next append write waits for release(), and which says when the committer hands it
 * its n-th append (the committer does not wait for one group's write to plan the next).
 */
async function heldStore() {
  let gate: Promise<void> | undefined;
  let open!: () => void;
  const hold = () => void (gate = new Promise<void>((r) => (open = r)));
  hold();
  const store = await newStore({
    beforeWrite: (k) => {
      if (k !== 'append' || !gate) return;
      const g = gate;
      gate = undefined;
      return g;
    },
  });
  const calls: number[] = [];
  const waiters: Array<{ n: number; resolve(): void }> = [];
  const append = store.append.bind(store);
  store.append = (items) => {
    calls.push(items.length);
    for (const w of waiters.splice(0))
      if (calls.length >= w.n) w.resolve();
      else waiters.push(w);
    return append(items);
  };
  const handed = (n: number) => (calls.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })));
  return { store, calls, release: () => open(), handed };
}

it('hands the next group to the store while one is being written, and answers both in order', async () => {
  const { store, calls, release, handed } = await heldStore();
  const c = createCommitter({ store, log: LOG, clock: createManualClock() });
  const first = c.submit([ev('p1'), ev('p2')]);
  await handed(1);
  const second = c.submit([ev('p3')]);
  const third = c.submit([ev('p4', 's', 1), ev('p5', 's', 2)]);
  await handed(2); // the first write is still held
  expect(store.head().seq).toBe(0);
  release();
  const outs = [...(await first), ...(await second), ...(await third)];
  expect(outs.map((o) => o.ok && o.status === 201 && o.seq)).toEqual([1, 2, 3, 4, 5]);
  expect(calls).toEqual([2, 3]); // the second and third submits were one group
  expect(store.head().seq).toBe(5);
  expect(await store.lastSubjectSeq('s')).toBe(2);
  for (let s = 1; s <= 5; s++) expect(verifyEntryHash((await store.getEntry(s))!)).toEqual({ ok: true, value: true });
});

it('judges again, in order, the groups refused because one before them repeated an id in flight', async () => {
  const { store, release, handed } = await heldStore();
  const c = createCommitter({ store, log: LOG, clock: createManualClock() });
  const first = c.submit([ev('w')]);
  await handed(1); // its write is held
  // 'w' again (a retry while the first is in flight): the committer cannot know, so the store
  // refuses that group (duplicate_id) and the group planned on top of it (chain_broken); both are
  // judged again on the durable head, in order.
  const dup = c.submit([ev('w'), ev('q1')]);
  await handed(2);
  const next = c.submit([ev('q2', 'k', 1)]);
  await handed(3);
  release();
  const [w] = await first;
  const [d, q1] = await dup;
  const [q2] = await next;
  expect(w).toMatchObject({ ok: true, status: 201, seq: 1 });
  expect(d).toMatchObject({ ok: true, status: 200, seq: 1 });
  expect(q1).toMatchObject({ ok: true, status: 201, seq: 2 });
  expect(q2).toMatchObject({ ok: true, status: 201, seq: 3 });
  expect(store.head().seq).toBe(3);
  expect(await store.lastSubjectSeq('k')).toBe(1);
});

it('a failed write with a group behind it in flight: both answered internal_error, onFatal once', async () => {
  let fail = false;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const store = await newStore({
    beforeWrite: (k) => (k === 'append' && fail ? held : undefined),
    afterWrite: (k) => {
      if (fail && k === 'append') throw new Error('disk on fire');
    },
  });
  const fatal: unknown[] = [];
  const c = createCommitter({ store, log: LOG, clock: createManualClock(), onFatal: (e) => fatal.push(e) });
  await c.submit([ev('fine')]);
  fail = true;
  const seen: number[] = [];
  const append = store.append.bind(store);
  let second!: () => void;
  const handedTwo = new Promise<void>((r) => (second = r));
  store.append = (items) => {
    seen.push(items.length);
    if (seen.length === 2) second();
    return append(items);
  };
  const a = c.submit([ev('f1')]);
  const b = c.submit([ev('f2'), ev('f3')]);
  const later = new Promise<void>((r) => setImmediate(r)).then(() => c.submit([ev('f4')]));
  await handedTwo;
  release();
  const outs = [...(await a), ...(await b), ...(await later)];
  expect(outs.every((o) => !o.ok && o.code === 'internal_error')).toBe(true);
  expect(fatal).toHaveLength(1);
  expect((fatal[0] as Error).message).toContain('disk on fire');
  expect(store.head().seq).toBe(1);
});

it('keeps per-subject order for groups in flight when the subject cache evicts them', async () => {
  const { store, release, handed } = await heldStore();
  const c = createCommitter({ store, log: LOG, clock: createManualClock(), subjectCacheMax: 1 });
  const g1 = c.submit([ev('s1', 'S', 1)]);
  await handed(1);
  const g2 = c.submit([ev('t1', 'T', 1)]); // evicts S from the cache while S:1 is not yet durable
  await handed(2);
  const g3 = c.submit([ev('s1-again', 'S', 1)]); // another event claiming S:1
  const g4 = c.submit([ev('s2', 'S', 2)]);
  release();
  expect((await g1)[0]).toMatchObject({ ok: true, seq: 1 });
  expect((await g2)[0]).toMatchObject({ ok: true, seq: 2 });
  const [r3, r4] = [(await g3)[0], (await g4)[0]];
  // g3 and g4 are one group: S:1 again is out of order, S:2 follows the S:1 in flight
  expect(r3).toMatchObject({ ok: false, code: 'out_of_order', expected: 2 });
  expect(r4).toMatchObject({ ok: true, status: 201, seq: 3 });
  expect(await store.lastSubjectSeq('S')).toBe(2);
});
