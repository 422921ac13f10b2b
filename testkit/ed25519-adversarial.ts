// testkit/ed25519-adversarial.ts: test support only (no product module imports it): Ed25519 inputs
// on which verifiers are known to split (RFC 8032 §5.1.7 leaves room; "Taming the many EdDSAs",
// Chalkias et al. 2020): the 8 small-order points and their non-canonical encodings, mixed-order
// keys A + T, R with a torsion component, identity R, S + L, non-canonical y (y >= p), and the
// identity-key forgery (A = identity, R = [a]B, S = a verifies any message under a
// cofactorless verifier that does not refuse the key). Signatures are made from a bare scalar x
// (not a seed), so keys with a torsion part can be "signed" too. Built on @noble's Point API; the
// torsion generator is found by search, so no constant is taken on trust.

import { Point } from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { ED25519_L as L, ED25519_P as P } from '../verifier/crypto/ed25519-rules.ts';

export { L, P };
export const B = Point.BASE;

export function le32(n: bigint): Uint8Array {
  if (n < 0n || n >= 1n << 256n) throw new RangeError('not a 32-byte little-endian integer');
  const b = new Uint8Array(32);
  for (let i = 0; i < 32; i++, n >>= 8n) b[i] = Number(n & 0xffn);
  return b;
}

export function leInt(b: Uint8Array): bigint {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]);
  return n;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** An encoding of y (taken as is, may be >= p) with the sign bit x_0. */
export function encodeY(y: bigint, sign: boolean): Uint8Array {
  const b = le32(y);
  if (sign) b[31] |= 0x80;
  return b;
}

/** The identity point's canonical encoding: 01 followed by 31 zero bytes. */
export const IDENTITY = encodeY(1n, false);

function findTorsionGenerator(): Point {
  for (let y = 2n; ; y++) {
    let p: Point;
    try {
      p = Point.fromBytes(encodeY(y, false), false);
    } catch {
      continue;
    }
    const t = p.multiply(L - 1n, false).add(p); // [L]p: p's torsion component
    if (!t.multiply(4n, false).is0()) return t; // order 8
  }
}

/** A point of order 8; its multiples [0..7]T8 are the 8 small-order points. */
export const T8 = findTorsionGenerator();
export const SMALL_ORDER: Point[] = Array.from({ length: 8 }, (_, i) => (i === 0 ? Point.ZERO : T8.multiply(BigInt(i), false)));

/** Non-canonical encodings of small-order points: y + p for y in {0, 1}, and x = 0 with the sign bit. */
export const SMALL_ORDER_NONCANONICAL: Uint8Array[] = [
  encodeY(P, false),
  encodeY(P, true), // y = 0 (order 4) as y = p
  encodeY(P + 1n, false),
  encodeY(P + 1n, true), // identity as y = p + 1
  encodeY(1n, true), // identity, x = 0 with the sign bit
  encodeY(P - 1n, true), // order 2, x = 0 with the sign bit
];

/** Every y >= p (y - p < 19) that decodes (ZIP-215 style) to a point: all are non-canonical. */
export const NONCANONICAL_Y: Uint8Array[] = (() => {
  const out: Uint8Array[] = [];
  for (let v = 0n; v < 19n; v++) {
    for (const s of [false, true]) {
      const b = encodeY(P + v, s);
      try {
        Point.fromBytes(b, true);
        out.push(b);
      } catch {
        // not on the curve
      }
    }
  }
  return out;
})();

/** The key [x]B + T (T = identity for an honest key), as bytes. */
export function keyOf(x: bigint, torsion: Point = Point.ZERO): Uint8Array {
  return B.multiply(x).add(torsion).toBytes();
}

/** k = SHA-512(R || A || M) mod L. */
export function challenge(r: Uint8Array, pub: Uint8Array, msg: Uint8Array): bigint {
  return leInt(sha512(concat(r, pub, msg))) % L;
}

/**
 * A signature by scalar x under the key bytes `pub`, with nonce r and R = [r]B + rTorsion
 * (r = 0 and no torsion gives R = identity). `rBytes` overrides R's encoding (non-canonical R).
 */
export function signScalar(
  x: bigint,
  pub: Uint8Array,
  msg: Uint8Array,
  r: bigint,
  rTorsion: Point = Point.ZERO,
  rBytes?: Uint8Array,
): Uint8Array {
  const rPoint = (r === 0n ? Point.ZERO : B.multiply(r)).add(rTorsion);
  const R = rBytes ?? rPoint.toBytes();
  const s = (r + challenge(R, pub, msg) * x) % L;
  return concat(R, le32(s));
}

/** The issue-9 forgery: identity key, R = [a]B, S = a; the cofactorless equation holds for any message. */
export function identityForgery(a: bigint): { pub: Uint8Array; sig: Uint8Array } {
  return { pub: IDENTITY, sig: concat(B.multiply(a).toBytes(), le32(a)) };
}

/** The same signature with S + L (the malleated twin; S + L < 2^256 always). */
export function withSPlusL(sig: Uint8Array): Uint8Array {
  return concat(sig.subarray(0, 32), le32(leInt(sig.subarray(32)) + L));
}
