// bench/witness.ts: the `witness` section of bench/results.json (docs/design.md §13): add-checkpoint
// requests per second that ONE witness decides across 1,000 logs, over libp2p on 127.0.0.1
// (TCP, noise, yamux), on persistent streams (a few client streams, as several sequencers would
// hold), with the real state store (every cosignature after a synced LevelDB commit; concurrent
// requests share a batch). The fake sequencers run in a child process (bench/witness-client.ts)
// and build their requests (sequencer signatures, consistency and head proofs) before any clock
// starts, so the figure is the witness's CPU, not also its clients'; each log sends its next
// checkpoint once its last is answered (chainLogs), with no barrier across the 1,000 logs. The ratio comes from
// interleaved pairs (bench/pairs.ts): this run's one-core crypto limit of one request
// (1 Ed25519 verify + 2 signs, JCS and cosignature/v1, + its proof hashing; the witness decides on
// one event loop), then one timed phase of the child, PAIRS times (after one untimed warm-up phase, warmUp); the median pair is reported
// with the spreads, and the ratio to the narrower verify + sign limit beside it. Also reported:
// the ratio per CPU-second of the witness's process (`cpuRatioToCryptoLimit`: on a shared machine
// the client child and neighbours take CPU from the witness during a phase but not during the limit,
// so this one shows the witness's own overhead), the synced batches the state store wrote, and the
// same kind of requests decided in process
// without libp2p (`inProcessPerSec`, another 1,000 logs) to show what the transport costs.
// The witness checks the sequencers' signatures on VERIFY_WORKERS worker threads (as its CLI does
// on a machine with more than one core), so its event loop is left the signs, proofs and the rest:
// the limit is still what one request's crypto costs on one core, so on a machine with a free core
// the wall-clock ratio may pass what the event loop alone could reach, while `cpuRatioToCryptoLimit`
// (all threads) and `cpuUsPerRequest` stay the overhead figures; `clientCpuUsPerRequest` is the
// child's. COOKWALA_BENCH_VERIFY_WORKERS=0 checks them inline.
// The witness's cosignatures are signed on its signing worker (witness/server/signing-worker.ts,
// as the CLI does on more than one core); COOKWALA_BENCH_SIGN_WORKER=0 signs them inline.
// `loopUsPerRequest` is the event loop's busy time per request (performance.eventLoopUtilization):
// what the witness's one event loop can decide per second, whichever threads do the crypto.
// `mainCpuUsPerRequestPairs` is the main thread's own CPU per request (/proc, 10 ms ticks): the
// event loop's cost without the time a shared machine kept it waiting.
// COOKWALA_BENCH_CPU_PROF=DIR writes a CPU profile of each timed phase (the witness's process).
// `withLogNote`: the same figures for checkpoints that also carry the log's C2SP note signature,
// as our sequencers send them (docs/design.md §4): another 1,000 logs, two signatures checked per request,
// and a limit that counts both verifies.

import '../bin/polyfill.ts';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { createWitness } from '../witness/server/service.ts';
import { openStateStore } from '../witness/server/state.ts';
import { encodeMessage } from '../witness/wire/messages.ts';
import { testKey } from '../testkit/witness.ts';
import { defaultBackend } from '../verifier/crypto/default.ts';
import { buildRound, fakeLogs } from './witness-client.ts';
import { DEFAULT_PAIRS, measurePairs } from './pairs.ts';
import { hashLeaf, verifyConsistency, verifyInclusion } from '../verifier/merkle/index.ts';
import type { AddCheckpointRequest } from '../witness/wire/messages.ts';
import type { StateStore } from '../witness/server/state.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

import {
  benchWitnessKey,
  cpuPerRequestSummary,
  cpuRatioSummary,
  SIGN_WORKER,
  pairFigures,
  phaseFigures,
  type PhaseFigures,
  startPhasedClient,
  warmUp,
  VERIFY_WORKERS,
  witnessRounds,
} from './witness-harness.ts';

export interface BenchCtx {
  quick: boolean;
}

const LOGS = 1000;
const STREAMS = 4;
const PAIRS = DEFAULT_PAIRS;
/** Per-second rate of `op` over about `ms` milliseconds, in batches of 50. */
function ratePerSec(op: () => void, ms: number): number {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    for (let i = 0; i < 50; i++) op();
    n += 50;
  }
  return (n / (performance.now() - t0)) * 1000;
}

export interface CryptoLimit {
  /** What one request needs: 1 verify + 2 signs (JCS and cosignature/v1) + its proof hashing. */
  perSec: number;
  /** The older, narrower definition: 1 verify + 1 sign pairs per second. */
  verifySignPerSec: number;
  /** perSec per CPU-second of this process (what it would be with a core to itself). */
  perCpuSec: number;
}

/**
 * This run's one-core crypto limit of one add-checkpoint (the witness decides on one event loop,
 * so one core is what it can use): the sequencer's Ed25519 signature over the checkpoint's signing
 * header verified, two cosignatures made (the JCS one and the cosignature/v1 one over the C2SP
 * body: every libp2p cosignature comes in both forms, docs/design.md §7a), and the request's consistency and
 * head proofs checked (hashing). Measured part by part on `sample`, a request like the bench's.
 * With `verifies` 2, the log's note signature as well (the checkpoints our sequencers send).
 */
function cryptoLimit(sample: AddCheckpointRequest & { oldRoot: string }, verifies = 1, ms = 1000): CryptoLimit {
  const k = testKey('bench-limit', 'witness');
  const msg = encodeMessage({
    alg: 'EdDSA',
    hash: sample.checkpoint.hash,
    kid: k.signer.kid,
    kind: 'Checkpoint',
    signedAt: new Date().toISOString(),
  });
  const note = new TextEncoder().encode(
    `cosignature/v1\ntime 1764579600\n${sample.checkpoint.log}\n${sample.checkpoint.seq}\n${'A'.repeat(43)}=\n`,
  );
  const sig = k.signer.sign(msg);
  const backend = defaultBackend();
  const hex = (h: string) => Buffer.from(h.slice(7), 'hex');
  const root1 = hex(sample.oldRoot);
  const root2 = hex(sample.checkpoint.root);
  const consistency = sample.consistency.map(hex);
  const headProof = sample.headProof.map(hex);
  const leaf = hex(sample.checkpoint.head);
  const third = ms / 3;
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const verify = ratePerSec(() => backend.ed25519Verify(k.signer.publicKey, msg, sig), third);
  const sign = ratePerSec(() => {
    k.signer.sign(msg);
    k.signer.sign(note);
  }, third);
  const hashing = ratePerSec(() => {
    if (!verifyConsistency(sample.oldSeq, sample.checkpoint.seq, consistency, root1, root2).ok) throw new Error('bad sample proof');
    if (!verifyInclusion(hashLeaf(leaf), sample.checkpoint.seq - 1, sample.checkpoint.seq, headProof, root2).ok)
      throw new Error('bad sample proof');
  }, third);
  const cpu = process.cpuUsage(cpu0);
  const perSec = 1 / (verifies / verify + 1 / sign + 1 / hashing);
  const verifySignPerSec = 1 / (verifies / verify + 1 / (2 * sign));
  // Per CPU-second: scaled by wall time over the CPU time this process got while measuring.
  const perCpuSec = (perSec * (performance.now() - wall0)) / ((cpu.user + cpu.system) / 1000);
  return { perSec: Math.round(perSec), verifySignPerSec: Math.round(verifySignPerSec), perCpuSec: Math.round(perCpuSec) };
}

/**
 * PAIRS interleaved pairs (bench/pairs.ts) against the witness at `addr`: this run's crypto limit
 * of one request, then one timed phase of a client child driving LOGS logs named `prefix`-i
 * (admitted by the witness), with `logNote` checkpoints that carry the log's note signature too.
 */
async function pairedPhases(
  addr: string,
  state: StateStore,
  prefix: string,
  logNote: boolean,
  rounds: number,
  sample: AddCheckpointRequest & { oldRoot: string },
): Promise<Record<string, unknown> & { failures: number }> {
  // Interleaved pairs (bench/pairs.ts): limit, then a timed phase of the child, PAIRS times.
  const clients = startPhasedClient(
    [
      'bench/witness-client.ts',
      addr,
      String(LOGS),
      String(rounds),
      String(STREAMS),
      prefix,
      String(PAIRS + 1),
      logNote ? 'note' : 'plain',
      'chained',
    ],
    state,
    prefix,
  );
  await clients.ready();
  await warmUp(clients);
  let failures = 0;
  const verifySign: number[] = [];
  const pairLimits: number[] = [];
  const cpuRatios: number[] = [];
  const pairs = await measurePairs<PhaseFigures & { ratioToVerifySignLimit: number }>(
    PAIRS,
    async () => {
      const l = cryptoLimit(sample, logNote ? 2 : 1);
      verifySign.push(l.verifySignPerSec);
      pairLimits.push(l.perCpuSec);
      return l.perSec;
    },
    async (i) => {
      const r = await clients.phase();
      failures += r.done.failures;
      const perSec = Math.round((r.done.requests / r.done.ms) * 1000);
      cpuRatios.push(r.done.requests / (r.cpuMs / 1000) / pairLimits[i]);
      return {
        value: perSec,
        extra: { ...phaseFigures(r), ratioToVerifySignLimit: Math.round((perSec / verifySign[i]) * 1000) / 1000 },
      };
    },
  );
  await clients.closed;
  const m = pairs.median;
  return {
    ...pairFigures(pairs),
    cryptoLimit: `one core: ${logNote ? 2 : 1} Ed25519 verify + 2 signs (JCS, cosignature/v1) + proof hashing per request`,
    verifySignLimitPerSec: verifySign[pairs.pairs.indexOf(m)],
    ratioToVerifySignLimit: m.extra!.ratioToVerifySignLimit,
    ...cpuRatioSummary(cpuRatios),
    ...cpuPerRequestSummary(
      m.extra!,
      pairs.pairs.map((p) => p.extra!),
    ),
    logs: LOGS,
    requests: m.extra!.requests,
    failures,
    streams: STREAMS,
    clients: 'child process',
    syncedBatches: m.extra!.batches,
    recordsPerBatch: Math.round((m.extra!.records / Math.max(1, m.extra!.batches)) * 10) / 10,
  };
}

export async function run(ctx: BenchCtx): Promise<Record<string, unknown>> {
  const rounds = witnessRounds(ctx.quick);
  const dir = await makeTempDir('cookwala-bench-witness-');
  const remote = 'net';
  const noted = 'note';
  const local = fakeLogs('local', LOGS);
  const wkey = benchWitnessKey('bench-witness');
  const state = await openStateStore(join(dir, 'state'));
  const admitted = [...fakeLogs(remote, LOGS), ...fakeLogs(noted, LOGS), ...local].map((l) => ({ log: l.origin, sequencer: l.keyRecord }));
  const witness = createWitness(
    { state, signer: wkey.signer, secretKey: wkey.secretKey, keyRecord: wkey.keyRecord },
    {
      peerKey: await generateKeyPair('Ed25519'),
      listen: ['/ip4/127.0.0.1/tcp/0'],
      logs: admitted,
      verifyWorkers: VERIFY_WORKERS,
      signWorker: SIGN_WORKER,
    },
  );
  const info = await witness.start();
  try {
    // The same kind of decisions without the transport (frames straight into the witness), on
    // logs of their own: first contact untimed, then one timed round. Its last request is also
    // the sample the limit is measured on (a request grown by 3 entries, as the bench's are).
    const decide = async (reqs: Awaited<ReturnType<typeof buildRound>>) =>
      (await Promise.all(reqs.map((r) => witness.handleFrame(encodeMessage(r))))).filter((r) => !r.ok).length;
    const firstLocal = await decide(await buildRound(local, 4));
    const last = local[local.length - 1];
    const oldRoot = await last.rootAt(last.size);
    const round = await buildRound(local, 3);
    const sample = { ...round[round.length - 1], oldRoot };
    // A sample carrying the log's note signature, for the limit of the requests that do.
    const noteLog = fakeLogs('sample', 1)[0];
    noteLog.append(4);
    const noteRoot = await noteLog.rootAt(noteLog.size);
    const sampleNote = (await buildRound([noteLog], 3, true))[0];
    const t1 = performance.now();
    const localFailures = firstLocal + (await decide(round));
    const localMs = performance.now() - t1;

    const main = await pairedPhases(info.multiaddrs[0], state, remote, false, rounds, sample);
    // The same with the log's note signature in every checkpoint, as our sequencers send them
    // (two signatures checked per request; its limit counts both).
    const withNote = await pairedPhases(info.multiaddrs[0], state, noted, true, rounds, { ...sampleNote, oldRoot: noteRoot });
    return {
      ...main,
      failures: main.failures + localFailures,
      inProcessPerSec: Math.round((LOGS / localMs) * 1000),
      withLogNote: withNote,
    };
  } finally {
    await witness.stop();
    await state.close();
    await removeDir(dir);
  }
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
