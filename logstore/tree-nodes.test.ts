// Node packing (one key per leaf): every complete node of random trees reads back equal to the
// in-memory reference tree, positions are right above 2^31, and damage is reported, not hidden.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createFrontier, createMemoryTree, hashLeaf, type NodeId } from '../verifier/merkle/index.ts';
import { createNodeReader, nodeLocation, packCompleted, trailingZeros } from './tree-nodes.ts';
import { BANDED, P } from './keys.ts';

function leaf(i: number): Uint8Array {
  const d = new Uint8Array(32);
  new DataView(d.buffer).setUint32(0, i);
  return hashLeaf(d);
}

function build(n: number) {
  const f = createFrontier();
  const mem = createMemoryTree();
  const kv = new Map<number, Buffer>();
  for (let i = 0; i < n; i++) {
    const l = leaf(i);
    kv.set(i, packCompleted(i, f.append(l)));
    mem.append(l);
  }
  let calls = 0;
  const reader = createNodeReader(async (keys) => {
    calls++;
    return keys.map((k) => kv.get(BANDED.seqOf(k)));
  }, BANDED);
  return { kv, mem, reader, calls: () => calls };
}

describe('tree-nodes', () => {
  it('trailingZeros and nodeLocation use arithmetic that holds above 2^31', () => {
    expect(trailingZeros(2 ** 40)).toBe(40);
    expect(trailingZeros(3 * 2 ** 35)).toBe(35);
    expect(nodeLocation([0, 2 ** 33])).toEqual({ leaf: 2 ** 33, offset: 0 });
    expect(nodeLocation([5, 2 ** 33])).toEqual({ leaf: (2 ** 33 + 1) * 32 - 1, offset: 160 });
    expect(() => nodeLocation([1, 2 ** 53])).toThrow(RangeError);
    expect(() => trailingZeros(0)).toThrow(RangeError);
  });

  it('values hold 1 + trailing-ones(leaf) hashes, 2 on average', () => {
    const { kv } = build(1024);
    let bytes = 0;
    for (const [i, v] of kv) {
      expect(v.length).toBe(32 * (1 + trailingZeros(i + 1)));
      bytes += v.length;
    }
    expect(bytes / 1024).toBeCloseTo(64, 0);
  });

  it('every complete node reads back equal to the reference tree, in one getMany', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 300 }), async (n) => {
        const { mem, reader, calls } = build(n);
        const ids: NodeId[] = [];
        for (let level = 0; 2 ** level <= n; level++) for (let j = 0; (j + 1) * 2 ** level <= n; j++) ids.push([level, j]);
        const got = await reader.getNodes(ids);
        const want = await mem.getNodes(ids);
        expect(got.map((h) => Buffer.from(h).toString('hex'))).toEqual(want.map((h) => Buffer.from(h).toString('hex')));
        expect(calls()).toBe(1);
      }),
      { numRuns: 40 },
    );
  });

  it('packCompleted refuses node sets that do not match the leaf path', () => {
    const f = createFrontier();
    f.append(leaf(0));
    const made = f.append(leaf(1)); // leaf 1 completes [0,1] and [1,0]
    expect(packCompleted(1, made).length).toBe(64);
    expect(() => packCompleted(1, made.slice(0, 1))).toThrow(/completed 1 nodes/);
    expect(() => packCompleted(3, made)).toThrow();
    expect(() => packCompleted(1, [made[0], made[0]])).toThrow(/unexpected/);
  });

  it('a missing or short node value is reported as damage', async () => {
    const { kv, reader } = build(8);
    kv.delete(3);
    await expect(reader.getNodes([[2, 0]])).rejects.toThrow(/missing/);
    kv.set(3, Buffer.alloc(40));
    await expect(reader.getNodes([[1, 1]])).rejects.toThrow(/missing/);
    expect(BANDED.key(P.node, 3).length).toBe(18);
  });
});
