// bench/c2sp.ts: the `c2sp` section of bench/results.json (DESIGN §13): the C2SP paths.
// `witnessAddCheckpointPerSec`: tlog-witness add-checkpoint requests per second that ONE witness
// decides over HTTP on 127.0.0.1 (keep-alive, SOCKETS connections) across 1,000 C2SP logs admitted
// by vkey, with the real state store (each cosignature after a synced LevelDB commit, group
// commit across concurrent requests). The logs run in a child process
// (bench/c2sp-witness-client.ts: independent node:crypto notes and proofs, built before the
// clock starts). Target >= 2,000/s, as for libp2p. Also reported: synced batches and records per
// batch, and this run's one-core limit of Ed25519 verify + sign pairs (each request needs one of
// each) with the ratio to it. Left out here: the sequencer's append -> C2SP-quorum checkpoint
// latency (the sequencer side's figure; merged into this section by its own function when present).

import '../bin/polyfill.ts';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { createWitness } from '../witness/server/service.ts';
import { openStateStore, type StateStore } from '../witness/server/state.ts';
import { testKey } from '../testkit/witness.ts';
import { defaultBackend } from '../verifier/crypto/default.ts';
import { c2spBenchLogs } from './c2sp-witness-client.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const LOGS = 1000;
const SOCKETS = 256;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface ClientRun {
  ms: number;
  requests: number;
  failures: number;
  statuses: Record<string, number>;
  batches: number;
  records: number;
}

function runClients(url: string, rounds: number, prefix: string, state: StateStore): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'bench/c2sp-witness-client.ts', url, String(LOGS), String(rounds), String(SOCKETS), prefix],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let buf = '';
    let before = state.stats();
    let done: ClientRun | undefined;
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const m = JSON.parse(buf.slice(0, i)) as {
          phase: string;
          ms?: number;
          requests?: number;
          failures?: number;
          statuses?: Record<string, number>;
        };
        buf = buf.slice(i + 1);
        if (m.phase === 'start') before = state.stats();
        if (m.phase === 'done') {
          const after = state.stats();
          done = {
            ms: m.ms!,
            requests: m.requests!,
            failures: m.failures!,
            statuses: m.statuses!,
            batches: after.batches - before.batches,
            records: after.records - before.records,
          };
        }
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && done ? resolve(done) : reject(new Error(`c2sp-witness-client exited ${code}`))));
  });
}

/** One core's Ed25519 verify+sign pairs per second over checkpoint-note-sized messages. */
function cryptoLimitPerSec(ms = 1000): number {
  const k = testKey('bench-c2sp-limit', 'witness');
  const msg = new TextEncoder().encode(`cosignature/v1\ntime 1764579600\nbench.example.org/c2sp/x-1\n19\n${'A'.repeat(43)}=\n`);
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

export async function runWitness(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const rounds = ctx.quick ? 2 : 5;
  const dir = await makeTempDir('cookwala-bench-c2sp-');
  const prefix = 'w';
  const state = await openStateStore(join(dir, 'state'));
  const wkey = testKey('bench-c2sp-witness', 'witness');
  const c2spLogs = c2spBenchLogs(prefix, LOGS).map((l) => ({ origin: l.origin, vkey: l.signer.vkey }));
  const witness = createWitness(
    { state, signer: wkey.signer, keyRecord: wkey.keyRecord },
    {
      peerKey: await generateKeyPair('Ed25519'),
      listen: ['/ip4/127.0.0.1/tcp/0'],
      httpPort: 0,
      logs: [],
      c2sp: { name: 'bench.example.org/w1', logs: c2spLogs },
    },
  );
  const info = await witness.start();
  try {
    const r = await runClients(info.http!, rounds, prefix, state);
    const perSec = Math.round((r.requests / r.ms) * 1000);
    const limit = cryptoLimitPerSec();
    return {
      witnessAddCheckpointPerSec: perSec,
      witnessCryptoLimitPerSec: limit,
      witnessRatioToCryptoLimit: Math.round((perSec / limit) * 100) / 100,
      witnessLogs: LOGS,
      witnessRequests: r.requests,
      witnessFailures: r.failures,
      witnessStatuses: r.statuses,
      witnessSockets: SOCKETS,
      witnessClients: 'child process',
      witnessSyncedBatches: r.batches,
      witnessRecordsPerBatch: Math.round((r.records / Math.max(1, r.batches)) * 10) / 10,
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
