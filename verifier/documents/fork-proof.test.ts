// Fork proofs (docs/design.md §4): two checkpoints of one log at one seq, both signed by the sequencer
// key, with different head or root prove a fork; anything short of that is not_a_fork or the
// reason a signature fails.
import { describe, expect, it } from 'vitest';
import { buildForkProof, verifyForkProof, type ForkProof } from './fork-proof.ts';
import { addCosignature, buildCheckpoint, cosignCheckpoint } from './checkpoint.ts';
import { readDocument } from './read.ts';
import { at, fakeHash, keyFor, LOG, signerFor } from '../../testkit/verifier-fixtures.ts';

for (const alg of ['EdDSA', 'ES256'] as const) {
  describe(`fork proofs (${alg} sequencer)`, () => {
    const seqSigner = signerFor(alg, 'seq-1', 81);
    const seqKey = keyFor(seqSigner, 'sequencer', 'kitchen.example.org');
    const mk = (head: string, root: string, seq = 9, log = LOG) => buildCheckpoint({ log, seq, head, root }, seqSigner, at(1_000));
    const a = addCosignature(
      mk(fakeHash('a'), fakeHash('b')),
      cosignCheckpoint(mk(fakeHash('a'), fakeHash('b')), signerFor('EdDSA', 'w-1', 82), at(1_001)),
    );
    const b = mk(fakeHash('c'), fakeHash('d'));

    it('proves a fork of different heads, or of the same head with different roots', () => {
      const fp = buildForkProof(a, b);
      expect(fp).toEqual({ kind: 'ForkProof', log: LOG, a, b });
      expect(readDocument('ForkProof', fp)).toMatchObject({ ok: true });
      expect(verifyForkProof(fp, seqKey)).toEqual({
        ok: true,
        value: { log: LOG, seq: 9, a: { head: a.head, root: a.root }, b: { head: b.head, root: b.root } },
      });
      expect(verifyForkProof(buildForkProof(a, mk(fakeHash('a'), fakeHash('e'))), seqKey).ok).toBe(true);
      expect(verifyForkProof(buildForkProof(a, mk(fakeHash('f'), fakeHash('b'))), seqKey).ok).toBe(true);
    });

    it('not_a_fork: equal checkpoints, another seq, another log', () => {
      const same: ForkProof = { kind: 'ForkProof', log: LOG, a, b: mk(fakeHash('a'), fakeHash('b')) };
      expect(verifyForkProof(same, seqKey)).toMatchObject({ ok: false, code: 'not_a_fork' });
      expect(verifyForkProof({ kind: 'ForkProof', log: LOG, a, b: mk(fakeHash('c'), fakeHash('d'), 10) }, seqKey)).toMatchObject({
        ok: false,
        code: 'not_a_fork',
      });
      expect(
        verifyForkProof({ kind: 'ForkProof', log: LOG, a, b: mk(fakeHash('c'), fakeHash('d'), 9, 'other.example/log') }, seqKey),
      ).toMatchObject({ ok: false, code: 'not_a_fork' });
      expect(verifyForkProof({ ...buildForkProof(a, b), log: 'other.example/log' }, seqKey)).toMatchObject({
        ok: false,
        code: 'not_a_fork',
      });
    });

    it('fails when either checkpoint is not validly signed by that key', () => {
      const other = signerFor(alg, 'seq-1', 83);
      const forged = buildCheckpoint({ log: LOG, seq: 9, head: fakeHash('c'), root: fakeHash('d') }, other, at(1_000));
      expect(verifyForkProof({ kind: 'ForkProof', log: LOG, a, b: forged }, seqKey)).toMatchObject({
        ok: false,
        code: 'bad_signature',
        detail: expect.stringMatching(/^checkpoint b/),
      });
      expect(verifyForkProof({ kind: 'ForkProof', log: LOG, a: { ...a, head: fakeHash('9') }, b }, seqKey)).toMatchObject({
        ok: false,
        code: 'hash_mismatch',
        detail: expect.stringMatching(/^checkpoint a/),
      });
      expect(verifyForkProof(buildForkProof(a, b), { ...seqKey, kid: 'seq-2' })).toMatchObject({ ok: false, code: 'bad_signature' });
      expect(verifyForkProof(buildForkProof(a, b), { ...seqKey, revokedAt: at(500) })).toMatchObject({ ok: false, code: 'key_revoked' });
    });

    it('reads strictly', () => {
      expect(verifyForkProof({ ...buildForkProof(a, b), note: 'x' } as ForkProof, seqKey)).toMatchObject({
        ok: false,
        code: 'unknown_field',
        path: '/note',
      });
      expect(
        verifyForkProof(
          { ...buildForkProof(a, b), b: { ...b, signature: [{ ...b.signature[0], extra: 1 }] } } as unknown as ForkProof,
          seqKey,
        ),
      ).toMatchObject({ ok: false, code: 'unknown_field', path: '/b/signature/0/extra' });
      expect(verifyForkProof({ kind: 'ForkProof', log: LOG, a } as ForkProof, seqKey)).toMatchObject({
        ok: false,
        code: 'invalid_document',
      });
    });

    it('buildForkProof refuses checkpoints that do not conflict (programmer error)', () => {
      expect(() => buildForkProof(a, a)).toThrow(TypeError);
      expect(() => buildForkProof(a, mk(fakeHash('c'), fakeHash('d'), 10))).toThrow(TypeError);
      expect(() => buildForkProof(a, mk(fakeHash('c'), fakeHash('d'), 9, 'other.example/log'))).toThrow(TypeError);
    });
  });
}
