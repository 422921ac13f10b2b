// web/src/lib/webcrypto-batch.ts: the browser's signature checks for the streaming verifier
// (docs/design.md §3, §12b): a VerifyBatch (verifier/bundle/signature-batches.ts) on WebCrypto, Ed25519 and ECDSA P-256
// with SHA-256, where the browser has them. WebCrypto is asynchronous while CryptoBackend is not,
// so it plugs in where the CLI plugs its worker pool: the verifier decides keys, roles and validity
// on its own thread and hands over raw {alg, publicKey, msg, sig} in batches, whose checks run
// concurrently (Chromium runs them on its crypto threads). Before WebCrypto sees an Ed25519 key or
// signature, the project's one rule applies (verifier/crypto/ed25519-rules.ts: canonical, torsion-free,
// not small-order keys; canonical R; S < L), exactly as node:crypto and @noble get it, and BoringSSL
// then computes the same cofactorless equation, so the verdicts agree (test/web-verifier.test.ts
// runs the Wycheproof vectors in Chromium against node:crypto). ES256: raw r||s of 64 bytes, an
// uncompressed 65-byte point, high S accepted, as verifier/crypto/node.ts. Imported keys are
// cached (a bundle has few keys). `probeWebCrypto` checks RFC 8032 TEST 1 and a tampered copy;
// where either answer is wrong or the algorithm is missing, the caller falls back to @noble.
// Invariant: any malformed input or exception is `false`, never a throw or a rejection.

import { ed25519InputsPass } from '../../../verifier/crypto/index.ts';
import type { RawCheck, VerifyBatch } from '../../../verifier/bundle/index.ts';

const CACHE_MAX = 4096;

function keyId(alg: string, pub: Uint8Array): string {
  let s = alg;
  for (let i = 0; i < pub.length; i++) s += String.fromCharCode(pub[i]);
  return s;
}

/** A copy in its own ArrayBuffer: WebCrypto takes BufferSource, and a view's offset must not leak others' bytes. */
function own(b: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(b) as Uint8Array<ArrayBuffer>;
}

export function createWebCryptoBatch(subtle: SubtleCrypto): VerifyBatch & { readonly stats: { checks: number; keys: number } } {
  const keys = new Map<string, Promise<CryptoKey | null>>();
  const stats = { checks: 0, keys: 0 };

  function importKey(it: RawCheck): Promise<CryptoKey | null> {
    const id = keyId(it.alg, it.publicKey);
    let k = keys.get(id);
    if (!k) {
      stats.keys++;
      const algo = it.alg === 'EdDSA' ? { name: 'Ed25519' } : { name: 'ECDSA', namedCurve: 'P-256' };
      k = subtle.importKey('raw', own(it.publicKey), algo, false, ['verify']).then(
        (key) => key,
        () => null,
      );
      if (keys.size >= CACHE_MAX) keys.delete(keys.keys().next().value as string);
      keys.set(id, k);
    }
    return k;
  }

  async function verifyOne(it: RawCheck): Promise<boolean> {
    try {
      if (it.alg === 'EdDSA') {
        if (it.publicKey.length !== 32 || it.sig.length !== 64 || !ed25519InputsPass(it.publicKey, it.sig)) return false;
        const key = await importKey(it);
        return key ? await subtle.verify({ name: 'Ed25519' }, key, own(it.sig), own(it.msg)) : false;
      }
      if (it.alg === 'ES256') {
        if (it.sig.length !== 64 || it.publicKey.length !== 65 || it.publicKey[0] !== 4) return false;
        const key = await importKey(it);
        return key ? await subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, own(it.sig), own(it.msg)) : false;
      }
      return false;
    } catch {
      return false;
    }
  }

  const batch = async (items: readonly RawCheck[]) => {
    stats.checks += items.length;
    return Promise.all(items.map(verifyOne));
  };
  return Object.assign(batch, { stats });
}

const hex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (x) => parseInt(x, 16));

/** RFC 8032 §7.1 TEST 1: the empty message. */
const TEST1 = {
  pub: hex('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'),
  sig: hex(
    'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  ),
};

/** true when this WebCrypto verifies Ed25519 correctly (a good signature yes, a tampered one no). */
export async function probeWebCrypto(subtle: SubtleCrypto | undefined): Promise<boolean> {
  if (!subtle) return false;
  try {
    const key = await subtle.importKey('raw', own(TEST1.pub), { name: 'Ed25519' }, false, ['verify']);
    const good = await subtle.verify({ name: 'Ed25519' }, key, own(TEST1.sig), new Uint8Array(0));
    const bad = own(TEST1.sig);
    bad[0] ^= 1;
    const tampered = await subtle.verify({ name: 'Ed25519' }, key, bad, new Uint8Array(0));
    return good === true && tampered === false;
  } catch {
    return false;
  }
}
