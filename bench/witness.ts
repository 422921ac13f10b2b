// bench/witness.ts: the `witness` section of bench/results.json (DESIGN §13): add-checkpoint
// requests per second that ONE witness decides across 1,000 logs, over libp2p on 127.0.0.1
// (TCP, noise, yamux), on persistent streams (a few client streams, as several sequencers would
// hold), with the real state store (every cosignature after a synced LevelDB commit; concurrent
// requests share a batch). The requests (sequencer signatures, consistency and head proofs) are
// built before the clock starts, so the number is the witness's, not the fake sequencers'.
// Also reported: the synced batches the state store wrote, the same requests decided in process
// without libp2p (`inProcessPerSec`) to show what the transport costs, and this run's physical
// limit for one core: node:crypto Ed25519 verify + sign pairs per second (each request needs one
// of each: the sequencer's signature and our cosignature), with the ratio to it, so a loaded
// machine shows as a low limit rather than as a slow witness.

import '../bin/polyfill.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { createWitness } from '../witness/service.ts';
import { openStateStore } from '../witness/state.ts';
import { createP2pNode } from '../witness/p2p-node.ts';
import { createWitnessConnection, cosignatureOf } from '../witness/client.ts';
import { encodeMessage, type AddCheckpointRequest } from '../witness/messages.ts';
import { createFakeLog, testKey, type FakeLog } from '../witness/testing.ts';
import { defaultBackend } from '../verifier/crypto.ts';

export interface BenchCtx {
  quick: boolean;
}

const LOGS = 1000;
const STREAMS = 4;
const WINDOW = 256;

async function buildRound(logs: FakeLog[], entries: number): Promise<AddCheckpointRequest[]> {
  const out: AddCheckpointRequest[] = [];
  for (const l of logs) {
    const old = l.size;
    l.append(entries);
    out.push(await l.request(old));
  }
  return out;
}

/** Send all requests over `conns` (log i always on conn i % n, in order), WINDOW in flight per conn. */
async function drive(conns: ReturnType<typeof createWitnessConnection>[], reqs: AddCheckpointRequest[]): Promise<number> {
  let failures = 0;
  const lanes = conns.map((c, i) => reqs.filter((_, j) => j % conns.length === i).map((r) => ({ c, r })));
  await Promise.all(
    lanes.map(async (lane) => {
      const inflight = new Set<Promise<void>>();
      for (const { c, r } of lane) {
        const p: Promise<void> = c.request(r, { timeoutMs: 60_000 }).then((x) => {
          if (!cosignatureOf(x).ok) failures++;
          inflight.delete(p);
        });
        inflight.add(p);
        if (inflight.size >= WINDOW) await Promise.race(inflight);
      }
      await Promise.all(inflight);
    }),
  );
  return failures;
}

/** One core's Ed25519 verify+sign pairs per second over checkpoint-sized signing headers. */
function cryptoLimitPerSec(ms = 1000): number {
  const k = testKey('bench-limit', 'witness');
  const msg = encodeMessage({ alg: 'EdDSA', hash: 'sha256:' + '0'.repeat(64), kid: k.signer.kid, kind: 'Checkpoint', signedAt: new Date().toISOString() });
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
  const dir = await mkdtemp(join(tmpdir(), 'cookwala-bench-witness-'));
  const logs = Array.from({ length: LOGS }, (_, i) => createFakeLog(`bench.example.org/log-${i}`, `bench-seq-${i}`));
  const wkey = testKey('bench-witness', 'witness');
  const state = await openStateStore(join(dir, 'state'));
  const witness = createWitness(
    { state, signer: wkey.signer, keyRecord: wkey.keyRecord },
    { peerKey: await generateKeyPair('Ed25519'), listen: ['/ip4/127.0.0.1/tcp/0'], logs: logs.map((l) => ({ log: l.origin, sequencer: l.keyRecord })) },
  );
  const info = await witness.start();
  const clients = await Promise.all(Array.from({ length: STREAMS }, async () => createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: [] })));
  const conns = clients.map((n) => createWitnessConnection(n, info.multiaddrs[0]));
  try {
    // First contact for every log (descriptor, oldSeq 0): not timed.
    const firstFailures = await drive(conns, await buildRound(logs, 4));
    if (firstFailures > 0) throw new Error(`${firstFailures} first-contact requests failed`);
    const planned: AddCheckpointRequest[][] = [];
    for (let r = 0; r < rounds; r++) planned.push(await buildRound(logs, 3));
    const before = state.stats();
    const t0 = performance.now();
    let failures = 0;
    for (const reqs of planned) failures += await drive(conns, reqs);
    const ms = performance.now() - t0;
    const after = state.stats();
    const n = rounds * LOGS;

    // The same decisions without the transport (frames straight into the witness).
    const local = await buildRound(logs, 3);
    const t1 = performance.now();
    const replies = await Promise.all(local.map((r) => witness.handleFrame(encodeMessage(r))));
    const localMs = performance.now() - t1;
    const localFailures = replies.filter((r) => !r.ok).length;

    const limit = cryptoLimitPerSec();
    const perSec = Math.round((n / ms) * 1000);
    return {
      addCheckpointPerSec: perSec,
      cryptoLimitPerSec: limit,
      ratioToCryptoLimit: Math.round((perSec / limit) * 100) / 100,
      logs: LOGS,
      requests: n,
      failures: failures + localFailures,
      streams: STREAMS,
      syncedBatches: after.batches - before.batches,
      recordsPerBatch: Math.round(((after.records - before.records) / Math.max(1, after.batches - before.batches)) * 10) / 10,
      inProcessPerSec: Math.round((LOGS / localMs) * 1000),
    };
  } finally {
    for (const c of conns) await c.close();
    for (const n of clients) await n.stop();
    await witness.stop();
    await state.close();
    await rm(dir, { recursive: true, force: true });
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
