// bench/mldsa.ts: the `mldsa` section of bench/results.json (docs/design.md §13, docs/post-quantum.md):
// ML-DSA-44 sign and verify per second for each backend (@noble/post-quantum in this Node;
// node:crypto in this Node from 24.6, else in a child on the Node 24 binary when one is installed
// (bench/mldsa-child.ts), else reported as "absent"), and the witness's C2SP add-checkpoint per second with both keys
// (an Ed25519 cosignature/v1 line and an ML-DSA-44 line per answer, the log's Ed25519 note signature
// verified, the state committed to LevelDB), as a ratio to the crypto that one answer needs
// (1 Ed25519 verify + 1 Ed25519 sign + 1 ML-DSA-44 sign on the default backend), measured in
// interleaved pairs (bench/pairs.ts). Left out: the HTTP transport (the c2sp section measures it)
// and worker threads (ML-DSA-44 is signed on the event loop). Every figure is measured, none asserted.

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createNodeBackend } from '../verifier/crypto/node.ts';
import { createNobleBackend } from '../verifier/crypto/noble.ts';
import { defaultBackend } from '../verifier/crypto/default.ts';
import { createSigner, generateSecretKey } from '../verifier/signing/signature.ts';
import {
  formatCheckpointBody,
  formatSignerKey,
  createNoteSigner,
  signNote,
  SIG_ED25519,
  SIG_MLDSA44,
} from '../verifier/c2sp/note/index.ts';
import { openStateStore } from '../witness/server/state.ts';
import { createLogRegistry } from '../witness/server/c2sp-logs.ts';
import { createWitnessCosigner } from '../witness/server/note-cosigner.ts';
import { createMldsaCosigner } from '../witness/server/mldsa-cosigner.ts';
import { processC2spAddCheckpoint } from '../witness/server/c2sp-add-checkpoint.ts';
import { measurePairs, DEFAULT_PAIRS } from './pairs.ts';
import { runJsonChild } from './json-child.ts';
import { backendRates, type MldsaRates } from './mldsa-rates.ts';

/** Where a Node 24 may be: the CI's npm-packaged one (.ci/run), then this machine's shared one. */
const NODE24 = [join('.ci', 'node24', 'node_modules', '.bin', 'node'), '/work/node24/node_modules/.bin/node'];

/**
 * node:crypto's ML-DSA-44 rates: in this process when this Node has it, else in a child on the
 * Node 24 binary when one is installed (COOKWALA_BENCH_NODE24, else NODE24), else 'absent'.
 */
async function nodeCryptoRates(ms: number): Promise<(MldsaRates & { runtime: string }) | 'absent'> {
  const node = createNodeBackend();
  if (node.mldsa44Impl === 'node') return { ...backendRates(node, ms), runtime: process.versions.node };
  const here = dirname(fileURLToPath(import.meta.url));
  const bin = [process.env.COOKWALA_BENCH_NODE24, ...NODE24.map((p) => resolve(here, '..', p))].find((p) => p && existsSync(p));
  if (!bin) return 'absent';
  const r = await runJsonChild<{ node: string; impl: string } & Partial<MldsaRates>>(
    join(here, 'mldsa-child.ts'),
    [String(ms)],
    'mldsa node:crypto',
    [],
    bin,
  );
  if (r.impl !== 'node' || r.signPerSec === undefined || r.verifyPerSec === undefined) return 'absent';
  return { signPerSec: r.signPerSec, verifyPerSec: r.verifyPerSec, runtime: r.node };
}

export async function run(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const ms = ctx.quick ? 150 : 1500;
  const noble = backendRates(createNobleBackend(), ms);
  const nodeCrypto = await nodeCryptoRates(ms);
  const backends = { noble, node: nodeCrypto };

  // The witness with both keys, in process: one log resubmitting its checkpoint (same size, same
  // root: each request is verified, cosigned twice and committed).
  const dir = await mkdtemp(join(tmpdir(), 'cookwala-bench-mldsa-'));
  try {
    const state = await openStateStore(join(dir, 'state'));
    const origin = 'bench.example/pq';
    const logSigner = createNoteSigner(formatSignerKey(origin, SIG_ED25519, new Uint8Array(32).fill(3)));
    if (!logSigner.ok) throw new Error(logSigner.detail);
    const reg = createLogRegistry([], [{ origin, vkey: logSigner.value.vkey }]);
    if (!reg.ok) throw new Error(reg.detail);
    const witnessKey = createSigner(generateSecretKey('EdDSA', 'bench-w'));
    const mldsa = createMldsaCosigner(formatSignerKey('bench-w', SIG_MLDSA44, new Uint8Array(32).fill(5)));
    if (!mldsa.ok) throw new Error(mldsa.detail);
    const deps = {
      state,
      logKeys: reg.value,
      cosigner: createWitnessCosigner('bench-w', witnessKey),
      mldsaCosigner: mldsa.value,
      clock: Date.now,
    };
    const note = signNote(formatCheckpointBody({ origin, size: 0, rootHash: emptyRoot(), extensions: [] }), [logSigner.value]);
    if (!note.ok) throw new Error(note.detail);
    const body = new TextEncoder().encode(`old 0\n\n${note.value}`);
    const first = await processC2spAddCheckpoint(body, deps);
    if (!first.ok) throw new Error(`${first.code}: ${first.detail}`);
    const b = defaultBackend();
    const seed = new Uint8Array(32).fill(7);
    const msg = new Uint8Array(120).fill(1);
    const edPub = b.ed25519PublicKey(seed);
    const edSig = b.ed25519Sign(seed, msg);
    const window = ctx.quick ? 300 : 2000;
    /** Answers per second the crypto alone allows: 1 / (Ed25519 verify + Ed25519 sign + ML-DSA-44 sign). */
    const limit = async () => {
      const n = Math.max(3, Math.round(window / 20));
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        b.ed25519Verify(edPub, msg, edSig);
        b.ed25519Sign(seed, msg);
        b.mldsa44Sign(seed, msg);
      }
      return (n * 1000) / (performance.now() - t0);
    };
    const figure = async () => {
      let n = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < window) {
        const r = await processC2spAddCheckpoint(body, deps);
        if (!r.ok) throw new Error(`${r.code}: ${r.detail}`);
        n++;
      }
      return (n * 1000) / (performance.now() - t0);
    };
    const pairs = await measurePairs(ctx.quick ? 1 : DEFAULT_PAIRS, limit, figure);
    await state.close();
    return {
      backend: b.mldsa44Impl,
      node: process.versions.node,
      backends,
      // noble against node:crypto, same machine, same run (node:crypto on Node 24 when this Node lacks it).
      ...(nodeCrypto === 'absent'
        ? {}
        : {
            nobleToNodeSign: Math.round((noble.signPerSec / nodeCrypto.signPerSec) * 1000) / 1000,
            nobleToNodeVerify: Math.round((noble.verifyPerSec / nodeCrypto.verifyPerSec) * 1000) / 1000,
          }),
      witnessBothKeysPerSec: Math.round(pairs.median.figure),
      witnessCryptoLimitPerSec: Math.round(pairs.median.limit),
      ratioToCryptoLimit: pairs.ratio,
      ratioSpread: pairs.ratioSpread,
      limitSpread: pairs.limitSpread,
      limitsAgree: pairs.limitsAgree,
      pairs: pairs.pairs.length,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** SHA-256 of the empty string: the root of the empty tree (RFC 6962). */
function emptyRoot(): Uint8Array {
  return defaultBackend().sha256(new Uint8Array(0));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
