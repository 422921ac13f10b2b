// One quorum across both witness protocols (docs/design.md §7a): a real sequencer (LevelDB,
// fastify) whose policy has quorum 2 over one of our libp2p witnesses (witness/server, its synced
// state store) and one independent C2SP tlog-witness over HTTP (testkit/c2sp-reference.ts). A
// checkpoint is published only when both cosigned, carrying a JCS cosignature and a cosignature/v1,
// and verifyCheckpoint counts two witnesses; when the C2SP witness refuses (422), the libp2p
// cosignature alone is below the quorum and nothing is published; the next round publishes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { initDataDir } from '../sequencer/data-dir.ts';
import { openSequencer, type Sequencer } from '../sequencer/app.ts';
import { DATA_FILES } from '../sequencer/config.ts';
import { startWitnessing, type WitnessHook } from '../witness/client/sequencer-side.ts';
import { createWitness, type Witness } from '../witness/server/service.ts';
import { openStateStore, type StateStore } from '../witness/server/state.ts';
import { verifyCheckpoint } from '../verifier/documents/checkpoint.ts';
import { logVkeyOf } from '../verifier/documents/checkpoint-c2sp.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/policy.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import { testKey } from '../testkit/witness.ts';
import { deviceKey, FIXTURE_VALID_FROM } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import { startRefWitness, type RefWitness } from '../testkit/c2sp-reference.ts';

const LOG = 'mixed.example/missions/m-2';
let dir: string;
let seq: Sequencer;
let hook: WitnessHook | undefined;
let ref: RefWitness;
let state: StateStore;
let p2p: Witness;
let policy: WitnessPolicy;
const device = deviceKey(12);
const stream = eventStream(device, { signedAt: () => formatTime(Date.now() - 1000) });
let posted = 0;

beforeAll(async () => {
  dir = await makeTempDir('cookwala-c2sp-mixed-');
  await initDataDir({ dir: join(dir, 'seq'), logs: [LOG], mode: 'full' });
  const seqDir = join(dir, 'seq');
  const keyRecord = JSON.parse(await readFile(join(seqDir, DATA_FILES.keyRecord), 'utf8')) as KeyRecord;
  const vkey = logVkeyOf(LOG, keyRecord);
  if (!vkey.ok) throw new Error(vkey.detail);
  ref = await startRefWitness({ name: 'ref.mixed.example', logs: [{ origin: LOG, vkey: vkey.value }] });
  const wk = testKey('mixed-w1', 'witness');
  state = await openStateStore(join(dir, 'w1'));
  p2p = createWitness(
    { state, signer: wk.signer, keyRecord: wk.keyRecord },
    { peerKey: await generateKeyPair('Ed25519'), listen: ['/ip4/127.0.0.1/tcp/0'], logs: [{ log: LOG, sequencer: keyRecord }] },
  );
  const addr = (await p2p.start()).multiaddrs[0];
  const refRecord: KeyRecord = {
    kind: 'KeyRecord',
    kid: 'w-ref',
    alg: 'EdDSA',
    publicKey: ref.publicKey.toString('base64url'),
    owner: ref.name,
    role: 'witness',
    validFrom: FIXTURE_VALID_FROM,
    vkey: ref.vkey,
    url: ref.url,
  };
  const p = readWitnessPolicy({ kind: 'WitnessPolicy', log: LOG, sequencer: keyRecord, witnesses: [wk.keyRecord, refRecord], quorum: 2 });
  if (!p.ok) throw new Error(p.detail);
  policy = p.value;
  await writeFile(join(seqDir, 'policy.json'), JSON.stringify(policy));
  hook = await startWitnessing({ dataDir: seqDir, witnessPeers: [addr], policy, resubmitMs: 0 });
  seq = await openSequencer(seqDir, { timers: false, publisherFor: hook!.publisherFor((o) => seq?.logs.get(o)?.store) });
  const token = (await readFile(join(seqDir, DATA_FILES.token), 'utf8')).trim();
  const reg = await seq.app.inject({
    method: 'POST',
    url: logPath(LOG, '/keys'),
    headers: { authorization: `Bearer ${token}` },
    payload: device.record,
  });
  expect([200, 201]).toContain(reg.statusCode);
}, 30_000);

afterAll(async () => {
  await seq?.close();
  await hook?.close();
  await p2p?.stop();
  await state?.close();
  await ref?.close();
});

async function round(n: number) {
  for (let i = 0; i < n; i++) {
    const r = await seq.app.inject({
      method: 'POST',
      url: logPath(LOG, '/events'),
      headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `mixed-${++posted}` },
      payload: JSON.stringify(stream.next('exec')),
    });
    expect(r.statusCode).toBe(201);
  }
  await seq.tick();
  return seq.logs.get(LOG)!.checkpoints;
}

describe('libp2p and C2SP witnesses toward one quorum', () => {
  it('publishes only with both, counts both, and withholds when the C2SP witness refuses', async () => {
    let cps = await round(3);
    const cp = cps.latestPublished();
    expect(cp?.seq).toBe(3);
    // The libp2p witness signs both forms, so the C2SP view carries a cosignature/v1 line from each witness.
    expect(cp!.signature.map((s) => s.alg).sort()).toEqual(['EdDSA', 'EdDSA', 'cosignature/v1', 'cosignature/v1', 'note-ed25519']);
    expect(verifyCheckpoint(cp!, policy)).toMatchObject({
      ok: true,
      value: {
        witnesses: expect.arrayContaining(['w-ref', policy.witnesses[0].kid]),
        cosigners: expect.arrayContaining([
          expect.objectContaining({ kid: 'w-ref', forms: ['cosignature/v1'] }),
          expect.objectContaining({ kid: policy.witnesses[0].kid, forms: expect.arrayContaining(['jcs', 'cosignature/v1']) }),
        ]),
      },
    });
    ref.script({ status: 422 });
    cps = await round(2);
    expect(cps.latestSigned()?.seq).toBe(5);
    expect(cps.latestPublished()?.seq).toBe(3); // the libp2p cosignature alone is 1 of 2
    cps = await round(0);
    expect(cps.latestPublished()?.seq).toBe(5);
    expect(ref.state(LOG)?.size).toBe(5);
  });
});
