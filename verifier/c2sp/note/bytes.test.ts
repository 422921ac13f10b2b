// Signed bytes are bytes (docs/design.md §3, C2SP signed-note): a note, a cosignature and a cookwalasig are
// verified over exactly the bytes received. A note whose text begins with U+FEFF, or holds
// non-ASCII text, signed by an INDEPENDENT signer (node:crypto's raw Ed25519 over bytes this file
// writes itself, key ID and signature line built here too, nothing from note*.ts) verifies, as
// bytes and as a string, and our own signer produces the same signature; a BOM, a CR or a
// different Unicode normal form added after signing is refused, never decoded away.
import { createHash, createPrivateKey, createPublicKey, sign as nodeSign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCookwalasig, encodeCookwalasig } from '../../cloudevent/read.ts';
import { bytesEqual, decodeUtf8, fromUtf8, utf8 } from '../../encoding/wire.ts';
import {
  createNoteSigner,
  formatSignerKey,
  parseNote,
  signNote,
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
  verifyCheckpointNote,
  verifyNote,
} from './index.ts';

const BOM = '\uFEFF';
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A signed-note Ed25519 key made with node:crypto alone: sign(bytes), vkey, and its key ID. */
function independentKey(name: string, seedByte: number, type = SIG_ED25519) {
  const seed = Buffer.alloc(32, seedByte);
  const priv = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const pub = createPublicKey(priv).export({ format: 'der', type: 'spki' }).subarray(-32);
  const keyId = createHash('sha256')
    .update(Buffer.concat([Buffer.from(name + '\n', 'utf8'), Buffer.of(type), pub]))
    .digest()
    .subarray(0, 4);
  return {
    name,
    seed,
    keyId,
    vkey: `${name}+${keyId.toString('hex')}+${Buffer.concat([Buffer.of(type), pub]).toString('base64')}`,
    sign: (msg: Buffer) => nodeSign(null, msg, priv),
  };
}

/** text bytes || "\n" || "— name base64(keyID || sig)\n", all assembled here. */
function independentNote(textBytes: Buffer, k: ReturnType<typeof independentKey>, sig = k.sign(textBytes)): Buffer {
  const line = Buffer.from(`\u2014 ${k.name} ${Buffer.concat([k.keyId, sig]).toString('base64')}\n`, 'utf8');
  return Buffer.concat([textBytes, Buffer.from('\n'), line]);
}

const peter = independentKey('example.com/peter', 7);
const bytesOf = (s: string) => Buffer.from(s, 'utf8');
const verdict = (r: { ok: boolean; code?: string }) => (r.ok ? 'ok' : r.code);

describe('a note verifies over the bytes received', () => {
  const TEXT = `${BOM}If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n`;

  it('U+FEFF at the start: an independently signed note verifies, as bytes and as a string, and keeps its BOM', () => {
    const textBytes = bytesOf(TEXT);
    expect([...textBytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const note = independentNote(textBytes, peter);
    for (const input of [new Uint8Array(note), note.toString('utf8')]) {
      const r = verifyNote(input, [peter.vkey]);
      expect(verdict(r)).toBe('ok');
      if (!r.ok) return;
      expect(r.value.text).toBe(TEXT);
      expect(r.value.text.charCodeAt(0)).toBe(0xfeff);
      expect(bytesEqual(r.value.textBytes, textBytes)).toBe(true);
      expect(r.value.verified.map((v) => `${v.name}+${v.keyId}`)).toEqual([`${peter.name}+${peter.keyId.toString('hex')}`]);
    }
  });

  it('our own signer over the same BOM text gives the same note (Ed25519 is deterministic), and it verifies as bytes', () => {
    const ours = createNoteSigner(formatSignerKey(peter.name, SIG_ED25519, peter.seed));
    expect(ours.ok && ours.value.vkey).toBe(peter.vkey);
    if (!ours.ok) return;
    const signed = signNote(TEXT, [ours.value]);
    expect(signed.ok).toBe(true);
    if (!signed.ok) return;
    expect(bytesOf(signed.value).equals(independentNote(bytesOf(TEXT), peter))).toBe(true);
    expect(verdict(verifyNote(utf8(signed.value), [ours.value.vkey]))).toBe('ok');
    expect(verdict(verifyNote(signed.value, [peter.vkey]))).toBe('ok');
  });

  it('a BOM added after signing (or removed) breaks the signature: bad_signature, never decoded away', () => {
    const plain = TEXT.slice(1);
    const signedWithout = independentNote(bytesOf(plain), peter);
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), signedWithout]);
    expect(verdict(verifyNote(new Uint8Array(withBom), [peter.vkey]))).toBe('bad_signature');
    const signedWith = independentNote(bytesOf(TEXT), peter);
    expect(verdict(verifyNote(new Uint8Array(signedWith.subarray(3)), [peter.vkey]))).toBe('bad_signature');
    // Two BOMs are two characters, not one.
    const twice = independentNote(bytesOf(BOM + TEXT), peter);
    const r = verifyNote(new Uint8Array(twice), [peter.vkey]);
    expect(r.ok && r.value.text.startsWith(BOM + BOM)).toBe(true);
  });

  it('non-ASCII text (accents, emoji, U+2028, DEL) signed independently verifies, and another normal form does not', () => {
    const text = 'Café crème 😀 — ünïcödé\u2028line\u007fend\n';
    const note = independentNote(bytesOf(text), peter);
    const r = verifyNote(new Uint8Array(note), [peter.vkey]);
    expect(r.ok && r.value.text).toBe(text);
    // The same text in NFD (e + combining acute) is other bytes: the NFC signature must not verify.
    const nfd = text.normalize('NFD');
    expect(nfd).not.toBe(text);
    const relabelled = Buffer.concat([bytesOf(nfd), note.subarray(bytesOf(text).length)]);
    expect(verdict(verifyNote(new Uint8Array(relabelled), [peter.vkey]))).toBe('bad_signature');
  });

  it('CR is refused as malformed_note (C2SP forbids controls but newline), never stripped: CRLF text, CRLF signature lines', () => {
    const lf = 'line one\nline two\n';
    const crlfSigned = independentNote(bytesOf(lf.replace(/\n/g, '\r\n')), peter);
    expect(verdict(verifyNote(new Uint8Array(crlfSigned), [peter.vkey]))).toBe('malformed_note');
    // A note signed over LF text whose lines were converted to CRLF in transit.
    const converted = Buffer.from(independentNote(bytesOf(lf), peter).toString('utf8').replace(/\n/g, '\r\n'), 'utf8');
    expect(verdict(verifyNote(new Uint8Array(converted), [peter.vkey]))).toBe('malformed_note');
    expect(verdict(parseNote(new Uint8Array(converted)))).toBe('malformed_note');
    // The signer refuses such text too.
    const ours = createNoteSigner(formatSignerKey(peter.name, SIG_ED25519, peter.seed));
    expect(ours.ok && verdict(signNote('a\r\nb\n', [ours.value]))).toBe('malformed_note');
  });

  it('bytes that are not UTF-8 exactly (overlong newline, CESU surrogate, truncated) are malformed_note, not repaired', () => {
    const good = independentNote(bytesOf('text\n'), peter);
    const tail = good.subarray(5);
    for (const bad of [
      Buffer.from([0x74, 0xc0, 0x8a]),
      Buffer.from([0x74, 0xed, 0xa0, 0x80, 0x0a]),
      Buffer.from([0x74, 0xe2, 0x82, 0x0a]),
    ]) {
      const note = Buffer.concat([bad, tail]);
      expect(verdict(verifyNote(new Uint8Array(note), [peter.vkey]))).toBe('malformed_note');
    }
  });

  it('property: any text (with or without a leading BOM) signed independently verifies as bytes over exactly those bytes', () => {
    const line = fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/[\u0000-\u001f]/g, ''));
    const text = fc
      .tuple(fc.boolean(), fc.array(line, { minLength: 1, maxLength: 5 }))
      .map(([bom, ls]) => (bom ? BOM : '') + ls.join('\n') + '\n');
    fc.assert(
      fc.property(text, (t) => {
        const textBytes = bytesOf(t);
        const r = verifyNote(new Uint8Array(independentNote(textBytes, peter)), [peter.vkey]);
        expect(verdict(r)).toBe('ok');
        expect(r.ok && bytesEqual(r.value.textBytes, textBytes)).toBe(true);
        expect(r.ok && r.value.text).toBe(t);
      }),
      { numRuns: 200 },
    );
  });
});

describe('a cosignature/v1 covers the checkpoint bytes received', () => {
  const BODY = `${BOM}example.com/log\n42\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n`;
  const w = independentKey('witness.example/w1', 9, SIG_COSIGNATURE_V1);

  it('an independently made cosignature over a checkpoint whose origin starts with U+FEFF verifies', () => {
    const t = 1_700_000_123;
    const ts = Buffer.alloc(8);
    ts.writeBigUInt64BE(BigInt(t));
    const msg = Buffer.concat([Buffer.from(`cosignature/v1\ntime ${t}\n`, 'utf8'), bytesOf(BODY)]);
    const note = independentNote(bytesOf(BODY), w, Buffer.concat([ts, w.sign(msg)]));
    const r = verifyCheckpointNote(new Uint8Array(note), [w.vkey], { origin: `${BOM}example.com/log` });
    expect(verdict(r)).toBe('ok');
    expect(r.ok && r.value.note.verified[0].timestamp).toBe(t);
    // Without the BOM the origin is another one, and the signed bytes are too.
    expect(verdict(verifyCheckpointNote(new Uint8Array(note), [w.vkey], { origin: 'example.com/log' }))).toBe('origin_mismatch');
    expect(verdict(verifyNote(new Uint8Array(note.subarray(3)), [w.vkey]))).toBe('bad_signature');
  });
});

describe('UTF-8 decoding keeps every character and refuses what is not UTF-8', () => {
  it('fromUtf8 keeps a leading BOM, decodeUtf8 is its Result form', () => {
    const b = Uint8Array.from([0xef, 0xbb, 0xbf, 0x61]);
    expect(fromUtf8(b)).toBe('\uFEFFa');
    expect(bytesEqual(utf8(fromUtf8(b)), b)).toBe(true);
    expect(decodeUtf8(b)).toEqual({ ok: true, value: '\uFEFFa' });
    expect(decodeUtf8(Uint8Array.from([0xc0, 0x80]))).toMatchObject({ ok: false, code: 'bad_request' });
    expect(() => fromUtf8(Uint8Array.from([0xff]))).toThrow(TypeError);
  });

  it('a cookwalasig whose JSON is prefixed with a BOM is malformed_signature (one spelling per signature)', () => {
    const sig = { alg: 'EdDSA' as const, kid: 'k1', signedAt: '2026-11-30T10:00:00.123Z', sig: 'AAAA' };
    const good = encodeCookwalasig(sig);
    expect(decodeCookwalasig(good)).toEqual({ ok: true, value: sig });
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(good, 'base64url')]).toString('base64url');
    expect(decodeCookwalasig(withBom)).toMatchObject({ ok: false, code: 'malformed_signature' });
  });
});
