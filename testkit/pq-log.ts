// testkit/pq-log.ts: a log whose only witness is known by its ML-DSA-44 key (docs/post-quantum.md),
// as the post-quantum tests set it up: a real sequencer (LevelDB in a temp dir, fastify on 127.0.0.1,
// a manual clock) and a real `cookwala witness` child made with `witness init --mldsa44`, reached
// over C2SP HTTP, named in the policy by a KeyRecord of alg ML-DSA-44 with its 0x06 vkey and url.
// With `logMldsa` the sequencer also signs its checkpoints with an ML-DSA-44 key of its own, the
// witness admits the log by that vkey alone and the policy names it; otherwise the witness admits
// the log by its Ed25519 vkey. `round(n)` posts n signed events as one batch, moves the clock and
// ticks, and returns the checkpoint published. Also `flipB64`, the one-bit mutation the tests apply
// to a signature.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initDataDir } from '../sequencer/data-dir.ts';
import { openSequencer, type Sequencer } from '../sequencer/app.ts';
import { DATA_FILES } from '../sequencer/config.ts';
import { startWitnessing, type WitnessHook } from '../witness/client/sequencer-side.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/policy.ts';
import { logVkeyOf } from '../verifier/documents/checkpoint-c2sp.ts';
import type { Checkpoint } from '../verifier/documents/checkpoint.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { parseVerifierKey } from '../verifier/c2sp/note/index.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import { toBase64url } from '../verifier/encoding/index.ts';
import { createManualClock } from './clock.ts';
import { deviceKey, FIXTURE_VALID_FROM } from './keys.ts';
import { eventStream } from './events.ts';
import { logPath } from './sequencer.ts';
import { runCookwala, startWitnessProcess, stopChild, type Child } from './witness-procs.ts';

export type PqWitness = Child & { info: { http?: string; c2sp?: { name: string; vkey: string; mldsaVkey?: string } } };

export interface PqLog {
  dir: string;
  seq: Sequencer;
  witness: PqWitness;
  policy: WitnessPolicy;
  policyPath: string;
  /** http://127.0.0.1:PORT of the sequencer. */
  base: string;
  round(n: number): Promise<Checkpoint | undefined>;
  close(): Promise<void>;
}

/** Start the sequencer and its one ML-DSA-44 witness in `dir` and `witnessDir` (both empty). */
export async function startPqLog(opts: {
  log: string;
  dir: string;
  witnessDir: string;
  device: number;
  logMldsa?: boolean;
}): Promise<PqLog> {
  const { log, dir, witnessDir } = opts;
  const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
  const device = deviceKey(opts.device);
  const stream = eventStream(device, { signedAt: () => formatTime(clock.now()) });
  const made = await initDataDir({ dir, logs: [log], mode: 'full', now: () => clock.now(), ...(opts.logMldsa ? { mldsa44: 'new' } : {}) });
  const keyRecord = JSON.parse(await readFile(join(dir, DATA_FILES.keyRecord), 'utf8')) as KeyRecord;
  const logMldsaVkey = opts.logMldsa ? made.mldsa!.vkey(log) : undefined;
  const ed = logVkeyOf(log, keyRecord);
  if (!ed.ok) throw new Error(ed.detail);
  const run = async (args: string[]) => {
    const r = await runCookwala(args);
    if (r.code !== 0) throw new Error(`cookwala ${args.join(' ')}: exit ${r.code}: ${r.err}`);
  };
  await run(['witness', 'init', '--data', witnessDir, '--name', 'pq-w', '--http-port', '0', '--mldsa44']);
  await run(['witness', 'add-log', '--data', witnessDir, '--vkey', logMldsaVkey ?? ed.value]);
  const witness = (await startWitnessProcess(witnessDir)) as PqWitness;
  const mldsaVkey = witness.info.c2sp!.mldsaVkey!;
  const k = parseVerifierKey(mldsaVkey);
  if (!k.ok) throw new Error(k.detail);
  const w = {
    kind: 'KeyRecord',
    kid: 'w-pq',
    alg: 'ML-DSA-44',
    publicKey: toBase64url(k.value.publicKey),
    owner: 'pq-w',
    role: 'witness',
    validFrom: FIXTURE_VALID_FROM,
    vkey: mldsaVkey,
    url: witness.info.http,
  } as unknown as KeyRecord;
  const p = readWitnessPolicy({
    kind: 'WitnessPolicy',
    log,
    sequencer: keyRecord,
    witnesses: [w],
    quorum: 1,
    ...(logMldsaVkey ? { logMldsaVkey } : {}),
  });
  if (!p.ok) throw new Error(`${p.code}: ${p.detail}`);
  const policyPath = join(dir, 'policy.json');
  await writeFile(policyPath, JSON.stringify(p.value, null, 2) + '\n');
  const hook: WitnessHook | undefined = await startWitnessing({ dataDir: dir, witnessPeers: [], policy: p.value, resubmitMs: 0 } as never);
  if (!hook) throw new Error('the policy names no witness to publish to');
  const opened: { seq?: Sequencer } = {};
  const s = await openSequencer(dir, {
    clock,
    timers: false,
    publisherFor: hook.publisherFor((origin) => opened.seq?.logs.get(origin)?.store),
  });
  opened.seq = s;
  await s.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(s.app.server.address() as { port: number }).port}`;
  const reg = await s.app.inject({
    method: 'POST',
    url: logPath(log, '/keys'),
    headers: { authorization: `Bearer ${(await readFile(join(dir, DATA_FILES.token), 'utf8')).trim()}` },
    payload: device.record,
  });
  if (reg.statusCode !== 200 && reg.statusCode !== 201) throw new Error(`device key: HTTP ${reg.statusCode} ${reg.body}`);
  let posted = 0;
  return {
    dir,
    seq: s,
    witness,
    policy: p.value,
    policyPath,
    base,
    async round(n) {
      const batch = Array.from({ length: n }, () => {
        clock.advance(3);
        return stream.next(`exec-${posted++ % 3}`);
      });
      const r = await s.app.inject({
        method: 'POST',
        url: logPath(log, '/events'),
        headers: { 'content-type': 'application/cloudevents-batch+json', 'idempotency-key': `pq-${posted}` },
        payload: JSON.stringify(batch),
      });
      if (r.statusCode !== 200) throw new Error(`batch: HTTP ${r.statusCode} ${r.body}`);
      clock.advance(1000);
      await s.tick();
      return s.logs.get(log)!.checkpoints.latestPublished();
    },
    async close() {
      await s.close();
      await hook.close();
      await stopChild(witness);
    },
  };
}

/** Flip one bit in the middle of a base64 (std or url) text's decoded bytes, keeping its alphabet. */
export function flipB64(s: string, url: boolean): string {
  const b = Buffer.from(s, url ? 'base64url' : 'base64');
  b[Math.floor(b.length / 2)] ^= 1;
  return b.toString(url ? 'base64url' : 'base64');
}
