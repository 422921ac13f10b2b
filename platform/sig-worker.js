// platform/sig-worker.js: the worker_threads half of sig-pool.ts. It verifies batches of raw
// signatures (Ed25519 per RFC 8032, strict; ES256 raw r||s over SHA-256) with node:crypto only, so
// it runs as plain JavaScript with no loader. It never builds signed bytes: the main thread builds
// them with verifier/documents/signature.ts signingHeaderBytes(), so signer and verifier share one encoder. The
// rules mirror verifier/crypto/node.ts exactly (key and signature lengths, the 0x04 point prefix,
// fixed DER prefixes, false on any exception), so a verdict here equals verifyRaw() there
// (sig-pool.test.ts proves it). The one Ed25519 rule (verifier/crypto/ed25519-rules.ts) is applied by sig-pool.ts
// on the main thread before an item is sent here, so this file needs no BigInt point arithmetic.
//
// Message in:  { id, meta: Uint32Array(7 * n), data: Uint8Array } where item i is
//   meta[7i..7i+6] = [alg (0 EdDSA, 1 ES256, other: unknown), pubOff, pubLen, msgOff, msgLen, sigOff, sigLen]
// Message out: { id, ok: Uint8Array(n) } with 1 for a valid signature; both buffers transferred.

import { parentPort } from 'node:worker_threads';
import { createPublicKey, verify } from 'node:crypto';

const ED_SPKI = Buffer.from('302a300506032b6570032100', 'hex');
const P256_SPKI = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');
const CACHE_MAX = 4096;
const cache = new Map();

function publicKey(tag, pub) {
  const k = tag + pub.toString('base64');
  let v = cache.get(k);
  if (v === undefined) {
    try {
      v = createPublicKey({ key: Buffer.concat([tag === 'e' ? ED_SPKI : P256_SPKI, pub]), format: 'der', type: 'spki' });
    } catch {
      v = null;
    }
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value);
    cache.set(k, v);
  }
  return v;
}

function verifyOne(alg, pub, msg, sig) {
  try {
    if (alg === 0) {
      if (pub.length !== 32 || sig.length !== 64) return false;
      const k = publicKey('e', pub);
      return k ? verify(null, msg, k, sig) : false;
    }
    if (alg === 1) {
      if (sig.length !== 64 || pub.length !== 65 || pub[0] !== 4) return false;
      const k = publicKey('p', pub);
      return k ? verify('sha256', msg, { key: k, dsaEncoding: 'ieee-p1363' }, sig) : false;
    }
    return false;
  } catch {
    return false;
  }
}

parentPort.on('message', (m) => {
  const { id, meta, data } = m;
  const n = meta.length / 7;
  const out = new Uint8Array(n);
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  for (let i = 0; i < n; i++) {
    const o = 7 * i;
    const pub = buf.subarray(meta[o + 1], meta[o + 1] + meta[o + 2]);
    const msg = buf.subarray(meta[o + 3], meta[o + 3] + meta[o + 4]);
    const sig = buf.subarray(meta[o + 5], meta[o + 5] + meta[o + 6]);
    out[i] = verifyOne(meta[o], pub, msg, sig) ? 1 : 0;
  }
  parentPort.postMessage({ id, ok: out }, [out.buffer]);
});
