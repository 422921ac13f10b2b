// bench/c2sp-checkpoint.ts: the sequencer side of the `c2sp` section of bench/results.json (docs/design.md
// §13, §7a): the time from an event's acknowledgement (201, after fsync) to the first published
// checkpoint that covers it, cosigned by a quorum of C2SP witnesses over tlog-witness HTTP (2 of 3
// on 127.0.0.1), with the checkpoint interval at 250 ms, as bench/checkpoint.ts measures the
// libp2p path. The witnesses are the independent reference tlog-witness of
// testkit/c2sp-reference.ts (node:http, in-memory state: no fsync), so the figure is the
// sequencer's: note signing, add-checkpoint bodies with consistency proofs, HTTP, cosignature
// checks, quorum. Keys: checkpointP50Ms, checkpointP99Ms (target <= 1,000 ms, as for libp2p).

import '../bin/polyfill.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initDataDir } from '../sequencer/data-dir.ts';
import { openSequencer, type Sequencer } from '../sequencer/app.ts';
import { startWitnessing } from '../witness/client/sequencer-side.ts';
import { logVkeyOf } from '../verifier/documents/checkpoint-c2sp.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { startRefWitness, type RefWitness } from '../testkit/c2sp-reference.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const LOG = 'bench.example.org/missions/c2sp-checkpoint';
const INTERVAL_MS = 250;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runCheckpoint(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const samples = ctx.quick ? 20 : 100;
  const root = await makeTempDir('cookwala-bench-c2sp-cp-');
  const seqDir = join(root, 'sequencer');
  await initDataDir({ dir: seqDir, logs: [LOG], mode: 'full' });
  const token = (await readFile(join(seqDir, 'operator.token'), 'utf8')).trim();
  const seqKey = JSON.parse(await readFile(join(seqDir, 'sequencer.keyrecord.json'), 'utf8')) as KeyRecord;
  const vkey = logVkeyOf(LOG, seqKey);
  if (!vkey.ok) throw new Error(vkey.detail);
  const witnesses: RefWitness[] = [];
  let seq: Sequencer | undefined;
  let hook: Awaited<ReturnType<typeof startWitnessing>>;
  try {
    for (let i = 0; i < 3; i++)
      witnesses.push(await startRefWitness({ name: `w${i}.bench.example.org`, logs: [{ origin: LOG, vkey: vkey.value }] }));
    const records: KeyRecord[] = witnesses.map((w, i) => ({
      kind: 'KeyRecord',
      kid: `bench-c2sp-w${i}`,
      alg: 'EdDSA',
      publicKey: w.publicKey.toString('base64url'),
      owner: w.name,
      role: 'witness',
      validFrom: '2026-01-01T00:00:00.000Z',
      vkey: w.vkey,
      url: w.url,
    }));
    const policy = { kind: 'WitnessPolicy' as const, log: LOG, sequencer: seqKey, witnesses: records, quorum: 2 };
    await writeFile(join(seqDir, 'policy.json'), JSON.stringify(policy));
    hook = await startWitnessing({ dataDir: seqDir, witnessPeers: [], policy, resubmitMs: 0 });
    seq = await openSequencer(seqDir, {
      publisherFor: hook!.publisherFor((o) => seq?.logs.get(o)?.store),
      timers: true,
      config: { checkpointIntervalMs: INTERVAL_MS },
    });
    const dev = deviceKey(901);
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
        headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `c2sp-cp-${i}` },
        payload: JSON.stringify(events.next('bench-exec')),
      });
      if (r.statusCode !== 201) throw new Error(`append: ${r.statusCode} ${r.body}`);
      const t0 = performance.now();
      const target = (r.json() as { seq: number }).seq;
      for (let k = 0; k < 5000 && (h.checkpoints.latestPublished()?.seq ?? -1) < target; k++) await sleep(1);
      const cp = h.checkpoints.latestPublished();
      if ((cp?.seq ?? -1) < target) throw new Error(`seq ${target} not published within 5 s`);
      if (cp!.signature.filter((s) => s.alg === 'cosignature/v1').length < 2)
        throw new Error(`checkpoint ${cp!.seq} published with fewer than 2 cosignature/v1`);
      if (i >= 2) lat.push(performance.now() - t0); // the first two include connection setup
    }
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      checkpointP50Ms: round(pct(lat, 50)),
      checkpointP99Ms: round(pct(lat, 99)),
      checkpointMaxMs: round(Math.max(...lat)),
      checkpointSamples: lat.length,
      checkpointIntervalMs: INTERVAL_MS,
      checkpointWitnesses: 'reference tlog-witness x3 (HTTP, in-memory state)',
      checkpointQuorum: 2,
    };
  } finally {
    await seq?.close();
    await hook?.close();
    for (const w of witnesses) await w.close();
    await removeDir(root);
  }
}

export const run = runCheckpoint;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runCheckpoint({ quick: process.argv.includes('--quick') }).then(
    (r) => console.log(JSON.stringify(r, null, 2)),
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
