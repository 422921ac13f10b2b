// One event proved offline (event-proof.ts) on a generated log: a device event with and without its
// payload, a sequencer-signed erasure entry, and each way a proof can be wrong, by its reason code.
import { describe, expect, it } from 'vitest';
import { generateLog } from '../../testkit/log-generator.ts';
import { buildEventProof, verifyEventProof } from './event-proof.ts';
import { createMemoryTree, hashLeaf, inclusionProof } from '../merkle/index.ts';
import { entryLeaf, type Entry } from '../documents/entry.ts';
import { formatHash } from '../encoding/wire.ts';
import type { Checkpoint } from '../documents/checkpoint.ts';
import type { KeyRecord } from '../signing/keys.ts';
import type { CloudEvent } from '../cloudevent/read.ts';

const g = generateLog({ events: 40, checkpointEvery: 16, eraseEvery: 10 });
const docs = [...g.lines()]
  .join('')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const entries = docs.filter((d) => d.kind === 'Event') as Entry[];
const payloads = new Map<number, CloudEvent>(docs.filter((d) => d.kind === 'Payload').map((d) => [d.seq, d.event]));
const keys = docs.filter((d) => d.kind === 'KeyRecord') as KeyRecord[];
const checkpoints = docs.filter((d) => d.kind === 'Checkpoint') as Checkpoint[];
const tree = createMemoryTree();
for (const e of entries) tree.append(hashLeaf(entryLeaf(e)));

async function proofOf(seq: number, cpSeq = 32) {
  const e = entries[seq - 1];
  const cp = checkpoints.find((c) => c.seq === cpSeq)!;
  const proof = (await inclusionProof(tree, seq - 1, cp.seq)).map(formatHash);
  const key = keys.filter((k) => k.kid === e.eventSignature.kid);
  return JSON.parse(JSON.stringify(buildEventProof({ entry: e, event: payloads.get(seq), proof, checkpoint: cp, keys: key })));
}

describe('verifyEventProof', () => {
  it('proves a device event with its payload, and without it', async () => {
    const p = await proofOf(7);
    const r = verifyEventProof(p, g.policy);
    expect(r).toMatchObject({
      ok: true,
      value: { seq: 7, event: true, checkpoint: { seq: 32, witnesses: ['wit-0-s0', 'wit-1-s0', 'wit-2-s0'] } },
    });
    delete p.event;
    expect(verifyEventProof(p, g.policy)).toMatchObject({ ok: true, value: { seq: 7, event: false } });
  });
  it('proves an erased event by its entry, and the sequencer-signed erasure entry with its data', async () => {
    const erasedSeq = entries.find((e) => e.ce.type === 'cookwala.log.erased')!.seq;
    const target = (payloads.get(erasedSeq)!.data as { seq: number }).seq;
    expect(payloads.has(target)).toBe(false);
    expect(verifyEventProof(await proofOf(target), g.policy)).toMatchObject({ ok: true, value: { event: false } });
    expect(verifyEventProof(await proofOf(erasedSeq), g.policy)).toMatchObject({
      ok: true,
      value: { event: true, signedBy: g.sequencer.kid },
    });
  });
  it('names what is wrong', async () => {
    const cases: Array<[string, (p: any) => void, string]> = [
      ['a proof hash', (p) => (p.inclusion.proof[0] = 'sha256:' + 'ab'.repeat(32)), 'bad_proof'],
      ['a proof hash spelled wrong', (p) => (p.inclusion.proof[0] = 'abc'), 'bad_proof'],
      ['a shorter proof', (p) => p.inclusion.proof.pop(), 'bad_proof'],
      ['the size', (p) => (p.inclusion.size = 31), 'bad_proof'],
      ['the entry hash', (p) => (p.entry.ce.id = 'other'), 'entry_hash_mismatch'],
      ['the event', (p) => (p.event.data.step = -1), 'payload_hash_mismatch'],
      ['the event signature', (p) => (p.event.cookwalasig = payloads.get(8)!.cookwalasig), 'bad_signature'],
      ['no key', (p) => (p.keys = []), 'unknown_key'],
      ['a key not signed by the sequencer', (p) => delete p.keys[0].signature, 'bad_signature'],
      ['stripped cosignatures', (p) => p.checkpoint.signature.splice(1, 2), 'quorum_not_met'],
      ['an unknown member', (p) => (p.note = 1), 'unknown_field'],
      ['another kind', (p) => (p.kind = 'Proof'), 'invalid_document'],
    ];
    for (const [what, change, code] of cases) {
      const p = await proofOf(7);
      change(p);
      const r = verifyEventProof(p, g.policy);
      expect([what, r.ok ? 'ok' : r.code]).toEqual([what, code]);
    }
  });
  it('trusts device keys from the key cache when the proof carries none, and no policy but its own', async () => {
    const p = await proofOf(9);
    p.keys = [];
    expect(verifyEventProof(p, g.policy, { keys: g.deviceKeys }).ok).toBe(true);
    const other = generateLog({ events: 1, seed: 3 });
    expect(verifyEventProof(await proofOf(9), other.policy)).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(verifyEventProof(await proofOf(9), { ...g.policy, log: 'elsewhere.example/log' })).toMatchObject({
      ok: false,
      code: 'log_mismatch',
    });
  });
});
