// bench/checkpoint.ts: the `checkpoint` section of bench/results.json (docs/design.md §13): the time from
// an event's acknowledgement (201, after fsync) to the first published checkpoint that covers it,
// cosigned by the quorum (2 of 3 witnesses over libp2p on 127.0.0.1, each with its synced state
// store), with the checkpoint interval set to 250 ms for this run. One process holds the
// sequencer (the real app: group commit, checkpointer, witness publisher) and the witnesses; the
// event is posted through fastify inject so HTTP parsing is included but no socket. Samples are
// spaced at random within the interval so they do not all land at the same phase of the timer.
// The interval alone puts p50 near 125 ms + one cosigning round trip; p99 near 250 ms + that.

import '../bin/polyfill.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { initDataDir } from '../sequencer/data-dir.ts';
import { openSequencer, type Sequencer } from '../sequencer/app.ts';
import { createWitness, type Witness } from '../witness/server/service.ts';
import { openStateStore, type StateStore } from '../witness/server/state.ts';
import { startWitnessing } from '../witness/client/sequencer-side.ts';
import { testKey } from '../testkit/witness.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

export interface BenchCtx {
  quick: boolean;
}

const LOG = 'bench.example.org/missions/checkpoint';
const INTERVAL_MS = 250;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(ctx: BenchCtx): Promise<Record<string, unknown>> {
  const samples = ctx.quick ? 20 : 100;
  const root = await makeTempDir('cookwala-bench-cp-');
  const seqDir = join(root, 'sequencer');
  await initDataDir({ dir: seqDir, logs: [LOG], mode: 'full' });
  const token = (await readFile(join(seqDir, 'operator.token'), 'utf8')).trim();
  const seqKey = JSON.parse(await readFile(join(seqDir, 'sequencer.keyrecord.json'), 'utf8')) as KeyRecord;
  const states: StateStore[] = [];
  const witnesses: Witness[] = [];
  const addrs: string[] = [];
  const wkeys = [0, 1, 2].map((i) => testKey(`bench-cp-w${i}`, 'witness'));
  let seq: Sequencer | undefined;
  let hook: Awaited<ReturnType<typeof startWitnessing>>;
  try {
    for (const [i, k] of wkeys.entries()) {
      const st = await openStateStore(join(root, `w${i}`));
      states.push(st);
      const w = createWitness(
        { state: st, signer: k.signer, keyRecord: k.keyRecord },
        {
          peerKey: await generateKeyPair('Ed25519'),
          listen: ['/ip4/127.0.0.1/tcp/0'],
          bootstrap: addrs.slice(0, 1),
          logs: [{ log: LOG, sequencer: seqKey }],
        },
      );
      witnesses.push(w);
      addrs.push((await w.start()).multiaddrs[0]);
    }
    const policy = { kind: 'WitnessPolicy' as const, log: LOG, sequencer: seqKey, witnesses: wkeys.map((k) => k.keyRecord), quorum: 2 };
    await writeFile(join(seqDir, 'policy.json'), JSON.stringify(policy));
    hook = await startWitnessing({ dataDir: seqDir, witnessPeers: addrs, policy });
    seq = await openSequencer(seqDir, {
      publisherFor: hook!.publisherFor((o) => seq?.logs.get(o)?.store),
      timers: true,
      config: { checkpointIntervalMs: INTERVAL_MS },
    });
    const dev = deviceKey(900);
    const reg = await seq.app.inject({
      method: 'POST',
      url: `/v1/logs/${encodeURIComponent(LOG)}/keys`,
      headers: { authorization: `Bearer ${token}` },
      payload: dev.record,
    });
    if (reg.statusCode >= 300) throw new Error(`registering the device key: ${reg.statusCode} ${reg.body}`);
    const events = eventStream(dev, { signedAt: new Date().toISOString() });
    const h = seq.logs.get(LOG)!;
    const lat: number[] = [];
    for (let i = 0; i < samples + 2; i++) {
      await sleep(Math.random() * INTERVAL_MS);
      const r = await seq.app.inject({
        method: 'POST',
        url: `/v1/logs/${encodeURIComponent(LOG)}/events`,
        headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `cp-${i}` },
        payload: JSON.stringify(events.next('bench-exec')),
      });
      if (r.statusCode !== 201) throw new Error(`append: ${r.statusCode} ${r.body}`);
      const t0 = performance.now();
      const target = (r.json() as { seq: number }).seq;
      for (let k = 0; k < 5000 && (h.checkpoints.latestPublished()?.seq ?? -1) < target; k++) await sleep(1);
      if ((h.checkpoints.latestPublished()?.seq ?? -1) < target) throw new Error(`seq ${target} not published within 5 s`);
      if (i >= 2) lat.push(performance.now() - t0); // the first two include connection setup
    }
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      p50Ms: round(pct(lat, 50)),
      p99Ms: round(pct(lat, 99)),
      maxMs: round(Math.max(...lat)),
      samples: lat.length,
      intervalMs: INTERVAL_MS,
      witnesses: 3,
      quorum: 2,
    };
  } finally {
    await seq?.close();
    await hook?.close();
    for (const w of witnesses) await w.stop();
    for (const s of states) await s.close();
    await removeDir(root);
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
