// verifier/merkle/verify.ts: RFC 9162 §2.1.3.2 (inclusion) and §2.1.4.2 (consistency) proof
// verification, returning Result with code 'bad_proof' and a detail naming what failed. It leaves
// out proof generation (plan.ts) and any notion of trust in the roots.
// Semantics follow transparency-dev/merkle, whose probe vectors we pass: sizes and indices must be
// safe non-negative integers; every hash that enters the hashing is exactly 32 bytes; a consistency
// proof from size1 = 0 is refused (it proves nothing; callers that accept a first checkpoint, like a
// witness with no state, special-case 0 themselves); with size1 = size2 the proof must be empty and
// the two roots byte-equal (they are compared, never hashed, so their length is not checked).
// Invariant: loops are bounded by the proof length, which is capped at MAX_PROOF.

import { bytesEqual } from '../encoding/wire.ts';
import { fail, ok, type Result } from '../errors.ts';
import { half, hashChildren, isCount, isOdd, isPowerOfTwo, type Hash32 } from './hash.ts';

/** No valid proof over fewer than 2^53 leaves has more than 2 * 53 elements. */
const MAX_PROOF = 128;

function badHash(h: unknown): boolean {
  return !(h instanceof Uint8Array) || h.length !== 32;
}

function checkProofArray(proof: unknown): Result<Hash32[]> {
  if (!Array.isArray(proof)) return fail('bad_proof', 'the proof is not an array of hashes');
  if (proof.length > MAX_PROOF) return fail('bad_proof', `a proof of ${proof.length} hashes is longer than any valid one`);
  for (let i = 0; i < proof.length; i++) if (badHash(proof[i])) return fail('bad_proof', `proof[${i}] is not a 32-byte hash`);
  return ok(proof as Hash32[]);
}

/** The root that `proof` yields for `leafHash` at `index` in a tree of `size` leaves. */
export function rootFromInclusion(leafHash: Hash32, index: number, size: number, proof: Hash32[]): Result<Hash32> {
  if (!isCount(index) || !isCount(size)) return fail('bad_proof', 'index and size must be integers in [0, 2^53 - 1]');
  if (index >= size) return fail('bad_proof', `leaf index ${index} is not below tree size ${size}`);
  if (badHash(leafHash)) return fail('bad_proof', 'the leaf hash is not 32 bytes');
  const p = checkProofArray(proof);
  if (!p.ok) return p;
  let fn = index;
  let sn = size - 1;
  let r = leafHash;
  for (const h of p.value) {
    if (sn === 0) return fail('bad_proof', `the proof has more hashes than a path in a tree of ${size} leaves`);
    if (isOdd(fn) || fn === sn) {
      r = hashChildren(h, r);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = hashChildren(r, h);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return fail('bad_proof', `the proof has fewer hashes than a path in a tree of ${size} leaves`);
  return ok(r);
}

export function verifyInclusion(leafHash: Hash32, index: number, size: number, proof: Hash32[], root: Hash32): Result<true> {
  if (badHash(root)) return fail('bad_proof', 'the root is not 32 bytes');
  const r = rootFromInclusion(leafHash, index, size, proof);
  if (!r.ok) return r;
  if (!bytesEqual(r.value, root))
    return fail('bad_proof', `the inclusion proof for leaf ${index} does not lead to the root of tree size ${size}`);
  return ok(true);
}

export function verifyConsistency(size1: number, size2: number, proof: Hash32[], root1: Hash32, root2: Hash32): Result<true> {
  if (!isCount(size1) || !isCount(size2)) return fail('bad_proof', 'sizes must be integers in [0, 2^53 - 1]');
  if (size1 === 0) return fail('bad_proof', 'a consistency proof from the empty tree (size1 = 0) proves nothing');
  if (size2 < size1) return fail('bad_proof', `size2 ${size2} is smaller than size1 ${size1}`);
  if (!Array.isArray(proof)) return fail('bad_proof', 'the proof is not an array of hashes');
  if (size1 === size2) {
    if (proof.length !== 0) return fail('bad_proof', 'equal sizes need an empty proof');
    if (!(root1 instanceof Uint8Array) || !(root2 instanceof Uint8Array) || !bytesEqual(root1, root2)) {
      return fail('bad_proof', `two different roots for the same tree size ${size1}`);
    }
    return ok(true);
  }
  if (proof.length === 0) return fail('bad_proof', `an empty proof cannot link size ${size1} to size ${size2}`);
  if (badHash(root1) || badHash(root2)) return fail('bad_proof', 'a root is not 32 bytes');
  const checked = checkProofArray(proof);
  if (!checked.ok) return checked;
  // §2.1.4.2 step 2: when size1 is a power of two the proof starts from root1 itself.
  const path = isPowerOfTwo(size1) ? [root1, ...checked.value] : checked.value;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0];
  let sr = path[0];
  for (let i = 1; i < path.length; i++) {
    const c = path[i];
    if (sn === 0) return fail('bad_proof', `the proof is longer than a consistency proof from ${size1} to ${size2}`);
    if (isOdd(fn) || fn === sn) {
      fr = hashChildren(c, fr);
      sr = hashChildren(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = hashChildren(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return fail('bad_proof', `the proof is shorter than a consistency proof from ${size1} to ${size2}`);
  if (!bytesEqual(fr, root1)) return fail('bad_proof', `the proof does not lead to root1 (size ${size1})`);
  if (!bytesEqual(sr, root2)) return fail('bad_proof', `the proof does not lead to root2 (size ${size2})`);
  return ok(true);
}
