// verifier/crypto/ed25519-rules.ts: the one Ed25519 rule of every part (docs/design.md §3; RFC 8032 §5.1.3,
// §5.1.7), checked before any CryptoBackend sees a key or a signature. A public key must be 32
// bytes, encode y < p, not encode x = 0 with the sign bit set, decode to a curve point, not be one
// of the 8 small-order points (the identity among them) and lie in the prime-order subgroup
// ([L]A = identity, so no mixed-order key A' + T). A signature must be 64 bytes with R encoding
// y < p (and not x = 0 with the sign bit) and S < L. Why mixed-order keys are refused too: an
// honest key is [a]B and always passes, while for A' + T a cofactorless verifier (OpenSSL in
// node:crypto, BoringSSL in Chromium's WebCrypto, Go, libsodium) accepts an honest-looking
// signature only when [k]T = 0, about 1 in 8 messages, and a cofactored one (@noble's own verify)
// always: the verdict would depend on the part. The rule leaves one more split, R with a torsion
// component under a torsion-free key, which cofactored verifiers accept and cofactorless refuse.
// Refusing it here would cost a scalar multiplication per signature ([L]R, about a verify), so
// instead every backend uses the cofactorless equation with an encoding comparison:
// encode([S]B - [k]A) == R bytes (noble.ts computes it with @noble's Point API instead of
// calling its cofactored verify). With the rule holding, node:crypto, @noble and WebCrypto then
// compute the same equation over the same hashed bytes, so their verdicts are equal by
// construction (backend.test.ts checks it differentially). R = identity (01 00…00) is refused:
// RFC 8032 allows it and only the key holder can make one, but OpenSSL refuses it from 3.5 (Node
// 24) and accepted it before (Node 20), so the verdict would depend on the Node a part runs on.
// Cost: the key check (a decode and a scalar multiplication [L]A) is dear, so its verdict is cached
// per key; per signature the rule is a cache lookup, small beside the verify itself. Left out: ES256 (no such split there), and
// which keys to trust (verifier/signing/keys.ts, verifier/documents/policy.ts). Invariant: a key or signature that fails here is
// refused by every verify entry point and by both backends' ed25519Verify.

import { Point } from '@noble/ed25519';
import { fail, ok, type Result } from '../errors.ts';

export const ED25519_P = 2n ** 255n - 19n;
export const ED25519_L = 2n ** 252n + 27742317777372353535851937790883648493n;

function littleEndian32(n: bigint): Uint8Array {
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++, n >>= 8n) b[i] = Number(n & 0xffn);
  return b;
}
const L_BYTES = littleEndian32(ED25519_L);

/** Whether the 255-bit little-endian y at b[off..off+32) is below p = 2^255 - 19. */
export function isCanonicalY(b: Uint8Array, off = 0): boolean {
  // p is ed ff … ff 7f (little-endian): y >= p only when bytes 1..31 are all ones (sign bit aside)
  // and byte 0 is at least 0xed.
  if ((b[off + 31] & 0x7f) !== 0x7f) return true;
  for (let i = 30; i >= 1; i--) if (b[off + i] !== 0xff) return true;
  return b[off] < 0xed;
}

/** x = 0 exactly when y = ±1; an encoding of those two points with the sign bit set is not canonical. */
function isNegativeZero(b: Uint8Array, off = 0): boolean {
  const top = b[off + 31];
  if (top === 0x80) {
    if (b[off] !== 0x01) return false;
    for (let i = 1; i < 31; i++) if (b[off + i] !== 0) return false;
    return true; // y = 1 with x_0 = 1
  }
  if (top === 0xff) {
    if (b[off] !== 0xec) return false;
    for (let i = 1; i < 31; i++) if (b[off + i] !== 0xff) return false;
    return true; // y = p - 1 with x_0 = 1
  }
  return false;
}

/** Whether the 32-byte little-endian scalar at b[off..off+32) is below L. */
export function isScalarBelowL(b: Uint8Array, off = 0): boolean {
  for (let i = 31; i >= 0; i--) {
    const x = b[off + i];
    const y = L_BYTES[i];
    if (x !== y) return x < y;
  }
  return false;
}

const OK: Result<true> = Object.freeze(ok<true>(true));
const weak = (detail: string): Result<true> => fail('weak_key', detail);

function decideKey(pub: Uint8Array): Result<true> {
  if (!isCanonicalY(pub)) return weak('non-canonical encoding: y is not below p');
  if (isNegativeZero(pub)) return weak('non-canonical encoding: x = 0 with the sign bit set');
  let a: Point;
  try {
    a = Point.fromBytes(pub, false);
  } catch {
    return weak('not a point on the curve');
  }
  if (a.is0()) return weak('the identity point (small-order: it verifies a signature over any message)');
  if (a.isSmallOrder()) return weak('a small-order point (its order divides 8)');
  if (!a.isTorsionFree()) return weak('a mixed-order point (it has a torsion component)');
  return OK;
}

// A witness of 40,000 logs checks a checkpoint of any of them in turn: the verdicts of all its keys
// must stay cached, or every checkpoint pays the rule again (about 1 ms: a scalar multiplication
// with bigints). An entry is a 32-character string and a shared frozen verdict, about 100 bytes.
const CACHE_MAX = 65_536;
const keyCache = new Map<string, Result<true>>();

function cacheKey(pub: Uint8Array): string {
  return String.fromCharCode.apply(null, pub as unknown as number[]);
}

/** The key rule: ok, or weak_key with the reason. Memoized per key (keys enter rarely). */
export function checkEd25519PublicKey(pub: Uint8Array): Result<true> {
  if (!(pub instanceof Uint8Array) || pub.length !== 32) return weak(`an Ed25519 public key is 32 bytes, got ${pub?.length}`);
  const k = cacheKey(pub);
  let r = keyCache.get(k);
  if (r === undefined) {
    r = Object.freeze(decideKey(pub)); // shared by every caller of this key: nobody may change it
    if (keyCache.size >= CACHE_MAX) keyCache.delete(keyCache.keys().next().value as string);
    keyCache.set(k, r);
  }
  return r;
}

/** Whether b[off..off+32) is 01 00…00, the one canonical encoding of the identity point. */
function isIdentityEncoding(b: Uint8Array, off: number): boolean {
  if (b[off] !== 1) return false;
  for (let i = 1; i < 32; i++) if (b[off + i] !== 0) return false;
  return true;
}

/** The signature rule (strict RFC 8032): ok, or bad_signature with the reason. */
export function checkEd25519Signature(sig: Uint8Array): Result<true> {
  if (!(sig instanceof Uint8Array) || sig.length !== 64)
    return fail('bad_signature', `an Ed25519 signature is 64 bytes, got ${sig?.length}`);
  if (!isCanonicalY(sig, 0) || isNegativeZero(sig, 0)) return fail('bad_signature', 'R is not a canonical point encoding');
  if (isIdentityEncoding(sig, 0)) return fail('bad_signature', 'R is the identity point');
  if (!isScalarBelowL(sig, 32)) return fail('bad_signature', 'S is not below L (a malleated signature)');
  return OK;
}

/** Both rules as one boolean: what every backend's ed25519Verify requires before it computes. */
export function ed25519InputsPass(pub: Uint8Array, sig: Uint8Array): boolean {
  return checkEd25519Signature(sig).ok && checkEd25519PublicKey(pub).ok;
}

/** The Ed25519 verify entry point: the rule, then the backend (which checks it again). */
export function verifyEd25519(
  backend: { ed25519Verify(pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean },
  pub: Uint8Array,
  msg: Uint8Array,
  sig: Uint8Array,
): boolean {
  return ed25519InputsPass(pub, sig) && backend.ed25519Verify(pub, msg, sig);
}
