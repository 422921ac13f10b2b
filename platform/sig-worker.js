// platform/sig-worker.js: the worker_threads half of sig-pool.ts. It verifies batches of raw
// signatures (Ed25519 per RFC 8032, strict; ES256 raw r||s over SHA-256) with node:crypto only, so
// it runs as plain JavaScript with no loader. It never builds signed bytes: the main thread builds
// them with verifier/signing/signature.ts signingHeaderBytes(), so signer and verifier share one encoder. The
// rules mirror verifier/crypto/node.ts exactly (key and signature lengths, the 0x04 point prefix,
// fixed DER prefixes, false on any exception), so a verdict here equals verifyRaw() there
// (sig-pool.test.ts proves it). The one Ed25519 rule (verifier/crypto/ed25519-rules.ts) is applied by sig-pool.ts
// on the main thread before an item is sent here, so this file needs no BigInt point arithmetic.
//
// Message in: one Uint8Array `m` over a transferred ArrayBuffer (byteOffset 0): Uint32 words
//   [id, n, then for item i: alg (0 EdDSA, 1 ES256, other: unknown), pubOff, pubLen, msgOff, msgLen, sigOff, sigLen]
//   followed by the bytes the offsets (from the start of the buffer) point into.
// Message out: one Uint8Array(4 + n), transferred: the Uint32 id, then per item 1 for a valid signature.

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
  const words = new Uint32Array(m.buffer, 0, 2);
  const id = words[0];
  const n = words[1];
  const meta = new Uint32Array(m.buffer, 0, 2 + 7 * n);
  const out = new Uint8Array(4 + n);
  new Uint32Array(out.buffer, 0, 1)[0] = id;
  const buf = Buffer.from(m.buffer, 0, m.byteLength);
  for (let i = 0; i < n; i++) {
    const o = 2 + 7 * i;
    const pub = buf.subarray(meta[o + 1], meta[o + 1] + meta[o + 2]);
    const msg = buf.subarray(meta[o + 3], meta[o + 3] + meta[o + 4]);
    const sig = buf.subarray(meta[o + 5], meta[o + 5] + meta[o + 6]);
    out[4 + i] = verifyOne(meta[o], pub, msg, sig) ? 1 : 0;
  }
  parentPort.postMessage(out, [out.buffer]);
});
