// verifier/merkle/hash.ts: the RFC 6962 / RFC 9162 §2.1.1 hash functions of the log's Merkle tree
// (leaf = SHA-256(0x00 || data), interior = SHA-256(0x01 || left || right), empty tree =
// SHA-256("")), the node naming shared by the store and the proofs, and the size arithmetic the
// plans use. It leaves out everything about which nodes exist (plan.ts).
// Invariant: sizes and indices are JS numbers up to 2^53 - 1, so nothing here uses the 32-bit
// bitwise operators (`<<`, `>>`, `^`, `&`): halving is Math.floor(x / 2) and powers are 2 ** l, both
// exact for every safe integer.

import { sha256 } from '../crypto/default.ts';

/** A SHA-256 digest: always 32 bytes. */
export type Hash32 = Uint8Array;

/**
 * node(level, index) is the hash of the perfect subtree over leaves
 * [index * 2^level, (index + 1) * 2^level); level 0 holds the leaf hashes.
 */
export type NodeId = readonly [level: number, index: number];

/** SHA-256("") per RFC 9162 §2.1.1; written out so nothing hashes at import time. */
export const EMPTY_ROOT: Hash32 = hexBytes('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');

export function hashLeaf(data: Uint8Array): Hash32 {
  const buf = new Uint8Array(data.length + 1);
  buf[0] = 0x00;
  buf.set(data, 1);
  return sha256(buf);
}

export function hashChildren(l: Hash32, r: Hash32): Hash32 {
  if (l.length !== 32 || r.length !== 32) throw new TypeError('Merkle node hashes are 32 bytes');
  const buf = new Uint8Array(65);
  buf[0] = 0x01;
  buf.set(l, 1);
  buf.set(r, 33);
  return sha256(buf);
}

/** A tree size or a leaf index: a safe, non-negative integer. */
export function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

export function half(x: number): number {
  return Math.floor(x / 2);
}

export function isOdd(x: number): boolean {
  return x % 2 === 1;
}

/** Largest l with 2^l dividing x (x > 0). */
export function trailingZeros(x: number): number {
  if (!isCount(x) || x === 0) throw new TypeError(`trailingZeros needs a positive safe integer, got ${x}`);
  let l = 0;
  while (x % 2 === 0) {
    x = x / 2;
    l++;
  }
  return l;
}

export function isPowerOfTwo(x: number): boolean {
  return x > 0 && 2 ** trailingZeros(x) === x;
}

/** Number of levels at which a and b still differ: the bit length of a XOR b, in exact arithmetic. */
export function differingLevels(a: number, b: number): number {
  let r = 0;
  while (a !== b) {
    a = half(a);
    b = half(b);
    r++;
  }
  return r;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}
