// bench/witness.ts: the `witness` section of bench/results.json (DESIGN §13): add-checkpoint
// requests per second that ONE witness decides across 1,000 logs, over libp2p on 127.0.0.1
// (TCP, noise, yamux), on persistent streams (a few client streams, as several sequencers would
// hold), with the real state store (every cosignature after a synced LevelDB commit; concurrent
// requests share a batch). The fake sequencers run in a child process (bench/witness-client.ts)
// and build their requests (sequencer signatures, consistency and head proofs) before the clock
// starts, so the figure is the witness's CPU, not also its clients'. Also reported: the synced
// batches the state store wrote, the same kind of requests decided in process without libp2p
// (`inProcessPerSec`, another 1,000 logs) to show what the transport costs, and this run's
// physical limit for one core: node:crypto Ed25519 verify + sign pairs per second (each request
// needs one of each: the sequencer's signature and our cosignature), with the ratio to it, so a
// loaded machine shows as a low limit rather than as a slow witness.

import '../bin/polyfill.ts';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { createWitness } from '../witness/server/service.ts';
import { openStateStore, type StateStore } from '../witness/server/state.ts';
import { encodeMessage } from '../witness/wire/messages.ts';
import { testKey } from '../testkit/witness.ts';
import { defaultBackend } from '../verifier/crypto/default.ts';
import { buildRound, fakeLogs } from './witness-client.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

export interface BenchCtx {
  quick: boolean;
}

const LOGS = 1000;
const STREAMS = 4;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface ClientRun {
  ms: number;
  failures: number;
  requests: number;
  batches: number;
  records: number;
}

/** Run the fake sequencers in a child process; state stats are read when it starts and ends its timed phase. */
function runClients(addr: string, rounds: number, prefix: string, state: StateStore): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        './bin/polyfill.ts',
        'bench/witness-client.ts',
        addr,
        String(LOGS),
        String(rounds),
        String(STREAMS),
        prefix,
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let buf = '';
    let before = state.stats();
    let done: ClientRun | undefined;
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const m = JSON.parse(line) as { phase: string; ms?: number; failures?: number; requests?: number };
        if (m.phase === 'start') before = state.stats();
        if (m.phase === 'done') {
          const after = state.stats();
          done = {
            ms: m.ms!,
            failures: m.failures!,
            requests: m.requests!,
            batches: after.batches - before.batches,
            records: after.records - before.records,
          };
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && done ? resolve(done) : reject(new Error(`witness-client exited ${code}`))));
  });
}

/** One core's Ed25519 verify+sign pairs per second over checkpoint-sized signing headers. */
function cryptoLimitPerSec(ms = 1000): number {
  const k = testKey('bench-limit', 'witness');
  const msg = encodeMessage({
    alg: 'EdDSA',
    hash: 'sha256:' + '0'.repeat(64),
    kid: k.signer.kid,
    kind: 'Checkpoint',
    signedAt: new Date().toISOString(),
  });
  const sig = k.signer.sign(msg);
  const backend = defaultBackend();
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    for (let i = 0; i < 50; i++) {
      backend.ed25519Verify(k.signer.publicKey, msg, sig);
      k.signer.sign(msg);
    }
    n += 50;
  }
  return Math.round((n / (performance.now() - t0)) * 1000);
}

export async function run(ctx: BenchCtx): Promise<Record<string, unknown>> {
  const rounds = ctx.quick ? 2 : 5;
  const dir = await makeTempDir('cookwala-bench-witness-');
  const remote = 'net';
  const local = fakeLogs('local', LOGS);
  const wkey = testKey('bench-witness', 'witness');
  const state = await openStateStore(join(dir, 'state'));
  const admitted = [...fakeLogs(remote, LOGS), ...local].map((l) => ({ log: l.origin, sequencer: l.keyRecord }));
  const witness = createWitness(
    { state, signer: wkey.signer, keyRecord: wkey.keyRecord },
    { peerKey: await generateKeyPair('Ed25519'), listen: ['/ip4/127.0.0.1/tcp/0'], logs: admitted },
  );
  const info = await witness.start();
  try {
    const net = await runClients(info.multiaddrs[0], rounds, remote, state);

    // The same kind of decisions without the transport (frames straight into the witness), on
    // logs of their own: first contact untimed, then one timed round.
    const decide = async (reqs: Awaited<ReturnType<typeof buildRound>>) =>
      (await Promise.all(reqs.map((r) => witness.handleFrame(encodeMessage(r))))).filter((r) => !r.ok).length;
    const firstLocal = await decide(await buildRound(local, 4));
    const round = await buildRound(local, 3);
    const t1 = performance.now();
    const localFailures = firstLocal + (await decide(round));
    const localMs = performance.now() - t1;

    const limit = cryptoLimitPerSec();
    const perSec = Math.round((net.requests / net.ms) * 1000);
    return {
      addCheckpointPerSec: perSec,
      cryptoLimitPerSec: limit,
      ratioToCryptoLimit: Math.round((perSec / limit) * 100) / 100,
      logs: LOGS,
      requests: net.requests,
      failures: net.failures + localFailures,
      streams: STREAMS,
      clients: 'child process',
      syncedBatches: net.batches,
      recordsPerBatch: Math.round((net.records / Math.max(1, net.batches)) * 10) / 10,
      inProcessPerSec: Math.round((LOGS / localMs) * 1000),
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
