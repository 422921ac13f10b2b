// verifier/merkle/plan.ts: which stored nodes a root, an RFC 6962 inclusion proof (PATH, RFC 6962
// §2.1.1 / RFC 9162 §2.1.3.1) or consistency proof (SUBPROOF, §2.1.2 / §2.1.4.1) needs, as a plan of
// O(log n) perfect-subtree node ids that a store fetches in one batched read, plus the pure step
// that combines the fetched hashes into the proof. It leaves out storage and verification.
// Invariant: only complete perfect subtrees are ever named; the one proof element that covers an
// incomplete right-border subtree (the "ephemeral" node) is planned as its perfect parts and folded
// here, so proofs never rehash leaves and have exactly the bytes of the recursive RFC definition.
// All arithmetic is exact up to 2^53 - 1 (see hash.ts).

import { ProtocolError } from '../errors.ts';
import { differingLevels, half, hashChildren, isCount, isOdd, isPowerOfTwo, trailingZeros, type Hash32, type NodeId } from './hash.ts';

/**
 * A plan: the ids to fetch, in order, and how many consecutive fetched hashes fold (right to left)
 * into each output element. Most groups are 1; the ephemeral node's group is its perfect parts.
 */
export interface Shape {
  readonly ids: NodeId[];
  readonly groups: number[];
}

function badArgument(detail: string): never {
  // Thrown, not returned: the plan API returns ids. Transports map the code to 400.
  throw new ProtocolError('bad_request', detail);
}

function requireCount(n: unknown, what: string): asserts n is number {
  if (!isCount(n)) badArgument(`${what} must be an integer in [0, 2^53 - 1], got ${String(n)}`);
}

/** The perfect subtrees that tile [start, end), left to right, each as large as alignment allows. */
export function rangeNodes(start: number, end: number): NodeId[] {
  const out: NodeId[] = [];
  while (start < end) {
    let l = 0;
    while (start % 2 ** (l + 1) === 0 && start + 2 ** (l + 1) <= end) l++;
    out.push([l, start / 2 ** l]);
    start += 2 ** l;
  }
  return out;
}

/** The perfect-subtree roots of a tree of `size` leaves (its frontier), left to right. */
export function rootPlan(size: number): NodeId[] {
  requireCount(size, 'size');
  return rangeNodes(0, size);
}

/** Fold hashes right to left: h0 · (h1 · (… · hk)). The root of a frontier or of a range. */
export function foldRight(hashes: readonly Hash32[]): Hash32 {
  if (hashes.length === 0) throw new TypeError('nothing to fold');
  let acc = hashes[hashes.length - 1];
  for (let i = hashes.length - 2; i >= 0; i--) acc = hashChildren(hashes[i], acc);
  return acc;
}

/**
 * The audit path of the complete node (lv, idx) in a tree of `size` leaves, bottom-up. Below the
 * level where idx's path leaves the right border every sibling is a perfect node; at that level the
 * right sibling holds the last leaf and may be incomplete (ephemeral); above it only left siblings
 * occur, one for each 1 bit of idx.
 */
function pathShape(lv: number, idx: number, size: number, ids: NodeId[], groups: number[]): void {
  const last = Math.floor((size - 1) / 2 ** lv);
  const inner = differingLevels(idx, last);
  let a = idx;
  for (let r = 0; r < inner - 1; r++) {
    ids.push([lv + r, isOdd(a) ? a - 1 : a + 1]);
    groups.push(1);
    a = half(a);
  }
  if (inner > 0) {
    // Here a is even: idx and the last leaf split at this level, idx to the left.
    const l = lv + inner - 1;
    const parts = rangeNodes((a + 1) * 2 ** l, size);
    ids.push(...parts);
    groups.push(parts.length);
    a = half(a);
  }
  for (let r = inner; a > 0; r++) {
    if (isOdd(a)) {
      ids.push([lv + r, a - 1]);
      groups.push(1);
    }
    a = half(a);
  }
}

export function inclusionShape(index: number, size: number): Shape {
  requireCount(index, 'index');
  requireCount(size, 'size');
  if (index >= size) badArgument(`index ${index} is not below tree size ${size}`);
  const ids: NodeId[] = [];
  const groups: number[] = [];
  pathShape(0, index, size, ids, groups);
  return { ids, groups };
}

export function consistencyShape(size1: number, size2: number): Shape {
  requireCount(size1, 'size1');
  requireCount(size2, 'size2');
  if (size1 > size2) badArgument(`size1 ${size1} exceeds size2 ${size2}`);
  const ids: NodeId[] = [];
  const groups: number[] = [];
  // Nothing to prove between equal trees, and an empty old tree needs no proof (C2SP tlog-witness).
  if (size1 === 0 || size1 === size2) return { ids, groups };
  // The largest perfect subtree that ends at size1, then its audit path in the tree of size2. The
  // subtree itself is omitted when it is the whole old tree (the verifier already has root1).
  const lv = trailingZeros(size1);
  const idx = size1 / 2 ** lv - 1;
  if (!isPowerOfTwo(size1)) {
    ids.push([lv, idx]);
    groups.push(1);
  }
  pathShape(lv, idx, size2, ids, groups);
  return { ids, groups };
}

export function inclusionPlan(index: number, size: number): NodeId[] {
  return inclusionShape(index, size).ids;
}

export function consistencyPlan(size1: number, size2: number): NodeId[] {
  return consistencyShape(size1, size2).ids;
}

/** Combine the hashes fetched for shape.ids (same order) into the proof. */
export function combineShape(shape: Shape, hashes: readonly Hash32[]): Hash32[] {
  if (hashes.length !== shape.ids.length) throw new Error(`node reader returned ${hashes.length} hashes for ${shape.ids.length} ids`);
  const out: Hash32[] = [];
  let at = 0;
  for (const g of shape.groups) {
    const part = hashes.slice(at, at + g);
    for (const h of part)
      if (!(h instanceof Uint8Array) || h.length !== 32) throw new Error('node reader returned a hash that is not 32 bytes');
    out.push(g === 1 ? part[0] : foldRight(part));
    at += g;
  }
  return out;
}
