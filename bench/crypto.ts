// bench/crypto.ts: the `crypto` section of bench/results.json (docs/design.md §13): sign, verify, SHA-256
// on 1 KB and JCS of an ~800-byte object, node:crypto and @noble side by side, plus node:crypto
// Ed25519 verify/s on all cores (worker threads), the limit other sections report ratios against.

import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { createNodeBackend } from '../verifier/crypto/node.ts';
import { createNobleBackend } from '../verifier/crypto/noble.ts';
import type { CryptoBackend } from '../verifier/crypto/backend.ts';
import { canonicalize } from '../verifier/encoding/jcs.ts';

export interface BenchCtx {
  quick: boolean;
}

/** ops/s of `fn` over about `ms` milliseconds (after a short warm-up). */
export function opsPerSec(fn: () => void, ms: number): number {
  for (let i = 0; i < 50; i++) fn();
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let i = 0; i < 20; i++) fn();
    n += 20;
    t = performance.now();
  }
  return Math.round((n * 1000) / (t - t0));
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const c = require('node:crypto');
const seed = Buffer.alloc(32, 7);
const priv = c.createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420','hex'), seed]), format: 'der', type: 'pkcs8' });
const pub = c.createPublicKey(priv);
const msg = Buffer.alloc(200, 1);
const sig = c.sign(null, msg, priv);
let n = 0; const t0 = Date.now();
while (Date.now() - t0 < workerData.ms) { for (let i = 0; i < 50; i++) c.verify(null, msg, pub, sig); n += 50; }
parentPort.postMessage(n * 1000 / (Date.now() - t0));
`;

/** node:crypto Ed25519 verify/s with one worker per core: the ingest and verify limit. */
export async function verifyPerSecAllCores(ms: number): Promise<number> {
  const n = availableParallelism();
  const rates = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<number>((resolve, reject) => {
          const w = new Worker(WORKER, { eval: true, workerData: { ms } });
          w.once('message', (v: number) => {
            resolve(v);
            void w.terminate();
          });
          w.once('error', reject);
        }),
    ),
  );
  return Math.round(rates.reduce((a, b) => a + b, 0));
}

function sample800(): Record<string, unknown> {
  return {
    specversion: '1.0',
    id: 'evt-000123',
    source: 'urn:cookwala:device:oven-7',
    type: 'cookwala.execution.running',
    subject: 'exec-42',
    time: '2026-11-30T10:00:00.123Z',
    datacontenttype: 'application/json',
    cookwalaseq: 17,
    data: {
      recipe: 'r-1',
      step: 3,
      tempC: 92.5,
      medium: 'water',
      notes: 'x'.repeat(420),
      sensors: [
        { id: 's1', v: 91.2 },
        { id: 's2', v: 93.1 },
      ],
    },
  };
}

function measure(b: CryptoBackend, ms: number) {
  const seed = new Uint8Array(32).fill(5);
  const pk = b.ed25519PublicKey(seed);
  const msg = new Uint8Array(200).fill(3);
  const sig = b.ed25519Sign(seed, msg);
  const p256Secret = new Uint8Array(32).fill(9);
  const p256Pk = b.p256PublicKey(p256Secret);
  const p256Sig = b.p256Sign(p256Secret, msg);
  const kb = new Uint8Array(1024).fill(1);
  const sha = opsPerSec(() => b.sha256(kb), ms);
  return {
    ed25519SignPerSec: opsPerSec(() => b.ed25519Sign(seed, msg), ms),
    ed25519VerifyPerSec: opsPerSec(() => b.ed25519Verify(pk, msg, sig), ms),
    es256VerifyPerSec: opsPerSec(() => b.p256Verify(p256Pk, msg, p256Sig), ms),
    sha256MBps1KB: Math.round((sha * 1024) / 1e6),
  };
}

export async function run(ctx: BenchCtx): Promise<Record<string, unknown>> {
  const ms = ctx.quick ? 150 : 1000;
  const node = measure(createNodeBackend(), ms);
  const noble = measure(createNobleBackend(), ms);
  const obj = sample800();
  const jcsBytes = canonicalize(obj).ok ? (canonicalize(obj) as { value: string }).value.length : 0;
  const jcsPerSec = opsPerSec(() => canonicalize(obj), ms);
  const allCores = await verifyPerSecAllCores(ctx.quick ? 300 : 2000);
  const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
  return {
    node,
    noble,
    ratios: {
      ed25519Verify: ratio(node.ed25519VerifyPerSec, noble.ed25519VerifyPerSec),
      ed25519Sign: ratio(node.ed25519SignPerSec, noble.ed25519SignPerSec),
      es256Verify: ratio(node.es256VerifyPerSec, noble.es256VerifyPerSec),
      sha256: ratio(node.sha256MBps1KB, noble.sha256MBps1KB),
    },
    jcsPerSec,
    jcsObjectBytes: jcsBytes,
    ed25519VerifyPerSecAllCores: allCores,
    cores: availableParallelism(),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
