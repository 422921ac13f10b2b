// Group commit: concurrent appends share one synced batch, and each keeps its own outcome.
import { describe, expect, it } from 'vitest';
import { createMemoryTree, hashLeaf } from '../verifier/merkle/index.ts';
import { entryLeaf } from '../verifier/documents/entry.ts';
import { formatHash } from '../verifier/encoding/wire.ts';
import { ProtocolError } from '../verifier/errors.ts';
import { type AppendItem, type LogStore, type WriteKind } from './index.ts';
import { TEST_LOG, deviceSigner, itemFor, makeEvent, makeItems } from '../testkit/logstore.ts';
import { useStores } from '../testkit/logstore-stores.ts';

const stores = useStores();

type Hook = (k: WriteKind) => void | Promise<void>;

async function fresh(hooks: { before?: Hook; after?: Hook } = {}): Promise<{ s: LogStore; batches: () => number }> {
  let n = 0;
  const s = await stores.fresh({
    faults: {
      beforeWrite: async (k) => {
        if (k === 'append') n++;
        await hooks.before?.(k);
      },
      afterWrite: (k) => hooks.after?.(k),
    },
  });
  return { s, batches: () => n };
}

/** A hook that holds the first append batch until released, then runs `then`. */
/** Hold the first batch at the append gate; `reached` resolves when it is held (an event, not a poll). */
function holdFirst(then: () => void = () => undefined): { hook: Hook; release: () => void; reached: Promise<void> } {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let reachedGate!: () => void;
  const reached = new Promise<void>((r) => (reachedGate = r));
  let held = false;
  return {
    hook: async (k) => {
      if (k === 'append' && !held) {
        held = true;
        reachedGate();
        await gate;
        then();
      }
    },
    release,
    reached,
  };
}

const tip = (items: AppendItem[]) => ({ seq: items[items.length - 1].entry.seq, hash: items[items.length - 1].entry.hash });

async function assertTree(s: LogStore): Promise<void> {
  const mem = createMemoryTree();
  let prev = s.descriptor()!.hash;
  for await (const e of s.entries(1, s.head().seq)) {
    expect(e.prev).toBe(prev);
    prev = e.hash;
    mem.append(hashLeaf(entryLeaf(e)));
  }
  expect(s.head().root).toBe(formatHash(mem.root()));
}

describe('group commit', () => {
  it('appends issued together land in one batch, each answered with the head after its own items', async () => {
    const { s, batches } = await fresh();
    await s.append(makeItems(TEST_LOG, s.head(), 2));
    const before = batches();
    const a = makeItems(TEST_LOG, s.head(), 3, { prefix: 'a-' });
    const b = makeItems(TEST_LOG, tip(a), 4, { prefix: 'b-' });
    const c = makeItems(TEST_LOG, tip(b), 1, { prefix: 'c-' });
    const heads = await Promise.all([s.append(a), s.append(b), s.append([]), s.append(c)]);
    expect(batches() - before).toBe(1);
    expect(heads.map((h) => h.seq)).toEqual([5, 9, 9, 10]);
    expect(heads[1].hash).toBe(b[3].entry.hash);
    expect(heads[3]).toEqual(s.head());
    await assertTree(s);
  });

  it('a refused append is refused alone; later ones chain as if it had never been asked', async () => {
    const { s, batches } = await fresh();
    const h0 = s.head();
    const a = makeItems(TEST_LOG, h0, 2, { prefix: 'a-' });
    const bad = makeItems(TEST_LOG, { seq: 2, hash: 'sha256:' + '00'.repeat(32) }, 2, { prefix: 'bad-' });
    const onBad = makeItems(TEST_LOG, tip(bad), 1, { prefix: 'onbad-' });
    const onA = makeItems(TEST_LOG, tip(a), 2, { prefix: 'ona-' });
    const r = await Promise.allSettled([s.append(a), s.append(bad), s.append(onBad), s.append(onA)]);
    expect(r.map((x) => (x.status === 'fulfilled' ? x.value.seq : ((x as PromiseRejectedResult).reason as ProtocolError).code))).toEqual([
      2,
      'chain_broken',
      'chain_broken',
      4,
    ]);
    expect(batches()).toBe(1);
    expect((await s.getEntry(3))!.ce.id).toBe('ona-3');
    await assertTree(s);
  });

  it('duplicates across the group and against the store are refused; the rest is re-planned and lands', async () => {
    const { s } = await fresh();
    const dev = deviceSigner();
    const first = itemFor(TEST_LOG, s.head(), makeEvent('dup-stored'), dev);
    await s.append([first]);
    const x = itemFor(TEST_LOG, s.head(), makeEvent('x-1'), dev);
    const stored = itemFor(TEST_LOG, tip([x]), makeEvent('dup-stored', { data: 'other' }), dev);
    const y = itemFor(TEST_LOG, tip([x]), makeEvent('y-1'), dev);
    const yAgain = itemFor(TEST_LOG, tip([y]), makeEvent('y-1', { data: 'again' }), dev);
    const z = itemFor(TEST_LOG, tip([y]), makeEvent('z-1'), dev);
    const r = await Promise.allSettled([s.append([x]), s.append([stored]), s.append([y]), s.append([yAgain]), s.append([z])]);
    const got = r.map((v) => (v.status === 'fulfilled' ? v.value.seq : ((v as PromiseRejectedResult).reason as ProtocolError)));
    expect(got[0]).toBe(2);
    expect((got[1] as ProtocolError).code).toBe('duplicate_id');
    expect((got[1] as ProtocolError).extra).toMatchObject({ seq: 1, eventHash: first.entry.eventHash });
    expect(got[2]).toBe(3);
    expect((got[3] as ProtocolError).code).toBe('duplicate_id');
    expect(got[4]).toBe(4);
    expect(await s.lookupId('urn:dev:oven-1', 'dup-stored')).toEqual({ seq: 1, eventHash: first.entry.eventHash });
    expect(await s.lookupId('urn:dev:oven-1', 'y-1')).toMatchObject({ seq: 3 });
    await assertTree(s);
  });

  it('appends arriving while a batch is on its way to disk are planned on it and land right after it', async () => {
    const h = holdFirst();
    const { s, batches } = await fresh({ before: h.hook });
    const a = makeItems(TEST_LOG, s.head(), 2, { prefix: 'a-' });
    const b = makeItems(TEST_LOG, tip(a), 2, { prefix: 'b-' });
    const c = makeItems(TEST_LOG, tip(b), 2, { prefix: 'c-' });
    const pa = s.append(a);
    await h.reached; // a's batch waits at the gate
    const pb = s.append(b);
    const pc = s.append(c);
    await new Promise((r) => setTimeout(r, 20));
    expect(s.head().seq).toBe(0); // nothing is durable yet
    h.release();
    expect((await Promise.all([pa, pb, pc])).map((x) => x.seq)).toEqual([2, 4, 6]);
    expect(batches()).toBe(2); // a alone, then b and c together
    await assertTree(s);
  });

  it('a batch that fails before reaching disk: appends planned on it are planned again, and refused as not chaining', async () => {
    const h = holdFirst(() => {
      throw new Error('disk full');
    });
    const { s } = await fresh({ before: h.hook });
    const a = makeItems(TEST_LOG, s.head(), 2, { prefix: 'a-' });
    const b = makeItems(TEST_LOG, tip(a), 2, { prefix: 'b-' });
    const fromGenesis = makeItems(TEST_LOG, s.head(), 1, { prefix: 'g-' });
    const pa = s.append(a).catch((e: Error) => e.message);
    await h.reached;
    const pb = s.append(b).catch((e: ProtocolError) => e.code);
    const pg = s.append(fromGenesis);
    h.release();
    expect(await pa).toBe('disk full');
    expect(await pb).toBe('chain_broken');
    expect((await pg).seq).toBe(1); // planned again on the durable head, it chains
    expect((await s.getEntry(1))!.ce.id).toBe('g-1');
    await assertTree(s);
  });

  it('a failed group write rejects every accepted member and poisons the store', async () => {
    let fail = false;
    const { s } = await fresh({
      after: () => {
        if (fail) throw new Error('disk gone');
      },
    });
    const a = makeItems(TEST_LOG, s.head(), 2, { prefix: 'a-' });
    const b = makeItems(TEST_LOG, tip(a), 2, { prefix: 'b-' });
    fail = true;
    const r = await Promise.allSettled([s.append(a), s.append(b)]);
    expect(r.map((x) => x.status)).toEqual(['rejected', 'rejected']);
    expect(s.head().seq).toBe(0);
    fail = false;
    expect(await s.append(a).catch((e: ProtocolError) => e.code)).toBe('store_failed');
  });
});
