// bench/c2sp.ts: the `c2sp` section of bench/results.json (docs/design.md §13): the C2SP paths.
// `witnessAddCheckpointPerSec`: tlog-witness add-checkpoint requests per second that ONE witness
// decides over HTTP on 127.0.0.1 (keep-alive, SOCKETS connections) across 1,000 C2SP logs admitted
// by vkey, with the real state store (each cosignature after a synced LevelDB commit, group
// commit across concurrent requests). The logs run in a child process
// (bench/c2sp-witness-client.ts: independent node:crypto notes and proofs, built before the
// clock starts; each log sends its next checkpoint once its last is answered, chainLogs). Target >= 0.7 of the crypto limit (docs/design.md §13): measured in interleaved pairs
// (bench/pairs.ts: this run's one-core limit of one request = 1 Ed25519 verify + 1 sign + the
// consistency proof's hashing, then one timed phase of the child (witnessRounds requests a log, bench/witness-harness.ts), PAIRS times (after an untimed warm-up phase); median pair, spreads,
// limitsAgree), and the same per CPU-second of the witness's process (witnessCpuRatioToCryptoLimit:
// its own overhead, whatever share of a shared machine it got). Also reported: synced batches and
// records per batch, CPU per request of the witness and of the client child, and the worker threads
// checking the logs' note signatures (VERIFY_WORKERS, bench/witness.ts), the signing worker making our
// cosignature/v1 lines (SIGN_WORKER), and the event loop's busy time and the main thread's own CPU per
// request (witnessLoopUsPerRequest, witnessMainCpuUsPerRequestPairs). Left out here: the sequencer's append -> C2SP-quorum checkpoint
// latency (the sequencer side's figure; merged into this section by its own function when present).

import '../bin/polyfill.ts';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { createWitness } from '../witness/server/service.ts';
import { openStateStore } from '../witness/server/state.ts';
import {
  benchWitnessKey,
  cpuPerRequestSummary,
  cpuRatioSummary,
  prefixed,
  SIGN_WORKER,
  pairFigures,
  phaseFigures,
  type PhaseFigures,
  startPhasedClient,
  warmUp,
  VERIFY_WORKERS,
  witnessRounds,
} from './witness-harness.ts';
import { DEFAULT_PAIRS, measurePairs } from './pairs.ts';
import { verifyConsistency } from '../verifier/merkle/index.ts';
import { testKey } from '../testkit/witness.ts';
import { defaultBackend } from '../verifier/crypto/default.ts';
import { c2spBenchLogs } from './c2sp-witness-client.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const LOGS = 1000;
const SOCKETS = 256;
const PAIRS = DEFAULT_PAIRS;

/**
 * This run's one-core crypto limit of one tlog-witness add-checkpoint (the witness decides on one
 * event loop): the log's note signature verified, one cosignature/v1 made, and the consistency
 * proof checked (hashing), measured part by part on `sample` (old size, new size, proof, roots).
 */
function cryptoLimitPerSec(
  sample: { old: number; size: number; proof: Uint8Array[]; oldRoot: Uint8Array; root: Uint8Array },
  ms = 1000,
): { perSec: number; perCpuSec: number } {
  const k = testKey('bench-c2sp-limit', 'witness');
  const msg = new TextEncoder().encode(`cosignature/v1\ntime 1764579600\nbench.example.org/c2sp/x-1\n19\n${'A'.repeat(43)}=\n`);
  const sig = k.signer.sign(msg);
  const backend = defaultBackend();
  const third = ms / 3;
  const rate = (op: () => void, t: number) => {
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < t) {
      for (let i = 0; i < 50; i++) op();
      n += 50;
    }
    return (n / (performance.now() - t0)) * 1000;
  };
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const verify = rate(() => backend.ed25519Verify(k.signer.publicKey, msg, sig), third);
  const sign = rate(() => k.signer.sign(msg), third);
  const hashing = rate(() => {
    if (!verifyConsistency(sample.old, sample.size, sample.proof, sample.oldRoot, sample.root).ok) throw new Error('bad sample proof');
  }, third);
  const cpu = process.cpuUsage(cpu0);
  const perSec = 1 / (1 / verify + 1 / sign + 1 / hashing);
  // Per CPU-second: scaled by wall time over the CPU time this process got while measuring.
  const perCpuSec = (perSec * (performance.now() - wall0)) / ((cpu.user + cpu.system) / 1000);
  return { perSec: Math.round(perSec), perCpuSec: Math.round(perCpuSec) };
}

export async function runWitness(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const rounds = witnessRounds(ctx.quick);
  const dir = await makeTempDir('cookwala-bench-c2sp-');
  const prefix = 'w';
  const state = await openStateStore(join(dir, 'state'));
  const wkey = benchWitnessKey('bench-c2sp-witness');
  const c2spLogs = c2spBenchLogs(prefix, LOGS).map((l) => ({ origin: l.origin, vkey: l.signer.vkey }));
  const witness = createWitness(
    { state, signer: wkey.signer, secretKey: wkey.secretKey, keyRecord: wkey.keyRecord },
    {
      peerKey: await generateKeyPair('Ed25519'),
      listen: ['/ip4/127.0.0.1/tcp/0'],
      httpPort: 0,
      verifyWorkers: VERIFY_WORKERS,
      signWorker: SIGN_WORKER,
      logs: [],
      c2sp: { name: 'bench.example.org/w1', logs: c2spLogs },
    },
  );
  const info = await witness.start();
  try {
    // A proof like the bench's requests (a log grown by 3 from 4 + 3k leaves) for the limit.
    const probe = c2spBenchLogs('limit', 1)[0];
    probe.append(4 + 3 * rounds);
    const size = probe.leaves.length;
    const sample = { old: size - 3, size, proof: probe.proof(size - 3, size), oldRoot: probe.root(size - 3), root: probe.root(size) };
    const clients = startPhasedClient(
      ['bench/c2sp-witness-client.ts', info.http!, String(LOGS), String(rounds), String(SOCKETS), prefix, String(PAIRS + 1), 'chained'],
      state,
      'c2sp',
    );
    await clients.ready();
    await warmUp(clients);
    let failures = 0;
    const statuses: Record<string, number> = {};
    const limits: number[] = [];
    const cpuRatios: number[] = [];
    const pairs = await measurePairs<PhaseFigures>(
      PAIRS,
      async () => {
        const l = cryptoLimitPerSec(sample);
        limits.push(l.perCpuSec);
        return l.perSec;
      },
      async (i) => {
        const r = await clients.phase();
        cpuRatios.push(r.done.requests / (r.cpuMs / 1000) / limits[i]);
        failures += r.done.failures;
        for (const [k, v] of Object.entries(r.done.statuses as Record<string, number>)) statuses[k] = (statuses[k] ?? 0) + v;
        return {
          value: Math.round((r.done.requests / r.done.ms) * 1000),
          extra: phaseFigures(r),
        };
      },
    );
    await clients.closed;
    const m = pairs.median;
    return {
      ...prefixed('witness', pairFigures(pairs)),
      ...prefixed('witness', cpuRatioSummary(cpuRatios)),
      witnessCryptoLimit: 'one core: 1 Ed25519 verify + 1 sign (cosignature/v1) + consistency-proof hashing per request',
      ...prefixed(
        'witness',
        cpuPerRequestSummary(
          m.extra!,
          pairs.pairs.map((p) => p.extra!),
        ),
      ),
      witnessLogs: LOGS,
      witnessRequests: m.extra!.requests,
      witnessFailures: failures,
      witnessStatuses: statuses,
      witnessSockets: SOCKETS,
      witnessClients: 'child process',
      witnessSyncedBatches: m.extra!.batches,
      witnessRecordsPerBatch: Math.round((m.extra!.records / Math.max(1, m.extra!.batches)) * 10) / 10,
    };
  } finally {
    await witness.stop();
    await state.close();
    await removeDir(dir);
  }
}

export async function run(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  return { ...(await runWitness(ctx)), ...(await (await import('./c2sp-checkpoint.ts')).runCheckpoint(ctx)) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  run({ quick: process.argv.includes('--quick') }).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
