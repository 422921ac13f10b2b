// witness/server/sign-worker.js: the worker_threads half of signing-worker.ts. It holds the
// witness's Ed25519 private key (the 32-byte seed, given once in workerData; the same process
// holds it on the main thread too, so no new place keeps the secret) and signs batches of
// messages with node:crypto (RFC 8032 Ed25519, deterministic: the bytes equal those of the main
// thread's signer). Plain JavaScript, no loader. It never builds the signed bytes: the main thread
// builds them (checkpoint-cosigner.ts, verifier/c2sp/note/cosignature.ts) after the witness decided,
// and decides what to do with the signatures (commit first, answer after).
//
// Message in: one Uint8Array over a transferred ArrayBuffer (byteOffset 0): Uint32 words
//   [id, n, len_1 … len_n] followed by the n messages' bytes back to back.
// Message out: one Uint8Array(4 + 64 n), transferred: the Uint32 id, then the n signatures.

import { parentPort, workerData } from 'node:worker_threads';
import { createPrivateKey, sign } from 'node:crypto';

const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const seed = Buffer.from(workerData.seed);
if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
seed.fill(0);

parentPort.on('message', (m) => {
  const words = new Uint32Array(m.buffer, 0, 2);
  const id = words[0];
  const n = words[1];
  const lens = new Uint32Array(m.buffer, 8, n);
  const out = new Uint8Array(4 + 64 * n);
  new Uint32Array(out.buffer, 0, 1)[0] = id;
  const buf = Buffer.from(m.buffer, 0, m.byteLength);
  let off = 8 + 4 * n;
  for (let i = 0; i < n; i++) {
    out.set(sign(null, buf.subarray(off, off + lens[i]), key), 4 + 64 * i);
    off += lens[i];
  }
  parentPort.postMessage(out, [out.buffer]);
});
