// verifier/crypto/node.ts: the node:crypto CryptoBackend, the hot path for the sequencer, the
// witness and the offline verifier. Raw keys become KeyObjects through fixed DER prefixes
// (PKCS#8 / SPKI) and are cached, since building a KeyObject costs about as much as a verify.
// Ed25519 verify applies the one rule (ed25519-rules.ts) first: the key check is folded into the
// KeyObject cache (a key that breaks it caches as null), the signature check (S < L, canonical R)
// is a few byte comparisons per call. OpenSSL then computes the cofactorless equation with an
// encoding comparison of R, the same as noble.ts (backend.test.ts proves they agree).
// ML-DSA-44 uses node:crypto where it has it (Node >= 24.6, OpenSSL 3.5: keys through the
// RFC 9881 SPKI and the seed-only PKCS#8 form, so the seed is the key) and @noble/post-quantum
// otherwise (mldsa44.ts); which one is found once, on first use, and shown as mldsa44Impl.

import * as nc from 'node:crypto';
import type { CryptoBackend } from './backend.ts';
import { checkEd25519PublicKey, checkEd25519Signature } from './ed25519-rules.ts';
import { checkMldsa44Seed, createNobleMldsa44, mldsa44InputsFit, MLDSA44_PUBLIC_KEY_BYTES } from './mldsa44.ts';

const ED_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
const ED_SPKI = Buffer.from('302a300506032b6570032100', 'hex');
const P256_SPKI = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');
const P256_PKCS8_HEAD = Buffer.from('3041020100301306072a8648ce3d020106082a8648ce3d030107042730250201010420', 'hex');

// ML-DSA-44 (OID 2.16.840.1.101.3.4.3.17): SPKI with the 1312-byte key, PKCS#8 with the seed [0] choice.
const MLDSA_SPKI = Buffer.from('30820532300b06096086480165030403110382052100', 'hex');
const MLDSA_PKCS8_SEED = Buffer.from('3034020100300b06096086480165030403110422802' + '0', 'hex');

/** Whether this node:crypto signs and verifies ML-DSA-44 (Node >= 24.6). */
export function nodeHasMldsa44(): boolean {
  try {
    const k = nc.createPrivateKey({ key: Buffer.concat([MLDSA_PKCS8_SEED, Buffer.alloc(32)]), format: 'der', type: 'pkcs8' });
    return (k.asymmetricKeyType as string | undefined) === 'ml-dsa-44';
  } catch {
    return false;
  }
}

const CACHE_MAX = 4096;
function cached<K, V>(map: Map<K, V>, k: K, make: () => V): V {
  let v = map.get(k);
  if (v === undefined) {
    v = make();
    if (map.size >= CACHE_MAX) map.delete(map.keys().next().value as K);
    map.set(k, v);
  }
  return v;
}

type HashFn = (alg: string, data: Uint8Array | string, enc: 'hex' | 'latin1') => string;
const oneShot = (nc as unknown as { hash?: HashFn }).hash;

/**
 * A 32-byte digest given as latin1 text, in a Buffer of its own 32-byte ArrayBuffer: the same
 * bytes and the same kind of value as crypto.hash's 'buffer' output, and cheaper per call for
 * the short inputs of the Merkle tree.
 */
function digestBytes(latin1: string): Uint8Array {
  const out = Buffer.allocUnsafeSlow(32);
  for (let i = 0; i < 32; i++) out[i] = latin1.charCodeAt(i);
  return out;
}

export function createNodeBackend(): CryptoBackend {
  const pubCache = new Map<string, nc.KeyObject | null>();
  const privCache = new Map<string, nc.KeyObject>();
  const key = (tag: string, b: Uint8Array) => tag + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

  function edPub(pub: Uint8Array): nc.KeyObject | null {
    return cached(pubCache, key('e', pub), () => {
      if (!checkEd25519PublicKey(pub).ok) return null;
      try {
        return nc.createPublicKey({ key: Buffer.concat([ED_SPKI, pub]), format: 'der', type: 'spki' });
      } catch {
        return null;
      }
    });
  }
  function edPriv(seed: Uint8Array): nc.KeyObject {
    if (seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes');
    return cached(privCache, key('e', seed), () =>
      nc.createPrivateKey({ key: Buffer.concat([ED_PKCS8, seed]), format: 'der', type: 'pkcs8' }),
    );
  }
  function pPub(pub: Uint8Array): nc.KeyObject | null {
    return cached(pubCache, key('p', pub), () => {
      if (pub.length !== 65 || pub[0] !== 4) return null;
      try {
        return nc.createPublicKey({ key: Buffer.concat([P256_SPKI, pub]), format: 'der', type: 'spki' });
      } catch {
        return null;
      }
    });
  }
  function pPriv(secret: Uint8Array): nc.KeyObject {
    if (secret.length !== 32) throw new TypeError('a P-256 secret is 32 bytes');
    return cached(privCache, key('p', secret), () =>
      nc.createPrivateKey({ key: Buffer.concat([P256_PKCS8_HEAD, secret]), format: 'der', type: 'pkcs8' }),
    );
  }

  let mldsa: ReturnType<typeof createNobleMldsa44> | undefined;
  let mldsaImpl: 'node' | 'noble' | undefined;
  const mlImpl = (): 'node' | 'noble' => (mldsaImpl ??= nodeHasMldsa44() ? 'node' : 'noble');
  const nobleMl = () => (mldsa ??= createNobleMldsa44());
  function mlPub(pub: Uint8Array): nc.KeyObject | null {
    return cached(pubCache, key('m', pub), () => {
      if (pub.length !== MLDSA44_PUBLIC_KEY_BYTES) return null;
      try {
        return nc.createPublicKey({ key: Buffer.concat([MLDSA_SPKI, pub]), format: 'der', type: 'spki' });
      } catch {
        return null;
      }
    });
  }
  function mlPriv(seed: Uint8Array): nc.KeyObject {
    checkMldsa44Seed(seed);
    return cached(privCache, key('m', seed), () =>
      nc.createPrivateKey({ key: Buffer.concat([MLDSA_PKCS8_SEED, seed]), format: 'der', type: 'pkcs8' }),
    );
  }

  return {
    name: 'node',
    get mldsa44Impl() {
      return mlImpl();
    },
    mldsa44PublicKey(seed) {
      if (mlImpl() === 'noble') return nobleMl().publicKey(seed);
      const spki = nc.createPublicKey(mlPriv(seed)).export({ format: 'der', type: 'spki' });
      return new Uint8Array(spki.subarray(spki.length - MLDSA44_PUBLIC_KEY_BYTES));
    },
    mldsa44Sign(seed, msg) {
      if (mlImpl() === 'noble') return nobleMl().sign(seed, msg);
      return new Uint8Array(nc.sign(null, msg, mlPriv(seed)));
    },
    mldsa44Verify(pub, msg, sig) {
      if (!mldsa44InputsFit(pub, sig)) return false;
      if (mlImpl() === 'noble') return nobleMl().verify(pub, msg, sig);
      const k = mlPub(pub);
      if (!k) return false;
      try {
        return nc.verify(null, msg, k, sig);
      } catch {
        return false;
      }
    },
    // One-shot crypto.hash (Node >= 20.12) is about twice as fast as createHash for small inputs;
    // its 'buffer' output is its slow path, so the digest comes as latin1 text (digestBytes).
    sha256: oneShot ? (d) => digestBytes(oneShot('sha256', d, 'latin1')) : (d) => nc.createHash('sha256').update(d).digest(),
    sha256Hex: oneShot ? (text) => oneShot('sha256', text, 'hex') : (text) => nc.createHash('sha256').update(text, 'utf8').digest('hex'),
    sha256Text: oneShot
      ? (text) => digestBytes(oneShot('sha256', text, 'latin1'))
      : (text) => nc.createHash('sha256').update(text, 'utf8').digest(),
    ed25519PublicKey(seed) {
      const spki = nc.createPublicKey(edPriv(seed)).export({ format: 'der', type: 'spki' });
      return new Uint8Array(spki.subarray(spki.length - 32));
    },
    ed25519Sign: (seed, msg) => new Uint8Array(nc.sign(null, msg, edPriv(seed))),
    ed25519Verify(pub, msg, sig) {
      if (pub.length !== 32 || sig.length !== 64 || !checkEd25519Signature(sig).ok) return false;
      const k = edPub(pub);
      if (!k) return false;
      try {
        return nc.verify(null, msg, k, sig);
      } catch {
        return false;
      }
    },
    p256PublicKey(secret) {
      const spki = nc.createPublicKey(pPriv(secret)).export({ format: 'der', type: 'spki' });
      return new Uint8Array(spki.subarray(spki.length - 65));
    },
    p256Sign: (secret, msg) => new Uint8Array(nc.sign('sha256', msg, { key: pPriv(secret), dsaEncoding: 'ieee-p1363' })),
    p256Verify(pub, msg, sig) {
      if (sig.length !== 64) return false;
      const k = pPub(pub);
      if (!k) return false;
      try {
        return nc.verify('sha256', msg, { key: k, dsaEncoding: 'ieee-p1363' }, sig);
      } catch {
        return false;
      }
    },
    randomBytes: (n) => new Uint8Array(nc.randomBytes(n)),
  };
}
