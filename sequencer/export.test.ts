// The bundle writer on a real LevelDB store (logstore/), filled directly: the line order of
// verifier/bundle/format.ts (keys in kid order after the sequencer's, each payload after its entry,
// erased ones left out), only checkpoints that meet the policy, and a refusal instead of a bundle
// that would not verify when an erasure lands while the export runs; coalesceLines keeps the text whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { openLogStore, type LogStore } from '../logstore/index.ts';
import { buildLogDescriptor } from '../verifier/documents/log-descriptor.ts';
import { buildEntry, entryCeOf } from '../verifier/documents/entry.ts';
import { addCosignature, buildCheckpoint, cosignCheckpoint } from '../verifier/documents/checkpoint.ts';
import { decodeCookwalasig, eventHash, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { signDocument } from '../verifier/signing/signature.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import type { JsonObject } from '../verifier/signing/document-hash.ts';
import type { WitnessPolicy } from '../verifier/documents/policy.ts';
import { createBundleVerifier } from '../verifier/bundle/verifier.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import { deviceKey, signerKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { bundleLines, coalesceLines, type BundleSource } from './export.ts';
import fc from 'fast-check';
import { erasedEvent } from './system-events.ts';

const LOG = 'export.example/log';
const T = '2026-11-30T10:00:00.000Z';
const seqKey = signerKey('exp-seq', 'sequencer');
const w = [signerKey('exp-w1', 'witness'), signerKey('exp-w2', 'witness')];
const devs = [deviceKey(12), deviceKey(11)];
// This test's log is written without declared time bounds, as logs before them were: the policy says so.
const policy: WitnessPolicy = {
  kind: 'WitnessPolicy',
  log: LOG,
  sequencer: seqKey.record,
  witnesses: w.map((x) => x.record),
  quorum: 2,
  timeBounds: { required: false },
};
const signed = (k: KeyRecord) => signDocument(k as unknown as JsonObject, seqKey.signer, T) as unknown as KeyRecord;

let dir: string;
let store: LogStore;
let src: BundleSource;

async function append(ce: CloudEvent): Promise<void> {
  const head = store.head();
  const sig = decodeCookwalasig(ce.cookwalasig as string);
  const h = eventHash(ce);
  if (!sig.ok || !h.ok) throw new Error('event');
  const entry = buildEntry({
    log: LOG,
    seq: head.seq + 1,
    prev: head.hash,
    sequencedAt: T,
    ce: entryCeOf(ce),
    eventHash: h.value,
    eventSignature: sig.value,
  });
  await store.append([{ entry, payload: ce, dedup: { source: ce.source, id: ce.id } }]);
}

async function checkpoint(cosigners: number): Promise<void> {
  const h = store.head();
  let cp = buildCheckpoint({ log: LOG, seq: h.seq, head: h.hash, root: h.root }, seqKey.signer, T);
  for (const x of w.slice(0, cosigners)) cp = addCosignature(cp, cosignCheckpoint(cp, x.signer, T));
  await store.putCheckpoint(cp);
}

async function collect(s: BundleSource): Promise<string[]> {
  // Entries and payloads come in Buffers of several lines, the rest one line per string.
  const parts: Buffer[] = [];
  for await (const l of bundleLines(s)) parts.push(typeof l === 'string' ? Buffer.from(l) : l);
  return Buffer.concat(parts).toString('utf8').split('\n').slice(0, -1);
}

beforeAll(async () => {
  dir = await makeTempDir('cookwala-export-');
  store = await openLogStore(dir);
  await store.init(buildLogDescriptor({ log: LOG, mode: 'hash_only', createdAt: T }, seqKey.signer));
  const s = devs.map((d) => eventStream(d));
  for (let i = 0; i < 4; i++) await append(s[i % 2].next(`exec-${i % 2}`));
  await checkpoint(2); // seq 4: published
  await append(s[0].next('exec-y'));
  await checkpoint(1); // seq 5: short of the quorum, never published
  const e2 = (await store.getEntry(2))!;
  const er = erasedEvent({ log: LOG, seq: 2, eventHash: e2.eventHash, reason: 'asked', atMs: Date.parse(T) }, seqKey.signer);
  const head = store.head();
  const entry = buildEntry({
    log: LOG,
    seq: head.seq + 1,
    prev: head.hash,
    sequencedAt: T,
    ce: entryCeOf(er.ce),
    eventHash: er.eventHash,
    eventSignature: er.signature,
  });
  await store.erasePayload(
    2,
    { seq: 2, eventHash: e2.eventHash, reason: 'asked', erasedAt: T },
    { entry, payload: er.ce, dedup: { source: er.ce.source, id: er.ce.id } },
  );
  await checkpoint(2); // seq 6: published
  src = {
    store,
    sequencerKey: signed(seqKey.record),
    deviceKeys: devs.map((d) => signed(d.record)),
    policy,
    now: () => Date.parse('2026-11-30T11:00:00.000Z'),
  };
});

afterAll(async () => {
  await store?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('bundleLines', () => {
  it('writes the fixed order, leaves out the erased payload and the unpublished checkpoint, and verifies', async () => {
    const lines = await collect(src);
    const kinds = lines.map((l) => {
      const d = JSON.parse(l);
      return d.kind ? `${d.kind}${d.seq ?? ''}${d.kind === 'KeyRecord' ? ':' + d.kid : ''}` : 'header';
    });
    expect(kinds).toEqual([
      'header',
      'Log',
      `KeyRecord:${seqKey.record.kid}`,
      'KeyRecord:dev-11',
      'KeyRecord:dev-12',
      'Event1',
      'Payload1',
      'Event2',
      'Event3',
      'Payload3',
      'Event4',
      'Payload4',
      'Event5',
      'Payload5',
      'Event6',
      'Payload6',
      'Checkpoint4',
      'Checkpoint6',
    ]);
    expect(JSON.parse(lines[0])).toEqual({
      type: 'cookwala-audit-bundle',
      schema_version: '1.0',
      log: LOG,
      mode: 'hash_only',
      seq: 6,
      checkpoints: 2,
      exportedAt: '2026-11-30T11:00:00.000Z',
    });
    const v = createBundleVerifier({ policy, checkpointSeqs: [4, 6] });
    for (const l of lines) await v.line(l);
    const r = await v.end();
    expect(r.failures).toEqual([]);
    expect(r.erased).toMatchObject([{ seq: 2, erasedBy: 6, reason: 'asked' }]);
  });
  it('without a policy exports every stored checkpoint', async () => {
    const lines = await collect({ ...src, policy: undefined });
    expect(JSON.parse(lines[0]).checkpoints).toBe(3);
  });
  it('refuses (conflict) when a payload vanished under an erasure after the exported head', async () => {
    const racing: LogStore = Object.create(store, {
      head: { value: () => ({ ...store.head(), seq: 5 }) },
      getPayload: {
        value: async (seq: number) =>
          seq === 2 ? { erased: { seq: 2, eventHash: 'x', reason: 'r', erasedAt: T, erasureSeq: 6 } } : store.getPayload(seq),
      },
    });
    await expect(collect({ ...src, store: racing })).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('coalesceLines', () => {
  it('keeps the text whole and in order, in pieces of at least the bound but the last', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 100 }),
        async (lines, chars) => {
          async function* gen() {
            yield* lines;
          }
          const pieces: string[] = [];
          for await (const p of coalesceLines(gen(), chars)) pieces.push(p as string); // strings in, strings out
          expect(pieces.join('')).toBe(lines.join(''));
          pieces.slice(0, -1).forEach((p) => expect(p.length).toBeGreaterThanOrEqual(chars));
          if (lines.length > 0) expect(pieces.length).toBeGreaterThan(0);
        },
      ),
    );
  });
});
