// The log store on real LevelDB in temp dirs: append/read/proof round trips checked against the
// verifier's Merkle code and an in-memory reference tree, chain refusal, indexes, reopen.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  consistencyProof,
  createMemoryTree,
  hashLeaf,
  inclusionProof,
  verifyConsistency,
  verifyInclusion,
} from '../verifier/merkle/index.ts';
import { entryLeaf } from '../verifier/documents/entry.ts';
import { formatHash, parseHash } from '../verifier/encoding/wire.ts';
import { ProtocolError } from '../verifier/errors.ts';
import { openLogStore, type LogStore } from './index.ts';
import { TEST_LOG, deviceSigner, itemFor, makeDescriptor, makeEvent, makeItems, errorCode } from '../testkit/logstore.ts';
import { useStores } from '../testkit/logstore-stores.ts';

const stores = useStores();
const fresh = (mode: 'full' | 'hash_only' = 'full') => stores.fresh({ mode });
const reopen = (s: LogStore) => stores.reopen(s);

function raw(h: string): Uint8Array {
  const r = parseHash(h);
  if (!r.ok) throw new Error(r.detail);
  return r.value;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('init and head', () => {
  it('a fresh store has no descriptor; init sets head {0, descriptor hash, empty root}', async () => {
    const s = await stores.open(stores.dir());
    expect(s.descriptor()).toBeUndefined();
    expect(() => s.head()).toThrow(/not initialized/);
    const d = makeDescriptor('full');
    await s.init(d);
    expect(s.head()).toEqual({ seq: 0, hash: d.hash, root: formatHash(createMemoryTree().root()) });
    expect(s.descriptor()).toEqual(d);
    await s.init(d); // same descriptor again: a no-op
    expect(await errorCode(s.init(makeDescriptor('hash_only')))).toBe('descriptor_mismatch');
    expect(await s.rootAt(0)).toBe(s.head().root);
  });

  it('opening a missing dir with createIfMissing:false is not_found', async () => {
    const dir = stores.dir();
    expect(await errorCode(openLogStore(dir + '/absent', { createIfMissing: false }))).toBe('not_found');
  });
});

describe('append, read, proofs', () => {
  it('round-trips entries and payloads, streams ranges, and refuses what does not chain', async () => {
    const s = await fresh();
    const items = makeItems(TEST_LOG, s.head(), 25);
    const head = await s.append(items.slice(0, 10));
    expect(head.seq).toBe(10);
    expect(head.hash).toBe(items[9].entry.hash);
    await s.append(items.slice(10));
    expect(s.head().seq).toBe(25);
    expect(await s.getEntry(7)).toEqual(items[6].entry);
    expect(await s.getEntry(0)).toBeUndefined();
    expect(await s.getEntry(26)).toBeUndefined();
    expect(await s.getPayload(7)).toEqual({ event: items[6].payload });
    expect((await collect(s.entries(5, 9))).map((e) => e.seq)).toEqual([5, 6, 7, 8, 9]);
    expect((await collect(s.entries(0, 100))).length).toBe(25);
    expect(await collect(s.entries(9, 5))).toEqual([]);
    expect((await collect(s.payloads(24, 30))).map((p) => p.seq)).toEqual([24, 25]);
    // an early break closes the iterator without harm
    for await (const e of s.entries(1, 25)) if (e.seq === 3) break;

    const before = s.head();
    const next = makeItems(TEST_LOG, before, 3);
    const broken = [next[0], { ...next[1], entry: { ...next[1].entry, prev: next[0].entry.prev } }, next[2]];
    expect(await errorCode(s.append(broken))).toBe('chain_broken');
    expect(await errorCode(s.append(next.slice(1)))).toBe('chain_broken'); // gap
    expect(await errorCode(s.append(makeItems('other.example/log', before, 1)))).toBe('log_mismatch');
    expect(s.head()).toEqual(before);
    expect(await s.getEntry(26)).toBeUndefined(); // item 1 of the refused batch was not written
    expect(await s.append([])).toEqual(before);
  });

  it('roots equal the in-memory reference and proofs verify, for random sizes and batchings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }), fc.nat(), async (batches, pick) => {
        const s = await fresh();
        const mem = createMemoryTree();
        const roots: string[] = [s.head().root];
        for (const n of batches) {
          const items = makeItems(TEST_LOG, s.head(), n);
          for (const it of items) {
            mem.append(hashLeaf(entryLeaf(it.entry)));
            roots.push(formatHash(mem.root()));
          }
          const h = await s.append(items);
          expect(h.root).toBe(formatHash(mem.root()));
        }
        const size = s.head().seq;
        const sizeB = 1 + (pick % size);
        const sizeA = 1 + ((pick >>> 3) % sizeB);
        const seq = 1 + ((pick >>> 7) % sizeB);
        expect(await s.rootAt(sizeB)).toBe(roots[sizeB]);
        expect(await s.rootAt(0)).toBe(roots[0]);
        const entry = (await s.getEntry(seq))!;
        const proof = await s.inclusionProof(seq, sizeB);
        expect(proof.every((p) => /^sha256:[0-9a-f]{64}$/.test(p))).toBe(true);
        expect(proof).toEqual((await inclusionProof(mem, seq - 1, sizeB)).map(formatHash));
        expect(verifyInclusion(hashLeaf(entryLeaf(entry)), seq - 1, sizeB, proof.map(raw), raw(roots[sizeB])).ok).toBe(true);
        const cproof = await s.consistencyProof(sizeA, sizeB);
        expect(cproof).toEqual((await consistencyProof(mem, sizeA, sizeB)).map(formatHash));
        expect(verifyConsistency(sizeA, sizeB, cproof.map(raw), raw(roots[sizeA]), raw(roots[sizeB])).ok).toBe(true);
        // a proof for another leaf or root fails, so the checks above can fail
        if (sizeB > 1) {
          const other = (await s.getEntry(seq === 1 ? 2 : 1))!;
          expect(verifyInclusion(hashLeaf(entryLeaf(other)), seq - 1, sizeB, proof.map(raw), raw(roots[sizeB])).ok).toBe(false);
        }
        await stores.close(s);
      }),
      { numRuns: 12 },
    );
  });

  it('proof and root arguments outside the tree are bad_request; 0 and equal sizes give empty consistency proofs', async () => {
    const s = await fresh();
    await s.append(makeItems(TEST_LOG, s.head(), 5));
    expect(await errorCode(s.rootAt(6))).toBe('bad_request');
    expect(await errorCode(s.rootAt(-1))).toBe('bad_request');
    expect(await errorCode(s.inclusionProof(0, 5))).toBe('bad_request');
    expect(await errorCode(s.inclusionProof(5, 4))).toBe('bad_request');
    expect(await errorCode(s.inclusionProof(1, 6))).toBe('bad_request');
    expect(await errorCode(s.consistencyProof(3, 2))).toBe('bad_request');
    expect(await errorCode(s.consistencyProof(1, 6))).toBe('bad_request');
    expect(await s.consistencyProof(0, 5)).toEqual([]);
    expect(await s.consistencyProof(5, 5)).toEqual([]);
    expect(await s.inclusionProof(1, 1)).toEqual([]);
  });

  it('two appends built from the same head: exactly one lands', async () => {
    const s = await fresh();
    const a = makeItems(TEST_LOG, s.head(), 3, { prefix: 'a-' });
    const b = makeItems(TEST_LOG, s.head(), 3, { prefix: 'b-' });
    const r = await Promise.allSettled([s.append(a), s.append(b)]);
    expect(r.map((x) => x.status)).toEqual(['fulfilled', 'rejected']);
    expect(((r[1] as PromiseRejectedResult).reason as ProtocolError).code).toBe('chain_broken');
    expect((await s.getEntry(1))!.ce.id).toBe('a-1');
  });
});

describe('indexes', () => {
  it('(source, id) and subject indexes; duplicates refused within a batch and against the store', async () => {
    const s = await fresh();
    const dev = deviceSigner();
    let prev = { seq: 0, hash: s.head().hash };
    const items = [];
    for (let i = 1; i <= 4; i++) {
      const it = itemFor(TEST_LOG, prev, makeEvent(`id-${i}`, { subject: i <= 2 ? 'exec-A' : 'exec-B', cookwalaseq: i }), dev);
      items.push(it);
      prev = { seq: it.entry.seq, hash: it.entry.hash };
    }
    await s.append(items);
    expect(await s.lookupId('urn:dev:oven-1', 'id-3')).toEqual({ seq: 3, eventHash: items[2].entry.eventHash });
    expect(await s.lookupId('urn:dev:oven-2', 'id-3')).toBeUndefined();
    expect(await s.lastSubjectSeq('exec-A')).toBe(2);
    expect(await s.lastSubjectSeq('exec-B')).toBe(4);
    expect(await s.lastSubjectSeq('exec-C')).toBeUndefined();

    const head = s.head();
    const dupStored = itemFor(TEST_LOG, head, makeEvent('id-2'), dev);
    const e = await s.append([dupStored]).catch((x: unknown) => x as ProtocolError);
    expect((e as ProtocolError).code).toBe('duplicate_id');
    expect((e as ProtocolError).extra.seq).toBe(2);
    const x1 = itemFor(TEST_LOG, head, makeEvent('id-9'), dev);
    const x2 = itemFor(TEST_LOG, { seq: x1.entry.seq, hash: x1.entry.hash }, makeEvent('id-9', { data: 'other' }), dev);
    expect(await errorCode(s.append([x1, x2]))).toBe('duplicate_id');
    expect(s.head()).toEqual(head);
    expect(await s.lookupId('urn:dev:oven-1', 'id-9')).toBeUndefined();
    // an entry without dedup (a sequencer's own entry) is not indexed
    const own = { entry: itemFor(TEST_LOG, head, makeEvent('id-2'), dev).entry };
    await s.append([own]);
    expect(await s.lookupId('urn:dev:oven-1', 'id-2')).toEqual({ seq: 2, eventHash: items[1].entry.eventHash });
    expect(await s.getPayload(5)).toBeUndefined();
  });

  it("seqsOfSource reads one source's entries from the (source, id) index, not the log", async () => {
    const s = await fresh('hash_only');
    const items = makeItems(TEST_LOG, s.head(), 9);
    // sources that share prefixes, an id holding a lone surrogate (UTF-16 keys) and one whose
    // UTF-16 form has 0xff bytes; the store indexes whatever pair the sequencer hands it
    const pairs: Array<[string, string]> = [
      ['dev', 'a'],
      ['dev2', 'a'],
      ['de', 'va'],
      ['dev', 'b\ud800'],
      ['dev', '\u00ff\u00ff'],
      ['', 'x'],
      ['dev', 'c'],
      ['dev2', 'b'],
      ['d\ud800', 'z'],
    ];
    pairs.forEach(([source, id], i) => (items[i].dedup = { source, id }));
    await s.append(items.slice(0, 5));
    await s.append(items.slice(5));
    expect(await s.seqsOfSource('dev')).toEqual([1, 4, 5, 7]);
    expect(await s.seqsOfSource('dev2')).toEqual([2, 8]);
    expect(await s.seqsOfSource('de')).toEqual([3]);
    expect(await s.seqsOfSource('')).toEqual([6]);
    expect(await s.seqsOfSource('d\ud800')).toEqual([9]);
    expect(await s.seqsOfSource('nobody')).toEqual([]);
    const s2 = await reopen(s);
    expect(await s2.seqsOfSource('dev')).toEqual([1, 4, 5, 7]);
  });

  it('reopen restores descriptor, head, frontier, indexes and proofs', async () => {
    let s = await fresh('hash_only');
    await s.append(makeItems(TEST_LOG, s.head(), 13, { subject: 'exec-Z', cookwalaseq: 1 }));
    const head = s.head();
    const proof = await s.inclusionProof(4, 13);
    const desc = s.descriptor();
    s = await reopen(s);
    expect(s.head()).toEqual(head);
    expect(s.descriptor()).toEqual(desc);
    expect(await s.inclusionProof(4, 13)).toEqual(proof);
    expect(await s.lookupId('urn:dev:oven-1', 'ev-13')).toMatchObject({ seq: 13 });
    expect(await s.lastSubjectSeq('exec-Z')).toBe(1);
    // the restored frontier appends on: roots still match a reference built from all entries
    await s.append(makeItems(TEST_LOG, s.head(), 6));
    const mem = createMemoryTree();
    for await (const e of s.entries(1, 19)) mem.append(hashLeaf(entryLeaf(e)));
    expect(s.head().root).toBe(formatHash(mem.root()));
  });

  it('a second open in the same process is store_locked', async () => {
    const s = await fresh();
    expect(await errorCode(openLogStore(s.dir))).toBe('store_locked');
  });
});
