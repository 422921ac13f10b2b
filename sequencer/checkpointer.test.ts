// Checkpoints: signed over the durable head only when it moved, persisted BEFORE the publisher
// sees them, "latest signed" apart from "latest published"; the publisher hook (witnesses) can
// withhold or cosign, and a cosigned result is persisted before it is served; a restart restores
// both from the store.
import { afterAll, expect, it } from 'vitest';
import { openLogStore } from '../logstore/index.ts';
import { createCheckpointer, publishNever, type CheckpointPublisher } from './checkpointer.ts';
import { createManualClock } from '../testkit/clock.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { seedOf, signerKey } from '../testkit/keys.ts';
import { buildLogDescriptor } from '../verifier/documents/log-descriptor.ts';
import {
  addCosignature,
  cosignCheckpoint,
  verifyCheckpointSequencerSignature,
  witnessSignatures,
  type Checkpoint,
} from '../verifier/documents/checkpoint.ts';
import { c2spSignatureFromNote, checkpointNoteBody } from '../verifier/documents/checkpoint-c2sp.ts';
import type { WitnessPolicy } from '../verifier/documents/policy.ts';
import { createNoteSigner, formatSignerKey, parseNote, signNote, SIG_COSIGNATURE_V1 } from '../verifier/c2sp/note/index.ts';
import { noteKeyId } from '../verifier/c2sp/note/index.ts';
import { EMPTY_ROOT } from '../verifier/merkle/index.ts';
import { formatHash } from '../verifier/encoding/wire.ts';
import { entryFor, makeEvent } from '../testkit/logstore.ts';

const LOG = 'test.example/cp';
const seq = signerKey('cp', 'sequencer');
const wit = signerKey('w1', 'witness');
const tmp = tempDirs();
afterAll(() => tmp.cleanup());

it('signs, persists before publishing, and only when the head moved', async () => {
  const dir = await tmp.make();
  const store = await openLogStore(dir);
  const d = buildLogDescriptor({ log: LOG, mode: 'full', createdAt: '2026-11-30T09:00:00.000Z' }, seq.signer);
  await store.init(d);
  const clock = createManualClock();
  const seen: Checkpoint[] = [];
  const publisher: CheckpointPublisher = {
    async publish(cp) {
      expect(await store.checkpoint(cp.seq)).toEqual(cp); // on disk before anyone sees it
      seen.push(cp);
      return cp;
    },
  };
  const c = await createCheckpointer({ store, log: LOG, signer: seq.signer, clock, publisher, quorum: 0 });
  expect(c.latestPublished()).toBeUndefined();
  await c.tick();
  const cp0 = c.latestPublished()!;
  expect(cp0).toMatchObject({ seq: 0, head: d.hash, root: formatHash(EMPTY_ROOT) });
  expect(verifyCheckpointSequencerSignature(cp0, seq.record).ok).toBe(true);
  await c.tick();
  expect(seen).toHaveLength(1);
  await store.append([{ entry: entryFor(LOG, { seq: 0, hash: d.hash }, makeEvent('e1'), seq.signer) }]);
  clock.advance(1000);
  await Promise.all([c.tick(), c.tick()]); // concurrent ticks share one run
  expect(seen.map((x) => x.seq)).toEqual([0, 1]);
  expect(c.latestSigned()).toEqual(c.latestPublished());
  expect(c.latestSigned()!.head).toBe(store.head().hash);
  expect(c.latestSigned()!.root).toBe(store.head().root);
  await store.close();
});

it('keeps latest signed and latest published apart; persists cosigned checkpoints; restores both', async () => {
  const dir = await tmp.make();
  const store = await openLogStore(dir);
  const d = buildLogDescriptor({ log: LOG, mode: 'full', createdAt: '2026-11-30T09:00:00.000Z' }, seq.signer);
  await store.init(d);
  const clock = createManualClock();
  let withhold = true;
  const publisher: CheckpointPublisher = {
    async publish(cp) {
      if (withhold) return undefined;
      return addCosignature(cp, cosignCheckpoint(cp, wit.signer, '2026-11-30T10:00:01.000Z'));
    },
  };
  const c = await createCheckpointer({ store, log: LOG, signer: seq.signer, clock, publisher, quorum: 1 });
  await c.tick();
  expect(c.latestSigned()?.seq).toBe(0);
  expect(c.latestPublished()).toBeUndefined();
  withhold = false;
  await c.tick(); // same head: nothing new to sign, but still unpublished: ask again
  const pub = c.latestPublished()!;
  // The sequencer's JCS signature, the witness's cosignature, and the log's C2SP note signature (kept last).
  expect(pub.signature.map((x) => x.alg)).toEqual(['EdDSA', 'EdDSA', 'note-ed25519']);
  expect(pub.signature[2].kid).toBe(`${LOG}+${noteKeyId(LOG, 1, seq.signer.publicKey)}`);
  expect(await store.checkpoint(0)).toEqual(pub);
  await store.append([{ entry: entryFor(LOG, { seq: 0, hash: d.hash }, makeEvent('e1'), seq.signer) }]);
  withhold = true;
  await c.tick();
  expect(c.latestSigned()?.seq).toBe(1);
  expect(c.latestPublished()?.seq).toBe(0);
  await c.stop();
  // restart: signed is the stored seq-1 checkpoint (1 signature, below quorum 1); published is the
  // newest stored one that met the quorum (seq 0, with its cosignature), not nothing
  const c2 = await createCheckpointer({ store, log: LOG, signer: seq.signer, clock, publisher: publishNever, quorum: 1 });
  expect(c2.latestSigned()?.seq).toBe(1);
  expect(c2.latestPublished()).toEqual(pub);
  const c4 = await createCheckpointer({ store, log: LOG, signer: seq.signer, clock, publisher: publishNever, quorum: 2 });
  expect(c4.latestPublished()).toBeUndefined();
  const c3 = await createCheckpointer({ store, log: LOG, signer: seq.signer, clock, publisher: publishNever, quorum: 0 });
  expect(c3.latestPublished()?.seq).toBe(1);
  await store.close();
});

it('after a restart, a witness that signed in both forms (JCS and cosignature/v1) counts once toward the quorum', async () => {
  const dir = await tmp.make();
  const store = await openLogStore(dir);
  const d = buildLogDescriptor({ log: LOG, mode: 'full', createdAt: '2026-11-30T09:00:00.000Z' }, seq.signer);
  await store.init(d);
  const clock = createManualClock();
  // One witness key in two forms: its JCS cosignature and its cosignature/v1 note line.
  const note = createNoteSigner(formatSignerKey('w1.example', SIG_COSIGNATURE_V1, seedOf('EdDSA:w1')), {
    now: () => Date.parse('2026-11-30T10:00:01.000Z'),
  });
  if (!note.ok) throw new Error(note.detail);
  const v1 = (cp: Checkpoint) => {
    const body = checkpointNoteBody(cp);
    const signed = body.ok ? signNote(body.value, [note.value]) : body;
    const parsed = signed.ok ? parseNote(signed.value) : signed;
    if (!parsed.ok) throw new Error(parsed.detail);
    const c = c2spSignatureFromNote(parsed.value.signatures[0], SIG_COSIGNATURE_V1, '1970-01-01T00:00:00.000Z');
    if (!c.ok) throw new Error(c.detail);
    return c.value;
  };
  const publisher: CheckpointPublisher = {
    async publish(cp) {
      return addCosignature(addCosignature(cp, v1(cp)), cosignCheckpoint(cp, wit.signer, '2026-11-30T10:00:01.000Z'));
    },
  };
  const other = signerKey('w2', 'witness');
  const policy: WitnessPolicy = {
    kind: 'WitnessPolicy',
    log: LOG,
    sequencer: seq.record,
    witnesses: [{ ...wit.record, vkey: note.value.vkey }, other.record],
    quorum: 2,
  };
  const c = await createCheckpointer({ store, log: LOG, signer: seq.signer, clock, publisher, quorum: 0 });
  await c.tick(); // stored with two witness signatures, both from w1
  await c.stop();
  expect(witnessSignatures((await store.latestCheckpoint())!)).toHaveLength(2);
  const counted = await createCheckpointer({ store, log: LOG, signer: seq.signer, clock, publisher: publishNever, quorum: 2, policy });
  expect(counted.latestPublished()).toBeUndefined();
  const withOne = await createCheckpointer({
    store,
    log: LOG,
    signer: seq.signer,
    clock,
    publisher: publishNever,
    quorum: 1,
    policy: { ...policy, quorum: 1 },
  });
  expect(withOne.latestPublished()?.seq).toBe(0);
  await store.close();
});
