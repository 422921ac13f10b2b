// A witness is its public key (docs/design.md §4): sameWitness and the display name depend on keys
// only; verifyCheckpoint and the tlog-proof check count a witness whose kid or C2SP key name differs
// from the policy's spelling (a policy from tlog-policy text, a card with another name), once.
import { describe, expect, it } from 'vitest';
import {
  labelFirst,
  sameWitness,
  witnessDisplayName,
  witnessFingerprint,
  witnessKeyAgreement,
  witnessOfC2spKid,
} from './witness-identity.ts';
import {
  addCosignature,
  buildCheckpoint,
  cosignCheckpoint,
  verifyCheckpoint,
  withLogNoteSignature,
  type Checkpoint,
} from '../documents/checkpoint.ts';
import { c2spSignatureFromNote, checkpointNoteBody, logVkeyOf, type C2spSignature } from '../documents/checkpoint-c2sp.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../documents/policy.ts';
import { policyFromTlog, policyToTlog } from '../c2sp/tlog-policy.ts';
import { createNoteSigner, formatSignerKey, formatVerifierKey, parseNote, signNote, SIG_COSIGNATURE_V1 } from '../c2sp/note/index.ts';
import { toBase64url } from '../encoding/wire.ts';
import { sha256 } from '../crypto/default.ts';
import { at, fakeHash, keyFor, LOG, seed, signerFor } from '../../testkit/verifier-fixtures.ts';

// The sequencer's kid as our sequencer derives it (and from-tlog of another tool's text does).
const seqKid = `seq-${toBase64url(sha256(signerFor('EdDSA', 'x', 81).publicKey)).slice(0, 8)}`;
const seqSigner = signerFor('EdDSA', seqKid, 81);
const seqKey = keyFor(seqSigner, 'sequencer', 'kitchen.example.org');
// The libp2p witness signs its JCS cosignatures as wit-…, its cosignature/v1 as `signing.example`.
const libp2pSigner = signerFor('EdDSA', 'wit-libp2p', 82);
const libp2pKey = keyFor(libp2pSigner, 'witness', 'libp2p-witness');
const httpSigner = signerFor('EdDSA', 'wit-http', 83);
const httpKey = keyFor(httpSigner, 'witness', 'http-witness');
const T = Date.parse('2026-11-30T10:00:05.000Z');

/** A cosignature/v1 by the key of seed n under `name` (our note signer). */
function c2spCosign(name: string, n: number, cp: Checkpoint): C2spSignature {
  const signer = createNoteSigner(formatSignerKey(name, SIG_COSIGNATURE_V1, seed(n)), { now: () => T });
  if (!signer.ok) throw new Error(signer.detail);
  const body = checkpointNoteBody(cp);
  if (!body.ok) throw new Error(body.detail);
  const signed = signNote(body.value, [signer.value]);
  if (!signed.ok) throw new Error(signed.detail);
  const note = parseNote(signed.value);
  if (!note.ok) throw new Error(note.detail);
  const c = c2spSignatureFromNote(note.value.signatures[0], SIG_COSIGNATURE_V1, '1970-01-01T00:00:00.000Z');
  if (!c.ok) throw new Error(c.detail);
  return c.value;
}

const vkeyOf = (name: string, n: number) => formatVerifierKey(name, SIG_COSIGNATURE_V1, signerFor('EdDSA', 'x', n).publicKey);

function checkpoint(): Checkpoint {
  const cp = buildCheckpoint({ log: LOG, seq: 9, head: fakeHash('ab'), root: fakeHash('cd') }, seqSigner, at(1_000));
  return withLogNoteSignature(cp, seqSigner, at(1_000));
}

describe('sameWitness', () => {
  it('is decided by the key: another kid, owner, url or vkey name is the same witness; the same kid with another key is not', () => {
    const relabelled = { ...libp2pKey, kid: 'w1', owner: 'someone', url: 'http://127.0.0.1:1', vkey: vkeyOf('other.name', 82) };
    expect(sameWitness(libp2pKey, relabelled)).toBe(true);
    expect(sameWitness(libp2pKey, { ...httpKey, kid: libp2pKey.kid })).toBe(false);
    // A record known only by its vkey (a C2SP witness) is the same as the KeyRecord of that key.
    const byVkey = {
      ...httpKey,
      alg: 'ES256' as const,
      publicKey: toBase64url(signerFor('ES256', 'p', 84).publicKey),
      vkey: vkeyOf('h', 83),
    };
    expect(sameWitness(byVkey, httpKey)).toBe(true);
    expect(witnessFingerprint(relabelled)).toBe(witnessFingerprint(libp2pKey));
  });

  it('gives one display name per key, whatever the kid; the fingerprint is the kid our witnesses derive', () => {
    const withVkey = { ...libp2pKey, vkey: vkeyOf('witness.example/a', 82) };
    expect(witnessDisplayName(withVkey)).toBe(`witness.example/a (${witnessFingerprint(libp2pKey)})`);
    expect(witnessDisplayName({ ...withVkey, kid: 'w1' })).toBe(witnessDisplayName(withVkey));
    expect(witnessFingerprint(libp2pKey)).toMatch(/^wit-[A-Za-z0-9_-]{8}$/);
  });

  it('a record whose EdDSA key and vkey differ is refused: one witness, one key', () => {
    const two = { ...libp2pKey, vkey: vkeyOf('x.example', 83) };
    expect(witnessKeyAgreement(two)).toMatchObject({ ok: false, code: 'invalid_document' });
    const p = { kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: [two], quorum: 1 };
    expect(readWitnessPolicy(p)).toMatchObject({ ok: false, code: 'invalid_document', path: '/witnesses/0/vkey' });
  });

  it('labels only order a search: labelFirst keeps every record', () => {
    expect(labelFirst([libp2pKey, httpKey], httpKey.kid).map((w) => w.kid)).toEqual([httpKey.kid, libp2pKey.kid]);
    expect(labelFirst([libp2pKey, httpKey], 'nobody')).toHaveLength(2);
  });
});

describe('verifyCheckpoint counts witnesses by key', () => {
  it('a policy whose kids are not what the witnesses sign as still counts both (JCS and cosignature/v1)', () => {
    // As `policy from-tlog` of hand-written text used to make it: kids w1, w2 nobody signs with.
    const p: WitnessPolicy = {
      kind: 'WitnessPolicy',
      log: LOG,
      sequencer: seqKey,
      witnesses: [
        { ...libp2pKey, kid: 'w1', vkey: vkeyOf('policy-spelling.example', 82) },
        { ...httpKey, kid: 'w2', vkey: vkeyOf('http.example', 83), url: 'http://127.0.0.1:9' },
      ],
      quorum: 2,
    };
    let cp = checkpoint();
    cp = addCosignature(cp, cosignCheckpoint(cp, libp2pSigner, at(1_100))); // kid wit-libp2p
    cp = addCosignature(cp, c2spCosign('http.example', 83, cp));
    const r = verifyCheckpoint(cp, p);
    expect(r).toMatchObject({ ok: true, value: { witnesses: ['w1', 'w2'], rejected: [] } });
    expect(r.ok && r.value.names).toEqual(p.witnesses.map(witnessDisplayName));
  });

  it('a libp2p witness with no vkey in the policy counts by its cosignature/v1 (signed with its one key), once with its JCS one', () => {
    const p: WitnessPolicy = { kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: [libp2pKey, httpKey], quorum: 2 };
    let cp = checkpoint();
    cp = addCosignature(cp, c2spCosign('any-name.example', 82, cp));
    expect(verifyCheckpoint(cp, p)).toMatchObject({ ok: false, code: 'quorum_not_met', witnesses: [libp2pKey.kid] });
    cp = addCosignature(cp, cosignCheckpoint(cp, libp2pSigner, at(1_100)));
    const once = verifyCheckpoint(cp, p);
    expect(once).toMatchObject({ ok: false, code: 'quorum_not_met', witnesses: [libp2pKey.kid] });
    cp = addCosignature(cp, cosignCheckpoint(cp, httpSigner, at(1_100)));
    expect(verifyCheckpoint(cp, p)).toMatchObject({
      ok: true,
      value: { witnesses: [libp2pKey.kid, httpKey.kid], cosigners: [{ forms: ['cosignature/v1', 'jcs'] }, { forms: ['jcs'] }] },
    });
  });

  it('a cosignature under a policy kid by another key does not count; a kid is never a key', () => {
    const p: WitnessPolicy = { kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: [libp2pKey], quorum: 1 };
    const cp = checkpoint();
    const impostor = signerFor('EdDSA', libp2pKey.kid, 85); // same kid, other key
    expect(verifyCheckpoint(addCosignature(cp, cosignCheckpoint(cp, impostor, at(1_100))), p)).toMatchObject({
      ok: false,
      code: 'quorum_not_met',
      rejected: [{ code: 'bad_signature' }],
    });
    expect(witnessOfC2spKid([libp2pKey], c2spCosign('x.example', 85, cp).kid)).toBeUndefined();
  });

  it('a policy through to-tlog and from-tlog still counts the same cosignatures', () => {
    const p: WitnessPolicy = {
      kind: 'WitnessPolicy',
      log: LOG,
      sequencer: seqKey,
      witnesses: [
        { ...libp2pKey, vkey: vkeyOf('libp2p.example', 82) },
        { ...httpKey, vkey: vkeyOf('http.example', 83), url: 'http://127.0.0.1:9' },
      ],
      quorum: 2,
    };
    const text = policyToTlog(p);
    expect(text.ok).toBe(true);
    // Without the #cookwala lines (another tool's text), the records are derived from the keys.
    const plain = text.ok ? text.value.replace(/^#cookwala .*\n/gm, '') : '';
    for (const t of [text.ok ? text.value : '', plain]) {
      const back = policyFromTlog(t);
      expect(back.ok).toBe(true);
      if (!back.ok) continue;
      let cp = checkpoint();
      cp = addCosignature(cp, cosignCheckpoint(cp, libp2pSigner, at(1_100)));
      cp = addCosignature(cp, c2spCosign('http.example', 83, cp));
      expect(verifyCheckpoint(cp, back.value)).toMatchObject({ ok: true, value: { rejected: [] } });
      expect(back.value.witnesses.map(witnessDisplayName)).toEqual(p.witnesses.map(witnessDisplayName));
    }
    expect(logVkeyOf(LOG, seqKey).ok).toBe(true);
  });
});
