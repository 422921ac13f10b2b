// verifier/crypto-noble.ts: the portable CryptoBackend on @noble/ed25519, @noble/curves and
// @noble/hashes. Ed25519 verification uses `zip215:false` (strict RFC 8032, matching OpenSSL);
// ECDSA uses `lowS:false` (ES256 does not require low S) and `prehash:true` (SHA-256 of the message).

import * as ed from '@noble/ed25519';
import { p256 } from '@noble/curves/nist.js';
import { sha256 as nobleSha256, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex, randomBytes as nobleRandom, utf8ToBytes } from '@noble/hashes/utils.js';
import type { CryptoBackend } from './crypto-backend.ts';

let configured = false;
function setup(): void {
  if (configured) return;
  // @noble/ed25519 v3's sync API needs sha512 set once (DESIGN §15).
  ed.hashes.sha512 = sha512;
  configured = true;
}

export function createNobleBackend(): CryptoBackend {
  setup();
  return {
    name: 'noble',
    sha256: (d) => nobleSha256(d),
    sha256Hex: (text) => bytesToHex(nobleSha256(utf8ToBytes(text))),
    sha256Text: (text) => nobleSha256(utf8ToBytes(text)),
    ed25519PublicKey: (seed) => ed.getPublicKey(seed),
    ed25519Sign: (seed, msg) => ed.sign(msg, seed),
    ed25519Verify(pub, msg, sig) {
      if (pub.length !== 32 || sig.length !== 64) return false;
      try {
        return ed.verify(sig, msg, pub, { zip215: false });
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
