// The log's own ML-DSA-44 signature on its checkpoints (docs/design.md §7a; C2SP tlog-cosignature
// subtree/v1 and tlog-checkpoint at commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): signed with
// a seed on every backend the runtime has, the line follows the Ed25519 line in the note and
// verifies through the signed-note verifier under the log's 0x06 vkey, its message is the
// subtree/v1 struct with the origin as cosigner name (rebuilt here byte by byte), verifyCheckpoint
// checks it only when the policy names the key and refuses it flipped, policies carry the key in
// JSON and as a second tlog-policy log line, and a tlog-proof verifies with either log key.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { buildCheckpoint, addCosignature, verifyCheckpoint, withLogNoteSignature, witnessSignatures } from './checkpoint.ts';
import { checkpointToNote, c2spSignatureFromNote, NOTE_MLDSA44, type C2spSignature } from './checkpoint-c2sp.ts';
import { createLogMldsaSigner, policyLogKeys, verifyCheckpointLogMldsa } from './checkpoint-log-mldsa.ts';
import { readWitnessPolicy, type WitnessPolicy } from './policy.ts';
import { createNodeBackend } from '../crypto/node.ts';
import { createNobleBackend } from '../crypto/noble.ts';
import { fromBase64url, toBase64url } from '../encoding/wire.ts';
import { parseNote, parseVerifierKey, SIG_MLDSA44, verifyCheckpointNote } from '../c2sp/note/index.ts';
import { policyFromTlog, policyToTlog } from '../c2sp/tlog-policy.ts';
import { at, fakeHash, keyFor, LOG, seed, signerFor } from '../../testkit/verifier-fixtures.ts';

// The node backend is node:crypto where it has ML-DSA-44 (Node >= 24.6) and noble otherwise.
const backends = [
  ['node', createNodeBackend()],
  ['noble', createNobleBackend()],
] as const;
const seqSigner = signerFor('EdDSA', 'seq-1', 81);
const seqKey = keyFor(seqSigner, 'sequencer', 'kitchen.example.org');
const mldsa = createLogMldsaSigner(seed(82), createNobleBackend());
const T = Date.parse('2026-11-30T10:00:05.250Z');

function signed(seq = 7) {
  const cp = buildCheckpoint({ log: LOG, seq, head: fakeHash('ab'), root: fakeHash('cd') }, seqSigner, at(1_000));
  return withLogNoteSignature(cp, seqSigner, new Date(T).toISOString(), mldsa);
}

const policy = (extra: Partial<WitnessPolicy> = {}): WitnessPolicy => {
  const p = readWitnessPolicy({ kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: [], quorum: 0, ...extra });
  if (!p.ok) throw new Error(p.detail);
  return p.value;
};

const flip = (s: C2spSignature): C2spSignature => {
  const raw = fromBase64url(s.sig);
  if (!raw.ok) throw new Error('sig');
  raw.value[1000] ^= 1;
  return { ...s, sig: toBase64url(raw.value) };
};

describe("the log's ML-DSA-44 checkpoint signature", () => {
  it('is the subtree/v1 message under the origin, stamped with the whole second, and follows the Ed25519 line', () => {
    const cp = signed();
    expect(cp.signature.map((s) => s.alg)).toEqual(['EdDSA', 'note-ed25519', NOTE_MLDSA44]);
    const s = cp.signature[2] as C2spSignature;
    const vk = parseVerifierKey(mldsa.vkey(LOG));
    expect(vk.ok && vk.value.type).toBe(SIG_MLDSA44);
    expect(s.kid).toBe(`${LOG}+${vk.ok ? vk.value.keyId : ''}`);
    expect(s.signedAt).toBe(new Date(Math.floor(T / 1000) * 1000).toISOString());
    // The message, written out from tlog-cosignature, verifies with the raw signature.
    const root = Buffer.from(fakeHash('cd').slice(7), 'hex');
    const u64 = (n: number) => {
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(BigInt(n));
      return b;
    };
    const msg = Buffer.concat([
      Buffer.from('subtree/v1\n\0', 'latin1'),
      Buffer.of(Buffer.byteLength(LOG)),
      Buffer.from(LOG),
      u64(Math.floor(T / 1000)),
      Buffer.of(Buffer.byteLength(LOG)),
      Buffer.from(LOG),
      u64(0),
      u64(7),
      root,
    ]);
    const sig = fromBase64url(s.sig);
    for (const [, b] of backends) expect(sig.ok && b.mldsa44Verify(mldsa.publicKey, msg, sig.value)).toBe(true);
    const note = checkpointToNote(cp);
    expect(note.ok).toBe(true);
    const lines = note.ok ? note.value.split('\n').filter((l) => l.startsWith('\u2014')) : [];
    expect(lines).toHaveLength(2);
    expect(lines[0].length).toBeLessThan(lines[1].length); // Ed25519 first, then the 2420-byte one
    // Key ID, then u64 timestamp, then the signature.
    const raw = Buffer.from(lines[1].split(' ')[2], 'base64');
    expect(raw.length).toBe(4 + 8 + 2420);
    expect(raw.readBigUInt64BE(4)).toBe(BigInt(Math.floor(T / 1000)));
  });

  for (const [name, backend] of backends)
    it(`verifies in the note under the 0x06 vkey alone, the Ed25519 one alone, or both (${name})`, () => {
      const note = checkpointToNote(signed());
      if (!note.ok) throw new Error(note.detail);
      const ed = policyLogKeys(policy());
      if (!ed.ok) throw new Error(ed.detail);
      for (const keys of [[mldsa.vkey(LOG)], ed.value.vkeys, [...ed.value.vkeys, mldsa.vkey(LOG)]]) {
        const v = verifyCheckpointNote(note.value, keys, { origin: LOG, backend });
        expect(v.ok && v.value.note.verified.length).toBe(keys.length);
      }
      // One byte of the ML-DSA-44 line flipped: refused by a reader that knows the key, skipped by one that does not.
      const bad = checkpointToNote({
        ...signed(),
        signature: signed().signature.map((s) => (s.alg === NOTE_MLDSA44 ? flip(s as C2spSignature) : s)),
      });
      if (!bad.ok) throw new Error(bad.detail);
      expect(verifyCheckpointNote(bad.value, [mldsa.vkey(LOG)], { backend })).toMatchObject({ ok: false, code: 'bad_signature' });
      expect(verifyCheckpointNote(bad.value, ed.value.vkeys, { backend }).ok).toBe(true);
    });

  it('round-trips from the note line as note-mldsa44 and is never a witness signature', () => {
    const cp = signed();
    const note = checkpointToNote(cp);
    const parsed = note.ok ? parseNote(note.value) : undefined;
    if (!parsed?.ok) throw new Error('note');
    const back = c2spSignatureFromNote(parsed.value.signatures[1], SIG_MLDSA44, '', true);
    expect(back).toEqual({ ok: true, value: cp.signature[2] });
    expect(witnessSignatures(cp)).toEqual([]);
    // A cosignature is inserted before the log's own signatures, which stay last.
    const w = { alg: 'cosignature/v1' as const, kid: 'w.example+01020304', signedAt: at(2_000), sig: toBase64url(new Uint8Array(64)) };
    expect(addCosignature(cp, w).signature.map((s) => s.alg)).toEqual(['EdDSA', 'cosignature/v1', 'note-ed25519', NOTE_MLDSA44]);
  });

  it('verifyCheckpoint checks it when the policy names the key, refuses it flipped, and skips it otherwise', () => {
    const cp = signed();
    expect(verifyCheckpoint(cp, policy({ logMldsaVkey: mldsa.vkey(LOG) }))).toMatchObject({ ok: true, value: { logNote: 'verified' } });
    const bad = { ...cp, signature: cp.signature.map((s) => (s.alg === NOTE_MLDSA44 ? flip(s as C2spSignature) : s)) };
    expect(verifyCheckpoint(bad, policy({ logMldsaVkey: mldsa.vkey(LOG) }))).toMatchObject({
      ok: true,
      value: { logNote: 'bad', rejected: [{ code: 'bad_signature' }] },
    });
    expect(verifyCheckpoint(bad, policy())).toMatchObject({ ok: true, value: { logNote: 'verified', rejected: [] } });
    expect(verifyCheckpointLogMldsa(cp, cp.signature[2] as C2spSignature, mldsa.vkey(LOG)).ok).toBe(true);
    // Another log's name, or a key of another type, is refused as the policy's log key.
    const other = createLogMldsaSigner(seed(83));
    expect(verifyCheckpointLogMldsa(cp, cp.signature[2] as C2spSignature, other.vkey(LOG))).toMatchObject({ code: 'unknown_key' });
    expect(readWitnessPolicy({ ...policy(), logMldsaVkey: other.vkey('other.example/log') })).toMatchObject({
      ok: false,
      code: 'invalid_document',
    });
  });

  it('a policy names it as logMldsaVkey and as a second tlog-policy log line, losslessly', () => {
    const p = policy({ logMldsaVkey: mldsa.vkey(LOG) });
    const text = policyToTlog(p);
    if (!text.ok) throw new Error(text.detail);
    expect(text.value.split('\n').filter((l) => l.startsWith('log '))).toEqual([
      `log ${(policyLogKeys(p) as { value: { vkeys: string[] } }).value.vkeys[0]}`,
      `log ${mldsa.vkey(LOG)}`,
    ]);
    const back = policyFromTlog(text.value);
    expect(back).toEqual({ ok: true, value: p });
    // The ML-DSA-44 line alone cannot be a WitnessPolicy (its sequencer key is Ed25519), and two logs are refused.
    expect(policyFromTlog(`log ${mldsa.vkey(LOG)}\nquorum none\n`)).toMatchObject({ ok: false, code: 'malformed_policy' });
    const two = text.value.replace(`log ${mldsa.vkey(LOG)}`, `log ${createLogMldsaSigner(seed(84)).vkey('other.example/log')}`);
    expect(policyFromTlog(two)).toMatchObject({ ok: false, code: 'malformed_policy' });
  });

  it('one seed gives one key on every backend', () => {
    const pubs = backends.map(([, b]) => createLogMldsaSigner(seed(82), b).publicKey);
    for (const p of pubs) expect(createHash('sha256').update(p).digest('hex')).toBe(createHash('sha256').update(pubs[0]).digest('hex'));
  });
});
