// verifier/merkle/hash.ts: the RFC 6962 / RFC 9162 §2.1.1 hash functions of the log's Merkle tree
// (leaf = SHA-256(0x00 || data), interior = SHA-256(0x01 || left || right), empty tree =
// SHA-256("")), the node naming shared by the store and the proofs, and the size arithmetic the
// plans use. It leaves out everything about which nodes exist (plan.ts). The inputs of a leaf and
// of an interior node are written into buffers kept by this module (no array per hash: the
// verifier hashes a leaf and about one interior node per entry); no hash call yields, so one
// buffer each is enough, and every digest returned is a new array of its own.
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

/** 0x00 || data of the last leaf hashed; grown for a longer leaf. */
let leafInput = new Uint8Array(33);
/** 0x01 || left || right. */
const nodeInput = new Uint8Array(65);
nodeInput[0] = 0x01;

export function hashLeaf(data: Uint8Array): Hash32 {
  if (leafInput.length < data.length + 1) leafInput = new Uint8Array(data.length + 1);
  leafInput[0] = 0x00;
  leafInput.set(data, 1);
  return sha256(leafInput.subarray(0, data.length + 1));
}

/** Value of a lowercase hex digit's char code (0-9, a-f); -1 for anything else. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX_VALUE[48 + i] = i;
for (let i = 0; i < 6; i++) HEX_VALUE[97 + i] = 10 + i;

/**
 * hashLeaf of the 32 bytes that `hex[from, from + 64)` spells in lowercase hex (an entry hash kept
 * as the text the verifier compares), without making those bytes first. Throws a TypeError for
 * anything but 64 lowercase hex digits there: callers pass the hex of a digest they computed.
 */
export function hashLeafOfHex(hex: string, from = 0): Hash32 {
  if (hex.length < from + 64) throw new TypeError('a leaf given as hex is 64 hex digits');
  const buf = leafInput; // at least 33 bytes
  buf[0] = 0x00;
  for (let i = 0; i < 32; i++) {
    const a = hex.charCodeAt(from + 2 * i);
    const b = hex.charCodeAt(from + 2 * i + 1);
    const hi = a < 128 ? HEX_VALUE[a] : -1;
    const lo = b < 128 ? HEX_VALUE[b] : -1;
    if (hi < 0 || lo < 0) throw new TypeError('a leaf given as hex is 64 lowercase hex digits');
    buf[i + 1] = (hi << 4) | lo;
  }
  return sha256(buf.subarray(0, 33));
}

export function hashChildren(l: Hash32, r: Hash32): Hash32 {
  if (l.length !== 32 || r.length !== 32) throw new TypeError('Merkle node hashes are 32 bytes');
  nodeInput.set(l, 1);
  nodeInput.set(r, 33);
  return sha256(nodeInput);
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
