// bench/mldsa-rates.ts: ML-DSA-44 sign and verify per second of one CryptoBackend (docs/design.md
// §13, docs/post-quantum.md), over a 72-byte message (the size of a subtree/v1 message with short
// names) and a fixed seed. Shared by bench/mldsa.ts and its Node 24 child (bench/mldsa-child.ts), so
// both runtimes measure the same loop. Imports only the crypto backends: the child runs on another
// Node, where the native modules the witness needs (LevelDB) are not built.

import type { CryptoBackend } from '../verifier/crypto/backend.ts';

export interface MldsaRates {
  signPerSec: number;
  verifyPerSec: number;
}

/** Operations per second of `fn` over about `ms` milliseconds, after `warm` calls. */
export function rate(fn: () => void, ms: number, warm = 3): number {
  for (let i = 0; i < warm; i++) fn();
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    fn();
    n++;
    t = performance.now();
  }
  return Math.round((n * 1000) / (t - t0));
}

export function backendRates(b: CryptoBackend, ms: number): MldsaRates {
  const seed = new Uint8Array(32).fill(9);
  const msg = new Uint8Array(72).fill(0x42);
  const pub = b.mldsa44PublicKey(seed);
  const sig = b.mldsa44Sign(seed, msg);
  if (!b.mldsa44Verify(pub, msg, sig)) throw new Error(`the ${b.mldsa44Impl} backend does not verify its own ML-DSA-44 signature`);
  return { signPerSec: rate(() => b.mldsa44Sign(seed, msg), ms), verifyPerSec: rate(() => b.mldsa44Verify(pub, msg, sig), ms) };
}
