// The ML-DSA-44 cosignature (c2sp.org/tlog-cosignature at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): the fixed layout of the subtree/v1 message, vkeys and
// skeys of type 0x06, and notes that carry ML-DSA-44 lines beside grease and unknown ones.
import { describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { createNobleBackend } from '../../crypto/noble.ts';
import { formatCheckpointBody } from './checkpoint.ts';
import {
  createNoteSigner,
  createNoteVerifier,
  formatSignerKey,
  formatVerifierKey,
  noteKeyId,
  parseSignerKey,
  parseVerifierKey,
  SIG_MLDSA44,
} from './keys.ts';
import { signNote, verifyNote } from './signed.ts';
import { MLDSA44_COSIGNATURE_BYTES, subtreeMessage } from './subtree.ts';
import { toBase64Std } from './base64.ts';

const noble = createNobleBackend();
const seed = Uint8Array.from({ length: 32 }, (_, i) => i + 1);

describe('subtree/v1 message', () => {
  it('has the fixed layout: 72 bytes for name "a", origin "b"', () => {
    const m = subtreeMessage({
      cosignerName: 'a',
      timestamp: 0x0102030405060708n,
      origin: 'b',
      start: 0x0910111213141516n,
      end: 0x1718191a1b1c1d1en,
      hash: new Uint8Array(32).fill(0x42),
    });
    const want =
      Buffer.from('subtree/v1\n\0', 'latin1').toString('hex') +
      '01' +
      '61' +
      '0102030405060708' +
      '01' +
      '62' +
      '0910111213141516' +
      '1718191a1b1c1d1e' +
      '42'.repeat(32);
    expect(m.length).toBe(72);
    expect(Buffer.from(m).toString('hex')).toBe(want);
  });

  it('refuses names and origins of 0 or more than 255 bytes', () => {
    const base = { cosignerName: 'a', timestamp: 1, origin: 'b', start: 0, end: 1, hash: new Uint8Array(32) };
    expect(() => subtreeMessage({ ...base, cosignerName: '' })).toThrow(TypeError);
    expect(() => subtreeMessage({ ...base, origin: 'o'.repeat(256) })).toThrow(TypeError);
    expect(subtreeMessage({ ...base, origin: 'o'.repeat(255) }).length).toBe(12 + 2 + 8 + 256 + 48);
  });
});

describe('ML-DSA-44 keys', () => {
  const pub = noble.mldsa44PublicKey(seed);
  it('key ID = SHA-256(name || 0x0A || 0x06 || 1312-byte key)[:4]', () => {
    const id = createHash('sha256')
      .update(Buffer.concat([Buffer.from('witness.example/pq\n'), Buffer.of(0x06), pub]))
      .digest()
      .subarray(0, 4)
      .toString('hex');
    expect(noteKeyId('witness.example/pq', SIG_MLDSA44, pub)).toBe(id);
    const vkey = formatVerifierKey('witness.example/pq', SIG_MLDSA44, pub);
    expect(vkey).toBe(`witness.example/pq+${id}+${toBase64Std(Buffer.concat([Buffer.of(6), pub]))}`);
    const k = parseVerifierKey(vkey);
    expect(k.ok && k.value.supported && k.value.type === SIG_MLDSA44).toBe(true);
  });

  it('refuses a key of the wrong length or a key ID that does not match', () => {
    const short = `w.example+00000000+${toBase64Std(Buffer.concat([Buffer.of(6), pub.subarray(1)]))}`;
    expect(parseVerifierKey(short)).toMatchObject({ ok: false, code: 'malformed_vkey' });
    const vkey = formatVerifierKey('w.example', SIG_MLDSA44, pub);
    const wrongId = vkey.replace(/\+[0-9a-f]{8}\+/, '+00000000+');
    expect(parseVerifierKey(wrongId)).toMatchObject({ ok: false, code: 'malformed_vkey' });
  });

  it('the skey holds the 32-byte seed and gives the vkey back', () => {
    const skey = formatSignerKey('witness.example/pq', SIG_MLDSA44, seed, noble);
    const k = parseSignerKey(skey, noble);
    expect(k.ok && Buffer.from(k.value.publicKey).equals(Buffer.from(pub))).toBe(true);
    const s = createNoteSigner(skey, { backend: noble });
    expect(s.ok && s.value.vkey).toBe(formatVerifierKey('witness.example/pq', SIG_MLDSA44, pub));
    const tampered = skey.slice(0, -4) + (skey.endsWith('AAA=') ? 'AQA=' : 'AAA=');
    expect(parseSignerKey(tampered, noble).ok).toBe(false);
  });
});

describe('notes with ML-DSA-44 lines', () => {
  const body = formatCheckpointBody({ origin: 'log.example/a', size: 10, rootHash: new Uint8Array(32).fill(7), extensions: [] });
  const skey = formatSignerKey('witness.example/pq', SIG_MLDSA44, seed, noble);
  const signer = createNoteSigner(skey, { backend: noble, now: () => 1_700_000_000_000 });
  if (!signer.ok) throw new Error(signer.detail);
  const note = signNote(body, [signer.value]);
  if (!note.ok) throw new Error(note.detail);

  it('signs a timestamped subtree/v1 message over origin, 0, size, root', () => {
    const line = note.value.split('\n').at(-2)!;
    const raw = Buffer.from(line.split(' ')[2], 'base64');
    expect(raw.length).toBe(4 + MLDSA44_COSIGNATURE_BYTES);
    expect(raw.readBigUInt64BE(4)).toBe(1_700_000_000n);
    const msg = subtreeMessage({
      cosignerName: 'witness.example/pq',
      timestamp: 1_700_000_000,
      origin: 'log.example/a',
      start: 0,
      end: 10,
      hash: new Uint8Array(32).fill(7),
    });
    expect(noble.mldsa44Verify(noble.mldsa44PublicKey(seed), msg, raw.subarray(12))).toBe(true);
    const v = verifyNote(note.value, [signer.value.vkey], { backend: noble });
    expect(v.ok && v.value.verified).toEqual([
      { name: 'witness.example/pq', keyId: signer.value.keyId, type: 6, timestamp: 1_700_000_000 },
    ]);
  });

  it('skips grease lines and unknown keys, and refuses a known key whose signature fails', () => {
    const grease1 = `\u2014 grease.invalid ${toBase64Std(randomBytes(37))}\n`;
    const grease2 = `\u2014 witness.example/pq ${toBase64Std(randomBytes(60))}\n`;
    const withGrease = note.value + grease1 + grease2;
    const v = verifyNote(withGrease, [signer.value.vkey], { backend: noble });
    expect(v.ok && v.value.unverified.length).toBe(2);
    // One byte of the ML-DSA-44 signature flipped.
    const lines = note.value.split('\n');
    const raw = Buffer.from(lines.at(-2)!.split(' ')[2], 'base64');
    raw[100] ^= 1;
    lines[lines.length - 2] = `\u2014 witness.example/pq ${raw.toString('base64')}`;
    const bad = verifyNote(lines.join('\n') + grease1, [signer.value.vkey], { backend: noble });
    expect(bad).toMatchObject({ ok: false, code: 'bad_signature' });
  });

  it('does not sign extension lines (the same line verifies on a body with one)', () => {
    const line = note.value.slice(body.length + 1);
    const ext = `${body}ext line\n\n${line}`;
    expect(verifyNote(ext, [signer.value.vkey], { backend: noble }).ok).toBe(true);
    const other = `${body.replace('\n10\n', '\n11\n')}\n${line}`;
    expect(verifyNote(other, [signer.value.vkey], { backend: noble })).toMatchObject({ ok: false, code: 'bad_signature' });
  });

  it('refuses an ML-DSA-44 signature over a text that is not a checkpoint', () => {
    const v = createNoteVerifier(signer.value.vkey, noble);
    expect(v.ok && v.value.verify(new TextEncoder().encode('hello\n'), new Uint8Array(MLDSA44_COSIGNATURE_BYTES))).toBe(false);
    expect(signNote('hello\n', [signer.value])).toMatchObject({ ok: false, code: 'malformed_note' });
  });
});
