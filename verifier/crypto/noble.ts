// verifier/crypto/noble.ts: the portable CryptoBackend on @noble/ed25519, @noble/curves and
// @noble/hashes. Ed25519 verification first applies the one rule (ed25519-rules.ts: key canonical,
// prime order, not small-order; R canonical; S < L), then computes the cofactorless RFC 8032
// equation itself with @noble's Point API and compares encodings, encode([S]B - [k]A) == R, as
// OpenSSL and BoringSSL do. It does not call `ed.verify`: @noble 3.2.0's strict branch
// (`zip215:false`) checks [8]([S]B - R - [k]A) = 0, which also accepts an R with a torsion component
// that node:crypto refuses (ed25519-rules.ts explains the choice). ECDSA uses `lowS:false` (ES256
// does not require low S) and `prehash:true` (SHA-256 of the message). ML-DSA-44 is
// @noble/post-quantum's (mldsa44.ts), so the browser verifies it with no WebCrypto support.
// SHA-256 is sha256.ts, made for the many small documents a verifier hashes.

import * as ed from '@noble/ed25519';
import { p256 } from '@noble/curves/nist.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { randomBytes as nobleRandom } from '@noble/hashes/utils.js';
import type { CryptoBackend } from './backend.ts';
import { sha256Bytes, sha256HexOfText, sha256OfText } from './sha256.ts';
import { ED25519_L, ed25519InputsPass } from './ed25519-rules.ts';
import { createNobleMldsa44 } from './mldsa44.ts';

/** The little-endian integer of b (RFC 8032 §5.1.2). */
function leInt(b: Uint8Array): bigint {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]);
  return n;
}

/** Cofactorless RFC 8032 §5.1.7 on inputs that passed the rule: encode([S]B - [k]A) == R. */
function verifyCofactorless(pub: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  const r = sig.subarray(0, 32);
  const a = ed.Point.fromBytes(pub, false);
  const s = leInt(sig.subarray(32, 64)); // < L by the rule
  const k = leInt(sha512(concat3(r, pub, msg))) % ED25519_L;
  const check = ed.Point.BASE.multiply(s, false).subtract(a.multiply(k, false)).toBytes();
  let diff = 0;
  for (let i = 0; i < 32; i++) diff |= check[i] ^ r[i];
  return diff === 0;
}

function concat3(a: Uint8Array, b: Uint8Array, c: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length + c.length);
  out.set(a, 0);
  out.set(b, a.length);
  out.set(c, a.length + b.length);
  return out;
}

let configured = false;
function setup(): void {
  if (configured) return;
  // @noble/ed25519 v3's sync API needs sha512 set once (docs/design.md §15).
  ed.hashes.sha512 = sha512;
  configured = true;
}

export function createNobleBackend(): CryptoBackend {
  setup();
  const ml = createNobleMldsa44();
  return {
    name: 'noble',
    mldsa44Impl: 'noble',
    mldsa44PublicKey: (seed) => ml.publicKey(seed),
    mldsa44Sign: (seed, msg) => ml.sign(seed, msg),
    mldsa44Verify: (pub, msg, sig) => ml.verify(pub, msg, sig),
    sha256: (d) => sha256Bytes(d),
    sha256Hex: (text) => sha256HexOfText(text),
    sha256Text: (text) => sha256OfText(text),
    ed25519PublicKey: (seed) => ed.getPublicKey(seed),
    ed25519Sign: (seed, msg) => ed.sign(msg, seed),
    ed25519Verify(pub, msg, sig) {
      if (pub.length !== 32 || sig.length !== 64 || !ed25519InputsPass(pub, sig)) return false;
      try {
        return verifyCofactorless(pub, msg, sig);
      } catch {
        return false;
      }
    },
    p256PublicKey: (secret) => p256.getPublicKey(secret, false),
    p256Sign: (secret, msg) => p256.sign(msg, secret, { prehash: true, lowS: false }),
    p256Verify(pub, msg, sig) {
      if (sig.length !== 64) return false;
      try {
        return p256.verify(sig, msg, pub, { prehash: true, lowS: false });
      } catch {
        return false;
      }
    },
    randomBytes: (n) => nobleRandom(n),
  };
}
