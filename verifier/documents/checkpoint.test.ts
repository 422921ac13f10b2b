// Checkpoints (docs/design.md §4): building, cosigning, and verification under a witness policy: the
// sequencer's signature first, cosignatures only from policy witness keys that are not the
// sequencer's key (compared by public key, not kid), one key counted once, quorum_not_met below the
// quorum, bad cosignatures reported without failing a met quorum.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  addCosignature,
  buildCheckpoint,
  checkpointHashedText,
  cosignCheckpoint,
  cosignVerifiedCheckpoint,
  verifyCheckpoint,
  verifyCheckpointSequencerSignature,
  type Checkpoint,
} from './checkpoint.ts';
import type { WitnessPolicy } from './policy.ts';
import { readDocument } from './read.ts';
import { canonicalize } from '../encoding/jcs.ts';
import { computeHash, hashedView, type JsonObject } from '../signing/document-hash.ts';
import { createNobleBackend } from '../crypto/noble.ts';
import { at, fakeHash, keyFor, LOG, signerFor } from '../../testkit/verifier-fixtures.ts';
import { witnessDisplayName } from '../signing/witness-identity.ts';

const seqSigner = signerFor('EdDSA', 'seq-1', 61);
const seqKey = keyFor(seqSigner, 'sequencer', 'kitchen.example.org');
const ws = [signerFor('EdDSA', 'w-1', 62), signerFor('ES256', 'w-2', 63), signerFor('EdDSA', 'w-3', 64)];
const wKeys = ws.map((s, i) => keyFor(s, 'witness', `witness-${i + 1}.example`));
const policy: WitnessPolicy = { kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: wKeys, quorum: 2 };

function cp(seq = 7, signers = ws.slice(0, 2)): Checkpoint {
  let c = buildCheckpoint({ log: LOG, seq, head: fakeHash('ab'), root: fakeHash('cd') }, seqSigner, at(1_000));
  for (const s of signers) c = addCosignature(c, cosignCheckpoint(c, s, at(1_100)));
  return c;
}

describe('buildCheckpoint, cosignCheckpoint, addCosignature', () => {
  it('builds a strict, self-consistent checkpoint signed by the sequencer', () => {
    const c = buildCheckpoint({ log: LOG, seq: 0, head: fakeHash('1'), root: fakeHash('2') }, seqSigner, at(5));
    expect(c).toMatchObject({ kind: 'Checkpoint', log: LOG, seq: 0, signature: [{ kid: 'seq-1', signedAt: at(5) }] });
    expect(c.signature).toHaveLength(1);
    expect(readDocument('Checkpoint', c)).toMatchObject({ ok: true });
    expect(verifyCheckpointSequencerSignature(c, seqKey)).toEqual({ ok: true, value: { hash: c.hash, legacy: false } });
  });

  it('throws on bad arguments (programmer errors)', () => {
    const f = { log: LOG, seq: 1, head: fakeHash('1'), root: fakeHash('2') };
    expect(() => buildCheckpoint({ ...f, log: 'a b' }, seqSigner, at(1))).toThrow(TypeError);
    expect(() => buildCheckpoint({ ...f, seq: -1 }, seqSigner, at(1))).toThrow(TypeError);
    expect(() => buildCheckpoint({ ...f, seq: 1.5 }, seqSigner, at(1))).toThrow(TypeError);
    expect(() => buildCheckpoint({ ...f, head: 'sha256:00' }, seqSigner, at(1))).toThrow(TypeError);
    expect(() => buildCheckpoint(f, seqSigner, 'now')).toThrow(TypeError);
    const c = buildCheckpoint(f, seqSigner, at(1));
    expect(() => cosignCheckpoint({ ...c, seq: 2 }, ws[0], at(2))).toThrow(TypeError);
    expect(() => cosignCheckpoint(c, ws[0], 'later')).toThrow(TypeError);
  });

  it('cosignVerifiedCheckpoint over the verified hash is the same cosignature as cosignCheckpoint', () => {
    const c = buildCheckpoint({ log: LOG, seq: 3, head: fakeHash('3'), root: fakeHash('4') }, seqSigner, at(1));
    const v = verifyCheckpointSequencerSignature(c, seqKey);
    if (!v.ok) throw new Error(v.detail);
    // Ed25519 is deterministic: identical bytes; ES256 is not, so that one is checked by verifying.
    expect(cosignVerifiedCheckpoint(v.value, ws[0], at(2))).toEqual(cosignCheckpoint(c, ws[0], at(2)));
    const withTwo = addCosignature(
      addCosignature(c, cosignVerifiedCheckpoint(v.value, ws[0], at(2))),
      cosignVerifiedCheckpoint(v.value, ws[1], at(2)),
    );
    expect(verifyCheckpoint(withTwo, policy)).toMatchObject({ ok: true, value: { witnesses: ['w-1', 'w-2'] } });
    expect(() => cosignVerifiedCheckpoint({ hash: 'sha256:00' }, ws[0], at(2))).toThrow(TypeError);
    expect(() => cosignVerifiedCheckpoint(v.value, ws[0], 'later')).toThrow(TypeError);
  });

  it('addCosignature: one per kid, the later signedAt wins, signature[0] never replaced, input unchanged', () => {
    const c = cp(7, []);
    const a = cosignCheckpoint(c, ws[0], at(2_000));
    const c1 = addCosignature(c, a);
    expect(c.signature).toHaveLength(1);
    expect(c1.signature.map((s) => s.kid)).toEqual(['seq-1', 'w-1']);
    expect(addCosignature(c1, a)).toEqual(c1);
    const older = cosignCheckpoint(c, ws[0], at(1_500));
    expect(addCosignature(c1, older).signature[1]).toEqual(a);
    const newer = cosignCheckpoint(c, ws[0], at(3_000));
    const c2 = addCosignature(c1, newer);
    expect(c2.signature[1]).toEqual(newer);
    expect(c1.signature[1]).toEqual(a);
    const fakeSeq = cosignCheckpoint(c, seqSigner, at(9_000));
    expect(addCosignature(c1, fakeSeq)).toBe(c1);
  });
});

describe('verifyCheckpoint', () => {
  it('counts the policy witnesses and meets the quorum', () => {
    expect(verifyCheckpoint(cp(), policy)).toEqual({
      ok: true,
      value: {
        witnesses: ['w-1', 'w-2'],
        names: [witnessDisplayName(wKeys[0]), witnessDisplayName(wKeys[1])],
        cosignedAt: [at(1_100), at(1_100)],
        quorum: 2,
        rejected: [],
        legacy: false,
        cosigners: [
          { kid: 'w-1', name: witnessDisplayName(wKeys[0]), forms: ['jcs'] },
          { kid: 'w-2', name: witnessDisplayName(wKeys[1]), forms: ['jcs'] },
        ],
        logNote: 'absent',
      },
    });
    expect(verifyCheckpoint(cp(7, ws), policy, { backend: createNobleBackend() })).toMatchObject({
      ok: true,
      value: { witnesses: ['w-1', 'w-2', 'w-3'] },
    });
  });

  it('quorum_not_met with fewer valid cosignatures, listing what was rejected', () => {
    const r = verifyCheckpoint(cp(7, ws.slice(0, 1)), policy);
    expect(r).toMatchObject({ ok: false, code: 'quorum_not_met', witnesses: ['w-1'], quorum: 2, rejected: [] });
    const c = cp(7, ws.slice(0, 1));
    const forged = { ...cosignCheckpoint(c, signerFor('EdDSA', 'w-2', 99), at(1_100)), alg: 'ES256' as const };
    const r2 = verifyCheckpoint(addCosignature(c, forged), policy);
    expect(r2).toMatchObject({ ok: false, code: 'quorum_not_met', rejected: [{ kid: 'w-2', code: 'bad_signature' }] });
  });

  it('a bad cosignature is reported but does not fail a met quorum', () => {
    let c = cp(7, ws.slice(0, 2));
    const bad = cosignCheckpoint(c, ws[2], at(1_100));
    c = addCosignature(c, { ...bad, signedAt: at(1_101) });
    const r = verifyCheckpoint(c, policy);
    expect(r).toMatchObject({ ok: true, value: { witnesses: ['w-1', 'w-2'], rejected: [{ kid: 'w-3', code: 'bad_signature' }] } });
  });

  it("the sequencer's own key never counts, even listed as a witness under another kid", () => {
    const sneaky = { ...seqKey, kid: 'w-seq', role: 'witness' as const };
    const p: WitnessPolicy = { ...policy, witnesses: [wKeys[0], sneaky], quorum: 2 };
    const asWitness = signerFor('EdDSA', 'w-seq', 61); // same seed as the sequencer: same public key
    let c = cp(7, ws.slice(0, 1));
    c = addCosignature(c, cosignCheckpoint(c, asWitness, at(1_100)));
    expect(verifyCheckpoint(c, p)).toMatchObject({
      ok: false,
      code: 'quorum_not_met',
      witnesses: ['w-1'],
      rejected: [{ kid: 'w-seq', code: 'key_role_mismatch' }],
    });
  });

  it('one key counts once, under two kids or twice under one', () => {
    const twin = { ...wKeys[0], kid: 'w-1b' };
    const p: WitnessPolicy = { ...policy, witnesses: [wKeys[0], twin], quorum: 2 };
    let c = cp(7, ws.slice(0, 1));
    c = addCosignature(c, cosignCheckpoint(c, signerFor('EdDSA', 'w-1b', 62), at(1_100)));
    expect(verifyCheckpoint(c, p)).toMatchObject({ ok: false, code: 'quorum_not_met', witnesses: ['w-1'] });
    const dup = cp(7, ws.slice(0, 1));
    const again = { ...dup, signature: [...dup.signature, dup.signature[1]] };
    expect(verifyCheckpoint(again, policy)).toMatchObject({ ok: false, code: 'quorum_not_met', witnesses: ['w-1'] });
  });

  it('cosignatures by unknown, revoked or non-witness keys are rejected with their reason', () => {
    const stranger = signerFor('EdDSA', 'w-9', 70);
    let c = cp(7, ws.slice(0, 2));
    c = addCosignature(c, cosignCheckpoint(c, stranger, at(1_100)));
    const p: WitnessPolicy = { ...policy, witnesses: [wKeys[0], wKeys[1], { ...wKeys[2], revokedAt: at(1_000) }] };
    c = addCosignature(c, cosignCheckpoint(c, ws[2], at(1_100)));
    const r = verifyCheckpoint(c, p);
    expect(r).toMatchObject({
      ok: true,
      value: {
        witnesses: ['w-1', 'w-2'],
        rejected: [
          { kid: 'w-9', code: 'unknown_key' },
          { kid: 'w-3', code: 'key_revoked' },
        ],
      },
    });
    const p2: WitnessPolicy = { ...policy, witnesses: [wKeys[0], { ...wKeys[1], role: 'device' }] };
    expect(verifyCheckpoint(cp(), p2)).toMatchObject({
      ok: false,
      code: 'quorum_not_met',
      rejected: [{ kid: 'w-2', code: 'key_role_mismatch' }],
    });
  });

  it('quorum 0 needs no witness', () => {
    expect(verifyCheckpoint(cp(7, []), { ...policy, witnesses: [], quorum: 0 })).toMatchObject({
      ok: true,
      value: { witnesses: [], quorum: 0 },
    });
  });

  it('refuses the wrong log, a changed checkpoint, a bad sequencer signature and a bad shape', () => {
    const c = cp();
    expect(verifyCheckpoint(c, { ...policy, log: 'other.example/log' })).toMatchObject({ ok: false, code: 'log_mismatch' });
    expect(verifyCheckpoint({ ...c, root: fakeHash('ee') }, policy)).toMatchObject({ ok: false, code: 'hash_mismatch' });
    const other = signerFor('EdDSA', 'seq-1', 71);
    const forged = buildCheckpoint({ log: LOG, seq: 7, head: fakeHash('ab'), root: fakeHash('cd') }, other, at(1_000));
    expect(verifyCheckpoint({ ...c, signature: [forged.signature[0], ...c.signature.slice(1)] }, policy)).toMatchObject({
      ok: false,
      code: 'bad_signature',
    });
    expect(verifyCheckpoint({ ...c, signature: c.signature.slice(1) }, policy)).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(verifyCheckpoint(c, { ...policy, sequencer: { ...seqKey, role: 'operator' } })).toMatchObject({
      ok: false,
      code: 'key_role_mismatch',
    });
    expect(verifyCheckpoint({ ...c, signature: [] }, policy)).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(verifyCheckpoint({ ...c, extra: 1 } as Checkpoint, policy)).toMatchObject({ ok: false, code: 'unknown_field', path: '/extra' });
    expect(verifyCheckpoint({ ...c, head: 'sha256:AB' }, policy)).toMatchObject({ ok: false, code: 'invalid_hash' });
    expect(verifyCheckpointSequencerSignature({ ...c, signature: [] }, seqKey)).toMatchObject({ ok: false, code: 'invalid_document' });
  });
});

describe('the checkpoint hash fast path', () => {
  const text = fc.oneof(
    { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.constantFrom('a"b', 'a\\b', '\u0001', '\ud800', '\udc00x', '\ud83d\ude00', '\u2028', fakeHash('ab'), LOG),
  );
  const seq = fc.oneof(
    { weight: 4, arbitrary: fc.nat() },
    fc.constantFrom(-0, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, NaN),
    fc.string({ maxLength: 3 }),
  );
  const extra = fc.option(fc.constantFrom('x-acme-note', 'extra', '__proto__'), { nil: undefined, freq: 4 });
  const kind = fc.oneof({ weight: 6, arbitrary: fc.constant('Checkpoint') }, fc.constant('checkpoint'));

  it('gives exactly the JCS text computeHash covers, or nothing', () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc.record({ kind, log: text, seq, head: text, root: text }),
        fc.nat(9).map((n) => n === 0),
        extra,
        (body, dropHash, more) => {
          const c: Record<string, unknown> = { ...body, hash: fakeHash('ee'), signature: [] };
          if (dropHash) delete c.hash;
          if (more !== undefined) Object.defineProperty(c, more, { value: 1, enumerable: true, writable: true, configurable: true });
          const fast = checkpointHashedText(c as unknown as Checkpoint);
          const slow = canonicalize(hashedView(c as JsonObject));
          if (fast !== undefined) {
            expect(dropHash || more !== undefined).toBe(false);
            expect(slow.ok && slow.value).toBe(fast);
            taken++;
          }
        },
      ),
      { numRuns: 1000 },
    );
    expect(taken, 'how often the fast path was taken').toBeGreaterThan(20);
  });

  it('is taken for a built checkpoint, and the verdicts are unchanged when it is not', () => {
    const c = cp();
    expect(checkpointHashedText(c)).toBeDefined();
    const r = verifyCheckpointSequencerSignature(c, seqKey);
    const h = computeHash(c as unknown as JsonObject);
    expect(r.ok && h.ok && r.value.hash).toBe(h.ok && h.value);
    // A vendor member is covered by the hash: the slow path, same verdict as before (hash_mismatch).
    const v = { ...c, 'x-acme-note': 'n' } as Checkpoint;
    expect(checkpointHashedText(v)).toBeUndefined();
    const rv = verifyCheckpointSequencerSignature(v, seqKey);
    expect(!rv.ok && rv.code).toBe('hash_mismatch');
  });
});
