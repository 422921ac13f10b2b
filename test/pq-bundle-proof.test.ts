// Post-quantum cosignatures end to end (docs/design.md §7a, §8; c2sp.org tlog-cosignature at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): a real sequencer (LevelDB in a temp dir, fastify on
// 127.0.0.1) whose policy names ONE witness, known only by its ML-DSA-44 key (a KeyRecord of alg
// ML-DSA-44 with its 0x06 vkey and url): a real `cookwala witness` child made with
// `witness init --mldsa44`, reached over C2SP HTTP. The published checkpoints carry its
// subtree/v1 cosignature and nothing else from witnesses; the exported bundle and a
// c2sp.org/tlog-proof@v1 file verify offline with `cookwala verify` and `cookwala verify-event`
// (child processes, the auditor's commands), and one byte flipped in a cosignature of either is
// refused, naming the checkpoint's seq.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { formatTime } from '../verifier/encoding/wire.ts';
import { createManualClock } from '../testkit/clock.ts';
import { deviceKey, FIXTURE_VALID_FROM } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { runCookwala, startWitnessProcess, stopChild, type Child } from '../testkit/witness-procs.ts';

const LOG = 'pq.example/missions/m-44';
const tmp = tempDirs('cookwala-pq-');
let dir: string;
let seq: Sequencer;
let hook: WitnessHook | undefined;
let witness: (Child & { info: { http?: string; c2sp?: { name: string; vkey: string; mldsaVkey?: string } } }) | undefined;
let policy: WitnessPolicy;
let base: string;
const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
const device = deviceKey(44);
const stream = eventStream(device, { signedAt: () => formatTime(clock.now()) });
let posted = 0;

async function round(n: number): Promise<Checkpoint | undefined> {
  const batch = Array.from({ length: n }, () => {
    clock.advance(3);
    return stream.next(`exec-${posted++ % 3}`);
  });
  const r = await seq.app.inject({
    method: 'POST',
    url: logPath(LOG, '/events'),
    headers: { 'content-type': 'application/cloudevents-batch+json', 'idempotency-key': `pq-${posted}` },
    payload: JSON.stringify(batch),
  });
  expect(r.statusCode).toBe(200);
  clock.advance(1000);
  await seq.tick();
  return seq.logs.get(LOG)!.checkpoints.latestPublished();
}

/** Flip one bit in the middle of a base64 (std or url) text's decoded bytes, keeping its alphabet. */
function flipB64(s: string, url: boolean): string {
  const b = Buffer.from(s, url ? 'base64url' : 'base64');
  b[Math.floor(b.length / 2)] ^= 1;
  return b.toString(url ? 'base64url' : 'base64');
}

beforeAll(async () => {
  dir = await tmp.make();
  const wdir = await tmp.make();
  await initDataDir({ dir, logs: [LOG], mode: 'full', now: () => clock.now() });
  const keyRecord = JSON.parse(await readFile(join(dir, DATA_FILES.keyRecord), 'utf8')) as KeyRecord;
  const v = logVkeyOf(LOG, keyRecord);
  if (!v.ok) throw new Error(v.detail);
  const init = await runCookwala(['witness', 'init', '--data', wdir, '--name', 'pq-w', '--http-port', '0', '--mldsa44']);
  expect(init.code, init.err).toBe(0);
  expect((await runCookwala(['witness', 'add-log', '--data', wdir, '--vkey', v.value])).code).toBe(0);
  witness = await startWitnessProcess(wdir);
  const mldsaVkey = witness.info.c2sp!.mldsaVkey!;
  const key = Buffer.from(mldsaVkey.split('+').slice(2).join('+'), 'base64');
  const w = {
    kind: 'KeyRecord',
    kid: 'w-pq',
    alg: 'ML-DSA-44',
    publicKey: key.subarray(1).toString('base64url'),
    owner: 'pq-w',
    role: 'witness',
    validFrom: FIXTURE_VALID_FROM,
    vkey: mldsaVkey,
    url: witness.info.http,
  } as unknown as KeyRecord;
  const p = readWitnessPolicy({ kind: 'WitnessPolicy', log: LOG, sequencer: keyRecord, witnesses: [w], quorum: 1 });
  if (!p.ok) throw new Error(`${p.code}: ${p.detail}`);
  policy = p.value;
  await writeFile(join(dir, 'policy.json'), JSON.stringify(policy, null, 2) + '\n');
  hook = await startWitnessing({ dataDir: dir, witnessPeers: [], policy, resubmitMs: 0 } as never);
  seq = await openSequencer(dir, { clock, timers: false, publisherFor: hook!.publisherFor((origin) => seq?.logs.get(origin)?.store) });
  await seq.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(seq.app.server.address() as { port: number }).port}`;
  const reg = await seq.app.inject({
    method: 'POST',
    url: logPath(LOG, '/keys'),
    headers: { authorization: `Bearer ${(await readFile(join(dir, DATA_FILES.token), 'utf8')).trim()}` },
    payload: device.record,
  });
  expect([200, 201]).toContain(reg.statusCode);
}, 120_000);

afterAll(async () => {
  await seq?.close();
  await hook?.close();
  if (witness) await stopChild(witness);
  await tmp.cleanup();
});

describe('a witness known only by its ML-DSA-44 key', () => {
  it('cosigns our checkpoints with subtree/v1, and the quorum counts it', async () => {
    for (const n of [5, 20, 7]) {
      const cp = await round(n);
      expect(cp?.signature.filter((s) => s.alg === 'subtree/v1').map((s) => s.kid)).toEqual([
        `pq-w+${witness!.info.c2sp!.mldsaVkey!.split('+')[1]}`,
      ]);
      expect(cp?.signature.some((s) => s.alg === 'cosignature/v1')).toBe(false);
    }
  }, 60_000);

  it('the bundle verifies offline with `cookwala verify`; a flipped cosignature byte is refused with its seq', async () => {
    const bundle = await (await fetch(`${base}${logPath(LOG, '/bundle')}`)).text();
    const file = join(dir, 'audit.ndjson');
    await writeFile(file, bundle);
    const ok = await runCookwala(['verify', file, '--policy', join(dir, 'policy.json'), '--json']);
    expect(ok.code, ok.out + ok.err).toBe(0);
    const report = JSON.parse(ok.out) as { valid: boolean; checkpoints: { cosigned?: Array<{ seq: number; cosigners: unknown }> } };
    expect(report.valid).toBe(true);
    expect(report.checkpoints.cosigned?.map((c) => c.cosigners)).toEqual(
      [5, 25, 32].map(() => [{ kid: 'w-pq', name: expect.stringMatching(/^pq-w \(wit-/), forms: ['subtree/v1'] }]),
    );
    // One byte of the seq-25 checkpoint's ML-DSA-44 signature.
    const lines = bundle.split('\n');
    const i = lines.findIndex((l) => l.includes('"kind":"Checkpoint"') && (JSON.parse(l) as Checkpoint).seq === 25);
    const cp = JSON.parse(lines[i]) as Checkpoint;
    cp.signature = cp.signature.map((s) => (s.alg === 'subtree/v1' ? { ...s, sig: flipB64(s.sig, true) } : s));
    lines[i] = JSON.stringify(cp);
    await writeFile(file, lines.join('\n'));
    const bad = await runCookwala(['verify', file, '--policy', join(dir, 'policy.json')]);
    expect(bad.code, bad.out + bad.err).toBe(1);
    expect(bad.out + bad.err).toMatch(/checkpoint 25\b/);
    expect(bad.out + bad.err).toMatch(/quorum_not_met|bad_signature/);
  }, 60_000);

  it('a tlog-proof verifies offline with `cookwala verify-event`; a flipped cosignature byte is refused with its seq', async () => {
    const out = join(dir, 'e9.tlog-proof');
    const made = await runCookwala(['proof', '--url', base, '--log', LOG, '--seq', '9', '--out', out, '--format', 'tlog-proof']);
    expect(made.code, made.err).toBe(0);
    const text = await readFile(out, 'utf8');
    const ok = await runCookwala(['verify-event', out, '--policy', join(dir, 'policy.json')]);
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toMatch(/PROVED/);
    const name = 'pq-w';
    const edited = text
      .split('\n')
      .map((l) => {
        if (!l.startsWith(`\u2014 ${name} `)) return l;
        const b64 = l.slice(`\u2014 ${name} `.length);
        return `\u2014 ${name} ${flipB64(b64, false)}`;
      })
      .join('\n');
    expect(edited).not.toBe(text);
    await writeFile(out, edited);
    const bad = await runCookwala(['verify-event', out, '--policy', join(dir, 'policy.json')]);
    expect(bad.code, bad.out + bad.err).toBe(1);
    expect(bad.out + bad.err).toMatch(/\b32\b/);
  }, 60_000);
});
