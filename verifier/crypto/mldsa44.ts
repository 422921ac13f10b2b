// verifier/crypto/mldsa44.ts: ML-DSA-44 (FIPS 204) sizes, the length checks every backend applies
// first, and the portable implementation on @noble/post-quantum (pinned exactly: its 0.6 release
// swapped the argument order, and every argument is a Uint8Array, so a wrong order compiles; 0.7.1
// is sign(msg, secretKey) and verify(sig, msg, publicKey)). Pure ML-DSA with an empty context, as
// c2sp.org/tlog-cosignature asks; keys are 32-byte seeds expanded by ML-DSA.KeyGen_internal, so
// node:crypto (node.ts) and noble derive the same key pair from one seed. It leaves out HashML-DSA,
// contexts and the other parameter sets. Invariant: nothing of the wrong length reaches a library,
// and verify never throws (a library exception is a refusal).

import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';

export const MLDSA44_PUBLIC_KEY_BYTES = 1312;
export const MLDSA44_SIGNATURE_BYTES = 2420;
export const MLDSA44_SEED_BYTES = 32;

/** The inputs a verify may look at: a 1312-byte key and a 2420-byte signature. */
export function mldsa44InputsFit(publicKey: Uint8Array, sig: Uint8Array): boolean {
  return (
    publicKey instanceof Uint8Array &&
    sig instanceof Uint8Array &&
    publicKey.length === MLDSA44_PUBLIC_KEY_BYTES &&
    sig.length === MLDSA44_SIGNATURE_BYTES
  );
}

export function checkMldsa44Seed(seed: Uint8Array): void {
  if (!(seed instanceof Uint8Array) || seed.length !== MLDSA44_SEED_BYTES) throw new TypeError('an ML-DSA-44 seed is 32 bytes');
}

/** The noble half: expanded secret keys are cached by seed (expansion costs about a signature). */
export function createNobleMldsa44(): {
  publicKey(seed: Uint8Array): Uint8Array;
  sign(seed: Uint8Array, msg: Uint8Array): Uint8Array;
  verify(publicKey: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean;
} {
  const keys = new Map<string, { publicKey: Uint8Array; secretKey: Uint8Array }>();
  const pair = (seed: Uint8Array) => {
    checkMldsa44Seed(seed);
    const k = Array.from(seed, (b) => b.toString(16).padStart(2, '0')).join('');
    let p = keys.get(k);
    if (!p) {
      p = ml_dsa44.keygen(seed);
      if (keys.size >= 64) keys.delete(keys.keys().next().value as string);
      keys.set(k, p);
    }
    return p;
  };
  return {
    publicKey: (seed) => pair(seed).publicKey.slice(),
    sign: (seed, msg) => ml_dsa44.sign(msg, pair(seed).secretKey),
    verify(publicKey, msg, sig) {
      if (!mldsa44InputsFit(publicKey, sig)) return false;
      try {
        return ml_dsa44.verify(sig, msg, publicKey);
      } catch {
        return false;
      }
    },
  };
}
