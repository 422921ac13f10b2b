// The frontier names exactly the nodes each append completes, always holds rootPlan(size), gives
// the same root as the full tree, and survives a persist/restore at any size; a restore from the
// wrong nodes is refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex } from '../encoding/wire.ts';
import { EMPTY_ROOT, createFrontier, createMemoryTree, hashLeaf, rootAt, rootPlan, type Hash32 } from './index.ts';

const leaf = (i: number): Hash32 => hashLeaf(new TextEncoder().encode(`f${i}`));

describe('createFrontier', () => {
  it('append returns the leaf and every node it completes', () => {
    const f = createFrontier();
    expect(f.append(leaf(0)).map((n) => n.id)).toEqual([[0, 0]]);
    expect(f.append(leaf(1)).map((n) => n.id)).toEqual([
      [0, 1],
      [1, 0],
    ]);
    expect(f.append(leaf(2)).map((n) => n.id)).toEqual([[0, 2]]);
    expect(f.append(leaf(3)).map((n) => n.id)).toEqual([
      [0, 3],
      [1, 1],
      [2, 0],
    ]);
    expect(f.size).toBe(4);
  });

  it('push is append without the list: same size, nodes and root after every leaf (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('append', 'push'), { maxLength: 70 }), (ops) => {
        const a = createFrontier();
        const b = createFrontier();
        ops.forEach((op, i) => {
          a.append(leaf(i));
          if (op === 'push') b.push(leaf(i));
          else b.append(leaf(i));
          expect(b.size).toBe(a.size);
          expect(toHex(b.root())).toBe(toHex(a.root()));
          expect(b.nodes().map((n) => [n.id, toHex(n.hash)])).toEqual(a.nodes().map((n) => [n.id, toHex(n.hash)]));
        });
      }),
      { numRuns: 50 },
    );
  });

  it('holds rootPlan(size) and the full-tree root at every size; emits every complete node once', async () => {
    const f = createFrontier();
    const t = createMemoryTree();
    const seen = new Set<string>();
    expect(toHex(f.root())).toBe(toHex(EMPTY_ROOT));
    for (let i = 0; i < 600; i++) {
      const made = f.append(leaf(i));
      for (const n of made) {
        const k = n.id.join('/');
        expect(seen.has(k)).toBe(false);
        seen.add(k);
      }
      t.append(leaf(i));
      // The emitted nodes are the full tree's nodes with those ids.
      expect((await t.getNodes(made.map((n) => n.id))).map(toHex)).toEqual(made.map((n) => toHex(n.hash)));
      expect(f.nodes().map((n) => n.id)).toEqual(rootPlan(i + 1));
      expect(toHex(f.root())).toBe(toHex(t.root()));
      expect(toHex(f.root())).toBe(toHex(await rootAt(t, i + 1)));
    }
    // A tree of n leaves has 2n - popcount(n) complete nodes.
    expect(seen.size).toBe(2 * 600 - 4);
  });

  it('restores from its nodes at any size and continues identically', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 1, max: 50 }), (cut, more) => {
        const a = createFrontier();
        for (let i = 0; i < cut; i++) a.append(leaf(i));
        const b = createFrontier(cut, a.nodes());
        expect(toHex(b.root())).toBe(toHex(a.root()));
        for (let i = cut; i < cut + more; i++) {
          const na = a.append(leaf(i));
          const nb = b.append(leaf(i));
          expect(nb.map((n) => [n.id, toHex(n.hash)])).toEqual(na.map((n) => [n.id, toHex(n.hash)]));
        }
        expect(toHex(b.root())).toBe(toHex(a.root()));
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a restore that is not exactly rootPlan(size)', () => {
    const a = createFrontier();
    for (let i = 0; i < 7; i++) a.append(leaf(i));
    const nodes = a.nodes();
    expect(() => createFrontier(6, nodes)).toThrow(TypeError);
    expect(() => createFrontier(7, nodes.slice(1))).toThrow(TypeError);
    expect(() => createFrontier(7, [{ id: [0, 5], hash: nodes[2].hash }, nodes[1], nodes[0]])).toThrow(TypeError);
    expect(() =>
      createFrontier(
        7,
        nodes.map((n, i) => (i === 0 ? { ...n, hash: n.hash.slice(1) } : n)),
      ),
    ).toThrow(TypeError);
    expect(() => createFrontier(-1)).toThrow(TypeError);
    expect(() => a.append(new Uint8Array(31))).toThrow(TypeError);
    // Order of the restored nodes does not matter, only the set.
    expect(toHex(createFrontier(7, [...nodes].reverse()).root())).toBe(toHex(a.root()));
  });

  it('createMemoryTree refuses nodes that are not complete', async () => {
    const t = createMemoryTree();
    for (let i = 0; i < 5; i++) t.append(leaf(i));
    await expect(t.getNodes([[1, 2]])).rejects.toThrow(RangeError);
    await expect(
      t.getNodes([
        [0, 4],
        [2, 0],
      ]),
    ).resolves.toHaveLength(2);
  });
});
