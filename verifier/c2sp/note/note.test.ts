// Signed notes: sign/verify round trips over random text (fast-check), the C2SP verification rules
// (unknown keys ignored, a bad known signature rejects, no known signature rejects), every syntax
// rule as a rejection test, vkey/skey parsing for each signature type, cosignature/v1 and ECDSA
// P-256 notes, and the same verdicts on the node and noble backends.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createNobleBackend } from '../../crypto/noble.ts';
import { createNodeBackend } from '../../crypto/node.ts';
import { concatBytes, fromUtf8, utf8 } from '../../encoding/wire.ts';
import {
  cosignatureMessage,
  createNoteSigner,
  createNoteVerifier,
  encodeCosignature,
  formatSignerKey,
  formatVerifierKey,
  noteKeyId,
  parseCosignature,
  parseNote,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  toBase64Std,
  verifyCheckpointNote,
  verifyNote,
  verifyParsedNote,
  SIG_COSIGNATURE_V1,
  SIG_ECDSA,
  SIG_ED25519,
  type NoteSigner,
} from './index.ts';
import { ecdsaDerToRaw, ecdsaRawToDer, p256Spki } from './ecdsa.ts';
import { checkSignedNoteFile } from '../../../conformance/checks/signed-note.ts';

const node = createNodeBackend();
const seed = (n: number) => new Uint8Array(32).fill(n);
function signer(name: string, n: number, type = SIG_ED25519, now = () => 1_700_000_000_000): NoteSigner & { vkey: string } {
  const s = createNoteSigner(formatSignerKey(name, type, seed(n)), { now });
  if (!s.ok) throw new Error(s.detail);
  return s.value;
}
const alice = signer('example.com/alice', 1);
const bob = signer('example.com/bob', 2);
const witness = signer('witness.example/w1', 3, SIG_COSIGNATURE_V1);
const CHECKPOINT = 'example.com/log\n42\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n';

function sign(text: string, signers: NoteSigner[]): string {
  const r = signNote(text, signers);
  if (!r.ok) throw new Error(r.detail);
  return r.value;
}
const code = (r: { ok: boolean; code?: string }) => (r.ok ? 'ok' : r.code);

describe('sign and verify', () => {
  const noteText = fc
    .array(
      fc.string({ unit: 'grapheme', maxLength: 40 }).map((s) => s.replace(/[\u0000-\u001f]/g, '')),
      { minLength: 1, maxLength: 6 },
    )
    .map((lines) => lines.join('\n') + '\n');

  it('any text round-trips, with each signer verified', () => {
    fc.assert(
      fc.property(noteText, (text) => {
        const note = sign(text, [alice, bob]);
        const r = verifyNote(note, [alice.vkey, bob.vkey]);
        expect(r.ok && r.value.text).toBe(text);
        expect(r.ok && r.value.verified.map((v) => v.name)).toEqual(['example.com/alice', 'example.com/bob']);
        const p = parseNote(note);
        expect(p.ok && p.value.signatures.map((s) => s.keyId)).toEqual([alice.keyId, bob.keyId]);
      }),
      { numRuns: 150 },
    );
  });

  it('a changed text or signature fails as bad_signature for a known key', () => {
    fc.assert(
      fc.property(noteText, fc.nat(), (text, at) => {
        const note = sign(text, [alice]);
        // Change one plain character (not a newline, not half of a surrogate pair), or prepend one.
        const plain = [...text.matchAll(/[^\n\uD800-\uDFFF]/g)].map((m) => m.index as number);
        const i = plain.length ? plain[at % plain.length] : -1;
        const changed = i < 0 ? 'x' + text : text.slice(0, i) + (text[i] === 'x' ? 'y' : 'x') + text.slice(i + 1);
        expect(code(verifyNote(changed + note.slice(text.length), [alice.vkey]))).toBe('bad_signature');
      }),
      { numRuns: 100 },
    );
  });

  it('unknown signers are ignored, once per identical line; a bad known one rejects the note', () => {
    const note = sign('hello\n', [alice, bob]);
    const r = verifyNote(note, [alice.vkey]);
    expect(r.ok && r.value.unverified.map((u) => u.name)).toEqual(['example.com/bob']);
    expect(code(verifyNote(note, []))).toBe('unknown_key');
    expect(code(verifyNote(note, [witness.vkey]))).toBe('unknown_key');
    const forged = note.replace(/(— example\.com\/bob \S{10})./, (_m, p) => p + (note.includes(p + 'A') ? 'B' : 'A'));
    expect(code(verifyNote(forged, [alice.vkey, bob.vkey]))).toBe('bad_signature');
    expect(code(verifyNote(forged, [alice.vkey]))).toBe('ok');
    const dup = note + note.slice(note.indexOf('— example.com/bob'));
    const d = verifyNote(dup, [alice.vkey]);
    expect(d.ok && d.value.unverified.length).toBe(1);
  });

  it('a signature under a known name with another key ID is an unknown key', () => {
    const mallory = signer('example.com/alice', 9);
    expect(mallory.keyId).not.toBe(alice.keyId);
    expect(code(verifyNote(sign('x\n', [mallory]), [alice.vkey]))).toBe('unknown_key');
  });

  it('two different keys under one name and key ID are refused', () => {
    const k = parseVerifierKey(alice.vkey);
    if (!k.ok) throw new Error();
    // A hand-made VerifierKey is re-checked: another key under alice's key ID is refused.
    expect(code(createNoteVerifier({ ...k.value, publicKey: node.ed25519PublicKey(seed(7)) }))).toBe('malformed_vkey');
    const v1 = createNoteVerifier(k.value);
    if (!v1.ok) throw new Error();
    const impostor = { name: alice.name, keyId: alice.keyId, type: SIG_ED25519, verify: () => true };
    expect(code(verifyNote(sign('x\n', [alice]), [v1.value, impostor]))).toBe('malformed_vkey');
    expect(code(verifyNote(sign('x\n', [alice]), [v1.value, v1.value]))).toBe('ok');
    expect(code(verifyNote(sign('x\n', [alice]), [alice.vkey, alice.vkey]))).toBe('ok');
  });

  it('the noble backend gives the same verdicts', () => {
    const noble = createNobleBackend();
    const note = sign('same on both\n', [alice]);
    expect(code(verifyNote(note, [alice.vkey], { backend: noble }))).toBe('ok');
    expect(code(verifyNote(note.replace('same', 'Same'), [alice.vkey], { backend: noble }))).toBe('bad_signature');
  });
});

describe('note syntax: every rule is a malformed_note', () => {
  const good = sign('text\n', [alice]);
  const sigLine = good.slice(good.indexOf('—'));
  const b64 = sigLine.split(' ')[2].trim();
  const cases: Array<[string, string | Uint8Array]> = [
    ['no blank line', 'text\n' + sigLine],
    ['no signature lines', 'text\n\n'],
    ['last line without newline', good.slice(0, -1)],
    ['trailing non-signature line', good + 'more\n'],
    ['hyphen instead of em dash', good.replace('—', '-')],
    ['carriage return', good.replace('text', 'te\rxt')],
    ['tab', good.replace('text', 'te\txt')],
    ['NUL', good.replace('text', 'te\u0000xt')],
    ['lone surrogate', good.replace('text', 'te\uD800xt')],
    ['invalid UTF-8 bytes', concatBytes(Uint8Array.of(0xff), utf8(good))],
    ['name with +', `text\n\n— a+b ${b64}\n`],
    ['name with no-break space', `text\n\n— a\u00a0b ${b64}\n`],
    ['name with ideographic space', `text\n\n— a\u3000b ${b64}\n`],
    ['empty name', `text\n\n—  ${b64}\n`],
    ['no signature after name', `text\n\n— name\n`],
    ['unpadded base64', `text\n\n— n ${b64.replace(/=+$/, '')}\n`],
    ['non-canonical base64 bits', `text\n\n— n AAAAAB==\n`],
    ['signature shorter than 5 bytes', `text\n\n— n AAAAAA==\n`],
    ['101 signatures', 'text\n\n' + sigLine.repeat(101)],
    ['over 1 MiB', 'x'.repeat(1_048_577) + '\n\n' + sigLine],
  ];
  it.each(cases)('%s', (_name, note) => {
    const r = parseNote(note);
    expect(code(r)).toBe('malformed_note');
    expect(code(verifyNote(note, [alice.vkey]))).toBe('malformed_note');
  });
  it('100 signatures are accepted, and the split is at the last blank line', () => {
    expect(code(verifyNote('text\n\n' + sigLine.repeat(100), [alice.vkey]))).toBe('ok');
    const poem = sign('a\n\nb\n\n', [alice]);
    const r = verifyNote(poem, [alice.vkey]);
    expect(r.ok && r.value.text).toBe('a\n\nb\n\n');
  });
  it('signNote refuses text that is not a note text', () => {
    expect(code(signNote('no newline', [alice]))).toBe('malformed_note');
    expect(code(signNote('a\u0007\n', [alice]))).toBe('malformed_note');
    expect(code(signNote('x\n', []))).toBe('malformed_note');
    expect(code(signNote('not a checkpoint\n', [witness]))).toBe('malformed_note');
  });
});

describe('verifier and signer keys', () => {
  it('formats and parses Ed25519 and cosignature/v1 vkeys with their key IDs', () => {
    const pk = node.ed25519PublicKey(seed(1));
    for (const type of [SIG_ED25519, SIG_COSIGNATURE_V1]) {
      const vkey = formatVerifierKey('example.com/k', type, pk);
      const r = parseVerifierKey(vkey);
      expect(r.ok && r.value).toMatchObject({ name: 'example.com/k', type, supported: true, keyId: noteKeyId('example.com/k', type, pk) });
    }
    expect(noteKeyId('a', 1, pk)).not.toBe(noteKeyId('a', 4, pk));
  });

  it('accepts an upper-case key ID (as Go does) and reports it in lower case', () => {
    const [n, id, k] = alice.vkey.split('+');
    const r = parseVerifierKey(`${n}+${id.toUpperCase()}+${k}`);
    expect(r.ok && r.value.keyId).toBe(id);
  });

  it('unknown signature types (0x05 RFC 6962, 0xff) parse but cannot verify', () => {
    for (const type of [0x05, 0xff]) {
      const vkey = formatVerifierKey('example.com/x', type, new Uint8Array(40).fill(3));
      const r = parseVerifierKey(vkey);
      expect(r.ok && r.value.supported).toBe(false);
      expect(code(createNoteVerifier(vkey))).toBe('unsupported_alg');
    }
  });

  it('refuses malformed vkeys', () => {
    const [n, id, k] = alice.vkey.split('+');
    for (const bad of [
      '',
      'name',
      `${n}+${id}`,
      `${n}+${id}+`,
      `+${id}+${k}`,
      `a b+${id}+${k}`,
      `${n}+${id.slice(1)}+${k}`,
      `${n}+0x${id.slice(2)}+${k}`,
      `${n}+${id}+${k}=`,
      `${n}+00000000+${k}`,
      `${n}+${id}+${toBase64Std(Uint8Array.of(1))}`,
    ]) {
      expect(code(parseVerifierKey(bad))).toBe('malformed_vkey');
    }
  });

  it('skeys: key ID checked, vkey derived, unsupported types refused', () => {
    const skey = formatSignerKey('example.com/s', SIG_ED25519, seed(5));
    const p = parseSignerKey(skey);
    expect(p.ok && p.value.keyId).toBe(noteKeyId('example.com/s', 1, node.ed25519PublicKey(seed(5))));
    expect(code(parseSignerKey(skey.replace(/\+[0-9a-f]{8}\+/, '+00000000+')))).toBe('malformed_vkey');
    expect(code(parseSignerKey(skey.slice('PRIVATE+'.length)))).toBe('malformed_vkey');
    const ecdsaSkey = `PRIVATE+KEY+x+00000000+${toBase64Std(concatBytes(Uint8Array.of(2), seed(1)))}`;
    expect(code(parseSignerKey(ecdsaSkey))).toBe('unsupported_alg');
  });
});

describe('cosignature/v1', () => {
  it('builds the spec message and round-trips the timestamp', () => {
    expect(fromUtf8(cosignatureMessage(CHECKPOINT, 1679315147))).toBe(`cosignature/v1\ntime 1679315147\n${CHECKPOINT}`);
    const enc = encodeCosignature({ timestamp: 1679315147, signature: new Uint8Array(64).fill(9) });
    const p = parseCosignature(enc);
    expect(p.ok && p.value.timestamp).toBe(1679315147);
    const big = Uint8Array.from(enc);
    big[0] = 0x80;
    expect(code(parseCosignature(big))).toBe('malformed_note');
    expect(code(parseCosignature(enc.slice(1)))).toBe('malformed_note');
  });

  it('a witness cosignature verifies with its 0x04 vkey and reports the timestamp', () => {
    const log = signer('example.com/log', 4);
    const note = sign(CHECKPOINT, [log, witness]);
    const r = verifyCheckpointNote(note, [log.vkey, witness.vkey], { origin: 'example.com/log' });
    expect(r.ok && r.value.note.verified).toEqual([
      { name: 'example.com/log', keyId: log.keyId, type: 1 },
      { name: 'witness.example/w1', keyId: witness.keyId, type: 4, timestamp: 1_700_000_000 },
    ]);
    expect(r.ok && r.value.checkpoint.size).toBe(42);
    expect(code(verifyCheckpointNote(note, [log.vkey], { origin: 'example.com/other' }))).toBe('origin_mismatch');
    // An Ed25519 signature does not pass as a cosignature of the same key, nor the reverse.
    const sameKeyAsPlain = createNoteSigner(formatSignerKey('witness.example/w1', SIG_ED25519, seed(3)));
    if (!sameKeyAsPlain.ok) throw new Error();
    expect(code(verifyNote(sign(CHECKPOINT, [sameKeyAsPlain.value]), [witness.vkey]))).toBe('unknown_key');
  });

  it('a cosignature over a text that is not a checkpoint does not verify', () => {
    const text = 'not\na checkpoint\n';
    const sig = concatBytes(Uint8Array.from(witness.keyId.match(/../g)!.map((h) => parseInt(h, 16))), witness.sign(utf8(text)));
    const note = `${text}\n— ${witness.name} ${toBase64Std(sig)}\n`;
    expect(code(verifyNote(note, [witness.vkey]))).toBe('bad_signature');
  });
});

describe('ECDSA P-256 (type 0x02)', () => {
  const secret = new Uint8Array(32).fill(0x11);
  const spki = p256Spki(node.p256PublicKey(secret));
  const name = 'rekor.example/log';
  const vkey = formatVerifierKey(name, SIG_ECDSA, spki);
  const keyIdBytes = node.sha256(spki).subarray(0, 4);
  const note = (der: Uint8Array, text = CHECKPOINT) => `${text}\n— ${name} ${toBase64Std(concatBytes(keyIdBytes, der))}\n`;

  it('key ID is SHA-256 of the SPKI; a DER signature verifies; tampering fails', () => {
    const p = parseVerifierKey(vkey);
    expect(p.ok && p.value).toMatchObject({ type: 2, supported: true });
    const raw = node.p256Sign(secret, utf8(CHECKPOINT));
    expect(code(verifyNote(note(ecdsaRawToDer(raw)), [vkey]))).toBe('ok');
    expect(code(verifyNote(note(ecdsaRawToDer(raw), CHECKPOINT.replace('42', '43')), [vkey]))).toBe('bad_signature');
    const [n, , k] = vkey.split('+');
    expect(code(parseVerifierKey(`${n}+${noteKeyId(name, 2, spki)}+${k}`))).toBe('malformed_vkey');
  });

  it('DER is strict: non-minimal, negative, trailing bytes and long forms are refused', () => {
    const raw = node.p256Sign(secret, utf8(CHECKPOINT));
    const der = ecdsaRawToDer(raw);
    expect(ecdsaDerToRaw(der)).toEqual(raw);
    const padded = Uint8Array.from([0x30, der[1] + 1, 0x02, der[3] + 1, 0x00, ...der.subarray(4)]);
    expect(ecdsaDerToRaw(padded)).toBeUndefined();
    expect(ecdsaDerToRaw(concatBytes(der, Uint8Array.of(0)))).toBeUndefined();
    expect(ecdsaDerToRaw(Uint8Array.from([0x30, 0x81, der[1], ...der.subarray(2)]))).toBeUndefined();
    expect(ecdsaDerToRaw(Uint8Array.from([0x30, 6, 0x02, 1, 0x80, 0x02, 1, 0x01]))).toBeUndefined();
    expect(code(verifyNote(note(padded), [vkey]))).toBe('bad_signature');
    expect(code(verifyNote(note(raw), [vkey]))).toBe('bad_signature');
  });

  it('P-384 and compressed keys parse as unsupported', () => {
    const p384 = Uint8Array.from([
      0x30,
      0x76,
      0x30,
      0x10,
      0x06,
      0x07,
      0x2a,
      0x86,
      0x48,
      0xce,
      0x3d,
      0x02,
      0x01,
      0x06,
      0x05,
      0x2b,
      0x81,
      0x04,
      0x00,
      0x22,
      0x03,
      0x62,
      0x00,
      0x04,
      ...new Uint8Array(96).fill(1),
    ]);
    const r = parseVerifierKey(formatVerifierKey('x', SIG_ECDSA, p384));
    expect(r.ok && r.value.supported).toBe(false);
  });
});

describe('checkSignedNoteFile', () => {
  it('scores a hand-made file and reports wrong verdicts and details', () => {
    const note = sign('hi\n', [alice]);
    const checks = checkSignedNoteFile({
      keys: [{ name: alice.name, vkey: alice.vkey, keyId: alice.keyId, signatureType: 1 }],
      invalidVkeys: [{ vkey: 'nope', reason: 'r' }],
      cases: [
        {
          id: 'ok',
          note,
          verifierKeys: [alice.vkey],
          expected: 'valid',
          expectedText: 'hi\n',
          expectedVerified: [`${alice.name}+${alice.keyId}`],
        },
        { id: 'wrong', note, verifierKeys: [alice.vkey], expected: 'invalid' },
        { id: 'detail', note, verifierKeys: [alice.vkey], expected: 'valid', expectedText: 'ho\n' },
      ],
      bodies: [{ id: 'b', body: CHECKPOINT, expected: 'valid', treeSize: '42' }],
    });
    expect(checks.map((c) => [c.id, c.pass])).toEqual([
      [`keys[${alice.name}]`, true],
      ['invalidVkeys[r]', true],
      ['cases[ok]', true],
      ['cases[wrong]', false],
      ['cases[detail]', false],
      ['bodies[b]', true],
    ]);
  });
});

describe('verifyParsedNote', () => {
  const good = sign(CHECKPOINT, [alice, witness]);
  const keys = [alice.vkey, bob.vkey, witness.vkey];

  it('gives verifyNote verdicts for any note, string or bytes, mutated or not', () => {
    const variants = fc.oneof(
      fc.constant(good),
      fc
        .tuple(fc.nat(good.length - 1), fc.integer({ min: 32, max: 126 }))
        .map(([i, c]) => good.slice(0, i) + String.fromCharCode(c) + good.slice(i + 1)),
      fc.nat(good.length).map((i) => good.slice(0, i)),
      fc.string({ maxLength: 120 }),
    );
    fc.assert(
      fc.property(variants, fc.boolean(), fc.subarray(keys, { minLength: 0 }), (note, asBytes, vk) => {
        const input = asBytes ? utf8(note) : note;
        const whole = verifyNote(input, vk);
        const p = parseNote(input);
        if (!p.ok) {
          expect(code(whole)).toBe(p.code);
          return;
        }
        const once = verifyParsedNote(p.value, vk);
        expect(code(once)).toBe(code(whole));
        expect(once).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it('checks the bytes parseNote sliced, not members changed afterwards, and refuses a hand-made note', () => {
    const p = parseNote(good);
    if (!p.ok) throw new Error(p.detail);
    expect(verifyParsedNote(p.value, [alice.vkey]).ok).toBe(true);
    const forged = sign('example.com/log\n43\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n', [bob]);
    const other = parseNote(forged);
    if (!other.ok) throw new Error(other.detail);
    // Swap in another note's text and signatures: the verdict is still that of the note parsed.
    const swapped = p.value;
    swapped.text = other.value.text;
    swapped.textBytes = other.value.textBytes;
    swapped.signatures = other.value.signatures;
    const r = verifyParsedNote(swapped, [bob.vkey]);
    expect(code(r)).toBe('unknown_key');
    const okAgain = verifyParsedNote(swapped, [alice.vkey]);
    expect(okAgain.ok && okAgain.value.text).toBe(CHECKPOINT);
    expect(() => verifyParsedNote({ ...other.value }, [bob.vkey])).toThrow(TypeError);
  });
});
