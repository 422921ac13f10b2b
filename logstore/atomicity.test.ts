// Crash consistency with a fault-injecting write path: a failure before the batch reaches LevelDB
// changes nothing anywhere; a failure after it landed leaves memory as it was, poisons the store
// (store_failed) so nothing is written on a stale head, and a reopen shows the whole batch.
import { describe, expect, it } from 'vitest';
import { createMemoryTree, hashLeaf, verifyInclusion } from '../verifier/merkle/index.ts';
import { entryLeaf } from '../verifier/documents/entry.ts';
import { formatHash, parseHash } from '../verifier/encoding/wire.ts';
import { ProtocolError } from '../verifier/errors.ts';
import { type FaultHooks, type LogStore, type WriteKind } from './index.ts';
import { TEST_LOG, T0, dirContains, itemFor, secret, makeCheckpoint, makeEvent, makeItems, sequencerSigner } from '../testkit/logstore.ts';
import { useStores } from '../testkit/logstore-stores.ts';

const stores = useStores();

class Injected extends Error {}

/** Throws once at the chosen point for the chosen write kind, then behaves. */
function faultOnce(point: 'before' | 'after', kind: WriteKind): FaultHooks & { armed: boolean } {
  const h = {
    armed: false,
    beforeWrite(k: WriteKind) {
      if (h.armed && point === 'before' && k === kind) {
        h.armed = false;
        throw new Injected(`before ${k}`);
      }
    },
    afterWrite(k: WriteKind) {
      if (h.armed && point === 'after' && k === kind) {
        h.armed = false;
        throw new Injected(`after ${k}`);
      }
    },
  };
  return h;
}

const fresh = (faults: FaultHooks, mode: 'full' | 'hash_only' = 'hash_only') => stores.fresh({ faults, mode, items: 7 });
const reopen = (s: LogStore) => stores.reopen(s);

/** Every entry chains, the head root is the reference root of all entries, and a proof verifies. */
async function assertConsistent(s: LogStore): Promise<void> {
  const mem = createMemoryTree();
  let prev = s.descriptor()!.hash;
  let n = 0;
  for await (const e of s.entries(1, s.head().seq)) {
    expect(e.seq).toBe(++n);
    expect(e.prev).toBe(prev);
    prev = e.hash;
    mem.append(hashLeaf(entryLeaf(e)));
  }
  const head = s.head();
  expect(n).toBe(head.seq);
  expect(head.hash).toBe(prev);
  expect(head.root).toBe(formatHash(mem.root()));
  const raw = (h: string) => (parseHash(h) as { value: Uint8Array }).value;
  const last = (await s.getEntry(head.seq))!;
  const p = await s.inclusionProof(head.seq, head.seq);
  expect(verifyInclusion(hashLeaf(entryLeaf(last)), head.seq - 1, head.seq, p.map(raw), raw(head.root)).ok).toBe(true);
}

describe('faults before the write', () => {
  it('append: rejected, nothing on disk, memory unchanged, the store goes on', async () => {
    const f = faultOnce('before', 'append');
    const s = await fresh(f);
    const head = s.head();
    const items = makeItems(TEST_LOG, head, 5);
    f.armed = true;
    await expect(s.append(items)).rejects.toBeInstanceOf(Injected);
    expect(s.head()).toEqual(head);
    expect(await s.getEntry(8)).toBeUndefined();
    expect(await s.lookupId('urn:dev:oven-1', 'ev-8')).toBeUndefined();
    expect(await s.append(items)).toMatchObject({ seq: 12 }); // same items land now
    await assertConsistent(s);
    const t = await reopen(s);
    expect(t.head().seq).toBe(12);
    await assertConsistent(t);
  });

  it('checkpoint and erasure: rejected and nothing changed', async () => {
    const f = faultOnce('before', 'checkpoint');
    const s = await fresh(f);
    const cp = makeCheckpoint(TEST_LOG, 7, s.head().hash, s.head().root);
    f.armed = true;
    await expect(s.putCheckpoint(cp)).rejects.toBeInstanceOf(Injected);
    expect(await s.latestCheckpoint()).toBeUndefined();

    const g = faultOnce('before', 'erase');
    const s2 = await fresh(g);
    const e = (await s2.getEntry(3))!;
    const head = s2.head();
    const ce = makeEvent('erase-3', { source: 'urn:cookwala:sequencer', type: 'cookwala.log.erased', data: { seq: 3 } });
    g.armed = true;
    await expect(
      s2.erasePayload(3, { seq: 3, eventHash: e.eventHash, reason: 'r', erasedAt: T0 }, itemFor(TEST_LOG, head, ce, sequencerSigner())),
    ).rejects.toBeInstanceOf(Injected);
    expect(s2.head()).toEqual(head);
    expect(await s2.getPayload(3)).toHaveProperty('event');
    await assertConsistent(await reopen(s2));
  });

  it('a refused item in the middle of a batch writes none of the batch', async () => {
    const s = await fresh({});
    const head = s.head();
    const items = makeItems(TEST_LOG, head, 6);
    const bad = { ...items[3], payload: { ...items[3].payload!, data: { n: 10n } } }; // BigInt has no JSON form
    expect(await s.append([...items.slice(0, 3), bad, ...items.slice(4)]).catch((e: ProtocolError) => e.code)).toBe('invalid_event');
    expect(s.head()).toEqual(head);
    expect(await s.getEntry(8)).toBeUndefined();
    await assertConsistent(await reopen(s));
  });
});

describe('faults after the write', () => {
  it('append: rejected, memory unchanged, further writes refused (store_failed), reopen shows the batch whole', async () => {
    const f = faultOnce('after', 'append');
    const s = await fresh(f);
    const head = s.head();
    const items = makeItems(TEST_LOG, head, 5);
    f.armed = true;
    await expect(s.append(items)).rejects.toBeInstanceOf(Injected);
    expect(s.head()).toEqual(head);
    // building on the stale head would overwrite the landed batch: refused
    const stale = makeItems(TEST_LOG, head, 2, { prefix: 'stale-' });
    expect(await s.append(stale).catch((e: ProtocolError) => e.code)).toBe('store_failed');
    expect(await s.putCheckpoint(makeCheckpoint(TEST_LOG, 7, head.hash, head.root)).catch((e: ProtocolError) => e.code)).toBe(
      'store_failed',
    );
    const t = await reopen(s);
    expect(t.head().seq).toBe(12);
    expect(t.head().hash).toBe(items[4].entry.hash);
    expect(await t.lookupId('urn:dev:oven-1', 'ev-12')).toMatchObject({ seq: 12 });
    await assertConsistent(t);
    expect(await t.append(makeItems(TEST_LOG, t.head(), 2))).toMatchObject({ seq: 14 });
    await assertConsistent(t);
  });

  it('erase: the wipe a crash cut short is redone at open; payload bytes gone, erased entry there', async () => {
    const f = faultOnce('after', 'erase');
    const s = await fresh(f);
    const mark = secret();
    await s.append([itemFor(TEST_LOG, s.head(), makeEvent('personal', { data: { note: mark } }), sequencerSigner())]);
    const e = (await s.getEntry(8))!;
    const ce = makeEvent('erase-8', { source: 'urn:cookwala:sequencer', type: 'cookwala.log.erased', data: { seq: 8 } });
    f.armed = true;
    await expect(
      s.erasePayload(8, { seq: 8, eventHash: e.eventHash, reason: 'r', erasedAt: T0 }, itemFor(TEST_LOG, s.head(), ce, sequencerSigner())),
    ).rejects.toBeInstanceOf(Injected);
    expect(s.head().seq).toBe(8);
    expect(dirContains(s.dir, Buffer.from(mark))).toBe(true); // the fault came before the compaction
    const t = await stores.reopen(s);
    expect(t.head().seq).toBe(9);
    expect(await t.getPayload(8)).toMatchObject({ erased: { seq: 8, erasureSeq: 9 } });
    expect(dirContains(t.dir, Buffer.from(mark))).toBe(false);
    await assertConsistent(t);
  });
});
