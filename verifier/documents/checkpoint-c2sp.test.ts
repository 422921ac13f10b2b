// C2SP signatures inside checkpoints (docs/design.md §4, §7a; C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): the log's note signature and witness cosignature/v1
// entries render to a signed note that our C2SP verifier (verifier/c2sp/note) accepts on both crypto
// backends; verifyCheckpoint counts a witness once whichever of its forms verify, names the forms,
// and rejects a tampered or foreign C2SP signature; addCosignature keeps the log's note last.
import { describe, expect, it } from 'vitest';
import {
  addCosignature,
  buildCheckpoint,
  cosignCheckpoint,
  verifyCheckpoint,
  withLogNoteSignature,
  witnessSignatures,
  type Checkpoint,
} from './checkpoint.ts';
import {
  c2spSignatureFromNote,
  checkpointNoteBody,
  checkpointToNote,
  cosignaturesFromWitnessReply,
  logVkeyOf,
  type C2spSignature,
} from './checkpoint-c2sp.ts';
import type { WitnessPolicy } from './policy.ts';
import { readDocument } from './read.ts';
import { createNodeBackend } from '../crypto/node.ts';
import { createNobleBackend } from '../crypto/noble.ts';
import {
  createNoteSigner,
  formatSignerKey,
  parseNote,
  parseVerifierKey,
  signNote,
  SIG_COSIGNATURE_V1,
  verifyCheckpointNote,
} from '../c2sp/note/index.ts';
import { at, fakeHash, keyFor, LOG, seed, signerFor } from '../../testkit/verifier-fixtures.ts';

const backends = [
  ['node', createNodeBackend()],
  ['noble', createNobleBackend()],
] as const;
const seqSigner = signerFor('EdDSA', 'seq-1', 71);
const seqKey = keyFor(seqSigner, 'sequencer', 'kitchen.example.org');
const jcsWitness = signerFor('EdDSA', 'w-1', 72);
const T = Date.parse('2026-11-30T10:00:05.000Z');

/** A cosignature/v1 witness made with our note signer (the e2e test uses an independent one). */
function c2spWitness(name: string, n: number) {
  const skey = formatSignerKey(name, SIG_COSIGNATURE_V1, seed(n));
  const signer = createNoteSigner(skey, { now: () => T });
  if (!signer.ok) throw new Error(signer.detail);
  return {
    vkey: signer.value.vkey,
    cosign(cp: Checkpoint): C2spSignature {
      const body = checkpointNoteBody(cp);
      if (!body.ok) throw new Error(body.detail);
      const note = parseNote(
        signNote(body.value, [signer.value]).ok ? (signNote(body.value, [signer.value]) as { value: string }).value : '',
      );
      if (!note.ok) throw new Error(note.detail);
      const c = c2spSignatureFromNote(note.value.signatures[0], SIG_COSIGNATURE_V1, '1970-01-01T00:00:00.000Z');
      if (!c.ok) throw new Error(c.detail);
      return c.value;
    },
  };
}

const cw = c2spWitness('witness-c2sp.example', 73);
// The C2SP-only witness: its KeyRecord's Ed25519 key is its vkey's key (one key, two forms).
const cwKey = { ...keyFor(signerFor('EdDSA', 'w-c2sp', 73), 'witness', 'witness-c2sp.example'), vkey: cw.vkey };
const jcsKey = keyFor(jcsWitness, 'witness', 'witness-1.example');

function base(seq = 5): Checkpoint {
  const cp = buildCheckpoint({ log: LOG, seq, head: fakeHash('ab'), root: fakeHash('cd') }, seqSigner, at(1_000));
  return withLogNoteSignature(cp, seqSigner, at(1_000));
}

describe('the C2SP form of a checkpoint', () => {
  it('renders to a signed note our C2SP verifier accepts on both backends, with every cosignature/v1', () => {
    let cp = base();
    cp = addCosignature(cp, cw.cosign(cp));
    cp = addCosignature(cp, cosignCheckpoint(cp, jcsWitness, at(1_100)));
    expect(readDocument('Checkpoint', cp)).toMatchObject({ ok: true });
    const note = checkpointToNote(cp);
    expect(note.ok).toBe(true);
    if (!note.ok) return;
    expect(note.value.split('\n').slice(0, 3)).toEqual([LOG, '5', Buffer.from(fakeHash('cd').slice(7), 'hex').toString('base64')]);
    const vkey = logVkeyOf(LOG, seqKey);
    expect(vkey.ok).toBe(true);
    if (!vkey.ok) return;
    for (const [, backend] of backends) {
      const v = verifyCheckpointNote(note.value, [vkey.value, cw.vkey], { origin: LOG, backend });
      expect(v).toMatchObject({ ok: true, value: { checkpoint: { origin: LOG, size: 5, extensions: [] } } });
      if (v.ok) expect(v.value.note.verified.map((x) => x.type)).toEqual([0x01, 0x04]);
      const policy: WitnessPolicy = { kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: [cwKey, jcsKey], quorum: 2 };
      expect(verifyCheckpoint(cp, policy, { backend })).toMatchObject({
        ok: true,
        value: {
          witnesses: ['w-c2sp', 'w-1'],
          logNote: 'verified',
          cosigners: [
            { kid: 'w-c2sp', forms: ['cosignature/v1'] },
            { kid: 'w-1', forms: ['jcs'] },
          ],
        },
      });
    }
  });

  it('keeps the log note signature last and lists only witness signatures', () => {
    let cp = base();
    const c = cw.cosign(cp);
    cp = addCosignature(cp, c);
    expect(cp.signature.map((s) => s.alg)).toEqual(['EdDSA', 'cosignature/v1', 'note-ed25519']);
    expect(witnessSignatures(cp)).toEqual([c]);
  });

  it('counts a witness once when both its JCS and its cosignature/v1 verify, naming both forms', () => {
    const both = { ...keyFor(signerFor('EdDSA', 'w-both', 73), 'witness', 'witness-c2sp.example'), vkey: cw.vkey };
    let cp = base();
    cp = addCosignature(cp, cw.cosign(cp));
    cp = addCosignature(cp, cosignCheckpoint(cp, signerFor('EdDSA', 'w-both', 73), at(1_200)));
    const one: WitnessPolicy = { kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: [both], quorum: 1 };
    expect(verifyCheckpoint(cp, one)).toMatchObject({
      ok: true,
      value: { witnesses: ['w-both'], cosigners: [{ kid: 'w-both', forms: ['cosignature/v1', 'jcs'] }] },
    });
    // Two copies of one witness never make a quorum of two.
    const two = { ...one, witnesses: [both, jcsKey], quorum: 2 };
    expect(verifyCheckpoint(cp, two)).toMatchObject({ ok: false, code: 'quorum_not_met' });
  });

  it('rejects a tampered cosignature/v1, one from a key outside the policy, and a bad log note', () => {
    const policy: WitnessPolicy = { kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: [cwKey], quorum: 1 };
    const cp = base();
    const good = cw.cosign(cp);
    const flipped = { ...good, signedAt: '2026-11-30T10:00:06.000Z' }; // the timestamp is signed
    expect(verifyCheckpoint(addCosignature(cp, flipped), policy)).toMatchObject({
      ok: false,
      code: 'quorum_not_met',
      rejected: [{ kid: good.kid, code: 'bad_signature' }],
    });
    const notWhole = { ...good, signedAt: '2026-11-30T10:00:05.500Z' };
    expect(verifyCheckpoint(addCosignature(cp, notWhole), policy)).toMatchObject({
      ok: false,
      code: 'quorum_not_met',
      rejected: [{ code: 'malformed_signature' }],
    });
    const other = c2spWitness('witness-c2sp.example', 74).cosign(cp);
    expect(verifyCheckpoint(addCosignature(cp, other), policy)).toMatchObject({
      ok: false,
      code: 'quorum_not_met',
      rejected: [{ kid: other.kid, code: 'unknown_key' }],
    });
    // The same cosignature moved to another checkpoint (other root) does not verify there.
    const moved = addCosignature(base(6), good);
    expect(verifyCheckpoint(moved, policy)).toMatchObject({ ok: false, code: 'quorum_not_met', rejected: [{ code: 'bad_signature' }] });
    const badNote = { ...cp, signature: cp.signature.map((s) => (s.alg === 'note-ed25519' ? { ...s, sig: good.sig } : s)) };
    const r = verifyCheckpoint(addCosignature(badNote, good), policy);
    expect(r).toMatchObject({ ok: true, value: { logNote: 'bad', rejected: [{ code: 'bad_signature' }] } });
  });

  it('takes only the policy vkeys from a witness reply and ignores other lines', () => {
    const cp = base();
    const mine = cw.cosign(cp);
    const other = c2spWitness('other.example', 75).cosign(cp);
    const toLine = (s: C2spSignature) => (checkpointToNote({ ...cp, signature: [s] }) as { value: string }).value.split('\n\n')[1];
    const k = parseVerifierKey(cw.vkey);
    if (!k.ok) throw new Error(k.detail);
    expect(cosignaturesFromWitnessReply(cp, toLine(other) + toLine(mine), [k.value])).toEqual({
      ok: true,
      value: [{ ...mine, signedAt: '2026-11-30T10:00:05.000Z' }],
    });
    expect(cosignaturesFromWitnessReply(cp, 'not a signature line\n', [k.value])).toMatchObject({ ok: false, code: 'malformed_note' });
  });
});
