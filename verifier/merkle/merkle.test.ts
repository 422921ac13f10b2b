// Proofs and roots against a naive recursive RFC 6962 reference (MTH, PATH, SUBPROOF written
// straight from RFC 6962 §2.1), with fast-check over sizes and indices up to a few thousand; plans
// at 10^7, 2^40 and 2^53 - 1 against a BigInt range oracle of the same recursion; verification
// rejects every mutation of a valid proof.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex } from '../encoding/wire.ts';
import { ProtocolError } from '../errors.ts';
import {
  EMPTY_ROOT,
  consistencyPlan,
  consistencyProof,
  createMemoryTree,
  hashChildren,
  hashLeaf,
  hashLeafOfHex,
  inclusionPlan,
  inclusionProof,
  rootAt,
  rootFromInclusion,
  rootPlan,
  verifyConsistency,
  verifyInclusion,
  type Hash32,
  type NodeId,
  type NodeReader,
} from './index.ts';
import { sha256 } from '../crypto/default.ts';

const MAX = 3000;
const leaves: Hash32[] = Array.from({ length: MAX }, (_, i) => hashLeaf(new TextEncoder().encode(`leaf ${i}`)));
const tree = createMemoryTree();
for (const l of leaves) tree.append(l);

// --- the naive reference, from the RFC text ---
function largestPow2Below(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
const mthCache = new Map<string, Hash32>();
function mth(a: number, b: number): Hash32 {
  if (b === a) return sha256(new Uint8Array(0));
  if (b - a === 1) return leaves[a];
  const key = `${a}-${b}`;
  let h = mthCache.get(key);
  if (!h) {
    const k = largestPow2Below(b - a);
    h = hashChildren(mth(a, a + k), mth(a + k, b));
    mthCache.set(key, h);
  }
  return h;
}
function naivePath(m: number, a: number, b: number): Hash32[] {
  const n = b - a;
  if (n === 1) return [];
  const k = largestPow2Below(n);
  return m < k ? [...naivePath(m, a, a + k), mth(a + k, b)] : [...naivePath(m - k, a + k, b), mth(a, a + k)];
}
function naiveSubproof(m: number, a: number, b: number, whole: boolean): Hash32[] {
  const n = b - a;
  if (m === n) return whole ? [] : [mth(a, b)];
  const k = largestPow2Below(n);
  return m <= k ? [...naiveSubproof(m, a, a + k, whole), mth(a + k, b)] : [...naiveSubproof(m - k, a + k, b, false), mth(a, a + k)];
}
const hexes = (hs: Hash32[]) => hs.map(toHex);

describe('roots and proofs equal the recursive RFC 6962 definitions', () => {
  it('rootAt equals MTH for every size 0..300 and random sizes to 3000', async () => {
    expect(toHex(await rootAt(tree, 0))).toBe(toHex(EMPTY_ROOT));
    for (let n = 1; n <= 300; n++) expect(toHex(await rootAt(tree, n))).toBe(toHex(mth(0, n)));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: MAX }), async (n) => toHex(await rootAt(tree, n)) === toHex(mth(0, n))),
      { numRuns: 200 },
    );
  });

  it('inclusion proofs equal PATH and verify', async () => {
    const sizeIndex = fc.integer({ min: 1, max: MAX }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 })));
    await fc.assert(
      fc.asyncProperty(sizeIndex, async ([n, i]) => {
        const proof = await inclusionProof(tree, i, n);
        expect(hexes(proof)).toEqual(hexes(naivePath(i, 0, n)));
        expect(verifyInclusion(leaves[i], i, n, proof, mth(0, n)).ok).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('every inclusion proof in trees up to 64 leaves', async () => {
    for (let n = 1; n <= 64; n++) {
      for (let i = 0; i < n; i++) expect(hexes(await inclusionProof(tree, i, n))).toEqual(hexes(naivePath(i, 0, n)));
    }
  });

  it('consistency proofs equal SUBPROOF and verify', async () => {
    const sizes = fc.integer({ min: 1, max: MAX }).chain((n) => fc.tuple(fc.integer({ min: 1, max: n }), fc.constant(n)));
    await fc.assert(
      fc.asyncProperty(sizes, async ([m, n]) => {
        const proof = await consistencyProof(tree, m, n);
        expect(hexes(proof)).toEqual(hexes(naiveSubproof(m, 0, n, true)));
        expect(verifyConsistency(m, n, proof, mth(0, m), mth(0, n)).ok).toBe(true);
      }),
      { numRuns: 400 },
    );
    for (let n = 1; n <= 40; n++) {
      for (let m = 1; m <= n; m++) expect(hexes(await consistencyProof(tree, m, n))).toEqual(hexes(naiveSubproof(m, 0, n, true)));
    }
  });

  it('a consistency proof from size 0 is empty, but never verifies', async () => {
    expect(await consistencyProof(tree, 0, 10)).toEqual([]);
    expect(consistencyPlan(0, 10)).toEqual([]);
    const r = verifyConsistency(0, 10, [], EMPTY_ROOT, mth(0, 10));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('bad_proof');
  });

  it('rootFromInclusion returns the root the proof leads to', async () => {
    const proof = await inclusionProof(tree, 77, 1000);
    const r = rootFromInclusion(leaves[77], 77, 1000, proof);
    expect(r.ok && toHex(r.value)).toBe(toHex(mth(0, 1000)));
  });
});

describe('verification rejects every mutation', () => {
  const flip = (h: Hash32, bit: number) => {
    // A copy, never h.slice(): node:crypto digests are Buffers, whose slice() is a view, and
    // flipping a bit in it would corrupt the shared tree and the leaves for later runs.
    const c = Uint8Array.from(h);
    c[bit >> 3] ^= 1 << (bit & 7);
    return c;
  };
  it('inclusion: flipped bit, wrong index or size, truncated or extended proof', async () => {
    const cases = fc
      .integer({ min: 2, max: MAX })
      .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 }), fc.nat(), fc.integer({ min: 0, max: 255 })));
    await fc.assert(
      fc.asyncProperty(cases, async ([n, i, pick, bit]) => {
        const proof = await inclusionProof(tree, i, n);
        const root = mth(0, n);
        const bad = (r: { ok: boolean; code?: string }) => r.ok === false && r.code === 'bad_proof';
        if (proof.length > 0) {
          const j = pick % proof.length;
          expect(
            bad(
              verifyInclusion(
                leaves[i],
                i,
                n,
                proof.map((h, k) => (k === j ? flip(h, bit) : h)),
                root,
              ),
            ),
          ).toBe(true);
          expect(bad(verifyInclusion(leaves[i], i, n, proof.slice(0, -1), root))).toBe(true);
        }
        expect(bad(verifyInclusion(flip(leaves[i], bit), i, n, proof, root))).toBe(true);
        expect(bad(verifyInclusion(leaves[i], i, n, [...proof, leaves[0]], root))).toBe(true);
        expect(bad(verifyInclusion(leaves[i], i, n, proof, flip(root, bit)))).toBe(true);
        expect(bad(verifyInclusion(leaves[i], (i + 1) % n, n, proof, root))).toBe(true);
        expect(bad(verifyInclusion(leaves[i], i, n, proof, root.slice(0, 31)))).toBe(true);
        expect(bad(verifyInclusion(leaves[i], n, n, proof, root))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('consistency: flipped bit, swapped roots, truncated or extended proof', async () => {
    const cases = fc
      .integer({ min: 2, max: MAX })
      .chain((n) => fc.tuple(fc.integer({ min: 1, max: n - 1 }), fc.constant(n), fc.nat(), fc.integer({ min: 0, max: 255 })));
    await fc.assert(
      fc.asyncProperty(cases, async ([m, n, pick, bit]) => {
        const proof = await consistencyProof(tree, m, n);
        const r1 = mth(0, m);
        const r2 = mth(0, n);
        const bad = (r: { ok: boolean }) => !r.ok;
        const j = pick % proof.length;
        expect(
          bad(
            verifyConsistency(
              m,
              n,
              proof.map((h, k) => (k === j ? flip(h, bit) : h)),
              r1,
              r2,
            ),
          ),
        ).toBe(true);
        expect(bad(verifyConsistency(m, n, proof.slice(0, -1), r1, r2))).toBe(true);
        expect(bad(verifyConsistency(m, n, [...proof, r1], r1, r2))).toBe(true);
        expect(bad(verifyConsistency(m, n, proof, flip(r1, bit), r2))).toBe(true);
        expect(bad(verifyConsistency(m, n, proof, r1, flip(r2, bit)))).toBe(true);
        expect(bad(verifyConsistency(m, n, proof, r2, r1))).toBe(true);
        expect(bad(verifyConsistency(n, m, proof, r1, r2))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('equal sizes need an empty proof and equal roots', () => {
    const r = mth(0, 5);
    expect(verifyConsistency(5, 5, [], r, r).ok).toBe(true);
    expect(verifyConsistency(5, 5, [r], r, r).ok).toBe(false);
    expect(verifyConsistency(5, 5, [], r, mth(0, 4)).ok).toBe(false);
  });

  it('non-integer, negative and unsafe sizes are refused, never crash', () => {
    for (const bad of [-1, 1.5, NaN, Infinity, 2 ** 53, 18446744073709552000]) {
      expect(verifyInclusion(leaves[0], bad, 8, [], mth(0, 8)).ok).toBe(false);
      expect(verifyInclusion(leaves[0], 0, bad, [], mth(0, 8)).ok).toBe(false);
      expect(verifyConsistency(bad, 8, [], mth(0, 8), mth(0, 8)).ok).toBe(false);
      expect(() => inclusionPlan(bad, 8)).toThrow(ProtocolError);
      expect(() => rootPlan(bad)).toThrow(ProtocolError);
    }
  });
});

// --- plans at large sizes, against a BigInt oracle of the RFC recursion on leaf ranges ---
type Range = readonly [bigint, bigint];
function pow2Below(n: bigint): bigint {
  let k = 1n;
  while (k * 2n < n) k *= 2n;
  return k;
}
function pathRanges(m: bigint, a: bigint, b: bigint): Range[] {
  const n = b - a;
  if (n === 1n) return [];
  const k = pow2Below(n);
  return m < k ? [...pathRanges(m, a, a + k), [a + k, b]] : [...pathRanges(m - k, a + k, b), [a, a + k]];
}
function subproofRanges(m: bigint, a: bigint, b: bigint, whole: boolean): Range[] {
  const n = b - a;
  if (m === n) return whole ? [] : [[a, b]];
  const k = pow2Below(n);
  return m <= k ? [...subproofRanges(m, a, a + k, whole), [a + k, b]] : [...subproofRanges(m - k, a + k, b, false), [a, a + k]];
}
/** Every id must be a complete perfect subtree within `size`; return the leaf range each covers. */
function idRange(id: NodeId, size: number): Range {
  const [l, i] = id;
  expect(Number.isSafeInteger(l) && Number.isSafeInteger(i) && l >= 0 && i >= 0).toBe(true);
  const start = BigInt(i) * 2n ** BigInt(l);
  const end = start + 2n ** BigInt(l);
  expect(end <= BigInt(size)).toBe(true);
  return [start, end];
}
/** The ranges of consecutive ids, merged where they tile one proof element's range. */
function planMatches(ids: NodeId[], want: Range[], size: number): void {
  const got = ids.map((id) => idRange(id, size));
  let at = 0;
  for (const [a, b] of want) {
    let cur = a;
    while (cur < b) {
      expect(got[at]?.[0]).toBe(cur);
      cur = got[at][1];
      at++;
    }
    expect(cur).toBe(b);
  }
  expect(at).toBe(got.length);
}

describe('plans stay O(log n) and exact above 2^31', () => {
  const big = [10_000_000, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 40, 2 ** 40 + 12345, Number.MAX_SAFE_INTEGER];
  it.each(big)('size %d', (n) => {
    const N = BigInt(n);
    const root = rootPlan(n);
    expect(root.length).toBeLessThanOrEqual(53);
    planMatches(root, [[0n, N]], n);
    for (const i of [0, 1, 2 ** 31, Math.floor(n / 3), n - 2, n - 1].filter((x) => x >= 0 && x < n)) {
      const ids = inclusionPlan(i, n);
      expect(ids.length).toBeLessThanOrEqual(2 * 53);
      planMatches(ids, pathRanges(BigInt(i), 0n, N), n);
    }
    for (const m of [1, 2, 3, 2 ** 31 - 1, 2 ** 31, Math.floor(n / 2), n - 1].filter((x) => x >= 1 && x <= n)) {
      const ids = consistencyPlan(m, n);
      expect(ids.length).toBeLessThanOrEqual(2 * 53);
      planMatches(ids, subproofRanges(BigInt(m), 0n, N, true), n);
    }
  });

  it('proofs built and verified at 2^40 + 12345 leaves (a consistent tree of equal leaves)', async () => {
    // All leaves equal => node(l, i) depends on l only, so a reader can serve a 2^40 tree.
    const z: Hash32[] = [hashLeaf(new Uint8Array([7]))];
    for (let l = 1; l <= 53; l++) z.push(hashChildren(z[l - 1], z[l - 1]));
    const reader: NodeReader = { getNodes: async (ids) => ids.map(([l]) => z[l]) };
    const n = 2 ** 40 + 12345;
    const root = await rootAt(reader, n);
    const i = 2 ** 39 + 7;
    const proof = await inclusionProof(reader, i, n);
    expect(proof.length).toBe(41);
    expect(verifyInclusion(z[0], i, n, proof, root).ok).toBe(true);
    const m = 2 ** 33 + 3;
    const cproof = await consistencyProof(reader, m, n);
    expect(verifyConsistency(m, n, cproof, await rootAt(reader, m), root).ok).toBe(true);
    expect(verifyConsistency(m + 1, n, cproof, await rootAt(reader, m + 1), root).ok).toBe(false);
  });

  it('reads each plan in one batch', async () => {
    let calls = 0;
    const counting: NodeReader = { getNodes: (ids) => (calls++, tree.getNodes(ids)) };
    await inclusionProof(counting, 1234, 2999);
    await consistencyProof(counting, 1001, 2999);
    await rootAt(counting, 2999);
    expect(calls).toBe(3);
  });
});

describe('leaf and node inputs in reused buffers', () => {
  const concat = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  it('hashLeaf and hashChildren equal SHA-256 of their RFC 6962 inputs, whatever came before (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 80 }), { minLength: 1, maxLength: 6 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (datas, r) => {
          const got = datas.map((d) => hashLeaf(d));
          const nodes = got.map((l) => hashChildren(l, r));
          // Every digest is its own array: later calls did not change the ones returned before.
          datas.forEach((d, i) => {
            expect(toHex(got[i])).toBe(toHex(sha256(concat(Uint8Array.of(0), d))));
            expect(toHex(nodes[i])).toBe(toHex(sha256(concat(Uint8Array.of(1), got[i], r))));
          });
        },
      ),
      { numRuns: 200 },
    );
  });
  it('hashLeafOfHex is hashLeaf of the bytes the hex spells, at any offset; anything but lowercase hex throws', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.string({ maxLength: 9 }), (b, prefix) => {
        expect(toHex(hashLeafOfHex(prefix + toHex(b), prefix.length))).toBe(toHex(hashLeaf(b)));
      }),
      { numRuns: 200 },
    );
    const hex = toHex(new Uint8Array(32).fill(0xab));
    expect(() => hashLeafOfHex(hex.toUpperCase())).toThrow(TypeError);
    expect(() => hashLeafOfHex(hex.slice(1))).toThrow(TypeError);
    expect(() => hashLeafOfHex('g' + hex.slice(1))).toThrow(TypeError);
    expect(() => hashLeafOfHex(hex.slice(0, 63) + '\u0100')).toThrow(TypeError);
  });
});
