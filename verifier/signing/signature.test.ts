// RFC-0012 signatures (Core §5) on both algorithms and both backends: a signature covers the
// document (every field, x- members included) and every header field (alg, hash, kid, kind,
// signedAt), so any one-bit change of the document, the header, the key or the signature fails,
// and a signature moved to another document, kid, alg, kind or signedAt is invalid. Also the
// key-validity edges through verification, 0.2.0 legacy signatures, and every reason code here.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createNodeBackend } from '../crypto/node.ts';
import { createNobleBackend } from '../crypto/noble.ts';
import type { CryptoBackend } from '../crypto/backend.ts';
import {
  createSigner,
  generateSecretKey,
  keyRecordOf,
  parseSignature,
  signDocument,
  signHash,
  signingHeader,
  signingHeaderBytes,
  verifyDocument,
  verifyHashSignature,
  verifyRaw,
  verifyWithKeys,
  type Signature,
} from './signature.ts';
import { canonicalize } from '../encoding/jcs.ts';
import { hashedView, type JsonObject } from './document-hash.ts';
import { fromBase64url, toBase64url, utf8 } from '../encoding/wire.ts';
import type { Alg, KeyRecord } from './keys.ts';
import { at, fakeHash, keyFor, lookupOf, LOG, seed, signerFor, T0 } from '../../testkit/verifier-fixtures.ts';

const BACKENDS: CryptoBackend[] = [createNodeBackend(), createNobleBackend()];
const ALGS: Alg[] = ['EdDSA', 'ES256'];

function flipChar(s: string, pos: number, bit: number): string {
  const i = pos % s.length;
  return s.slice(0, i) + String.fromCharCode(s.charCodeAt(i) ^ (1 << bit)) + s.slice(i + 1);
}

function flipBit(b: Uint8Array, pos: number): Uint8Array {
  const out = Uint8Array.from(b);
  const i = pos % (b.length * 8);
  out[i >> 3] ^= 1 << (i & 7);
  return out;
}

for (const backend of BACKENDS) {
  for (const alg of ALGS) {
    describe(`${alg} on ${backend.name}`, () => {
      const runs = backend.name === 'node' ? 80 : 12;
      const signer = signerFor(alg, 'k-1', 7, backend);
      const key = keyFor(signer, 'sequencer', 'kitchen', { validFrom: at(0), validUntil: at(100_000), revokedAt: at(50_000) });
      const lookup = lookupOf(key);
      const doc = {
        kind: 'Checkpoint',
        log: LOG,
        seq: 17,
        head: fakeHash('a1'),
        root: fakeHash('b2'),
        'x-acme-note': 'witnessed by the pantry',
      };
      const signed = signDocument(doc, signer, at(1000), backend) as unknown as JsonObject & { hash: string; signature: Signature };
      const sig = signed.signature;
      const pub = signer.publicKey;
      const sigBytes = (fromBase64url(sig.sig) as { value: Uint8Array }).value;
      const opts = { backend };

      it('verifies, on this backend and on the other', () => {
        expect(verifyDocument(signed, lookup, opts)).toEqual({ ok: true, value: { kid: 'k-1', legacy: false, hash: signed.hash } });
        for (const b of BACKENDS) expect(verifyDocument(signed, lookup, { backend: b }).ok).toBe(true);
      });

      it('fails on any one-bit change of the document (any field, x- members included)', () => {
        const text = (canonicalize(hashedView(signed)) as { value: string }).value;
        fc.assert(
          fc.property(fc.nat(), fc.integer({ min: 0, max: 6 }), (pos, bit) => {
            let parsed: unknown;
            try {
              parsed = JSON.parse(flipChar(text, pos, bit));
            } catch {
              fc.pre(false);
            }
            fc.pre(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed));
            const body = parsed as JsonObject;
            fc.pre((canonicalize(body) as { value: string }).value !== text);
            const withHash = { ...body, hash: signed.hash, signature: sig } as unknown as JsonObject;
            expect(verifyDocument(withHash, lookup, opts)).toMatchObject({ ok: false, code: 'hash_mismatch' });
            const bare = { ...body, signature: sig } as unknown as JsonObject;
            expect(verifyDocument(bare, lookup, opts)).toMatchObject({ ok: false, code: 'bad_signature' });
          }),
          { numRuns: runs },
        );
      });

      it('fails on any one-bit change of any header field (alg, hash, kid, kind, signedAt)', () => {
        const header = signingHeader(sig, signed.hash, 'Checkpoint');
        expect(verifyRaw(alg, pub, signingHeaderBytes(header), sigBytes, backend)).toBe(true);
        fc.assert(
          fc.property(
            fc.constantFrom('alg', 'hash', 'kid', 'kind', 'signedAt'),
            fc.nat(),
            fc.integer({ min: 0, max: 6 }),
            (field, pos, bit) => {
              const changed = { ...header, [field]: flipChar(header[field as keyof typeof header] as string, pos, bit) };
              expect(verifyRaw(alg, pub, signingHeaderBytes(changed), sigBytes, backend)).toBe(false);
              // and through the API: the verifier rebuilds the header from what it is given
              if (field === 'hash') expect(verifyHashSignature(changed.hash, 'Checkpoint', sig, key, opts).ok).toBe(false);
              else if (field === 'kind') expect(verifyHashSignature(signed.hash, changed.kind, sig, key, opts).ok).toBe(false);
              else if (field === 'kid')
                expect(
                  verifyHashSignature(signed.hash, 'Checkpoint', { ...sig, kid: changed.kid }, { ...key, kid: changed.kid }, opts).ok,
                ).toBe(false);
              else
                expect(verifyHashSignature(signed.hash, 'Checkpoint', { ...sig, [field]: changed[field as 'alg'] }, key, opts).ok).toBe(
                  false,
                );
            },
          ),
          { numRuns: runs },
        );
      });

      it('fails on any one-bit change of the key', () => {
        fc.assert(
          fc.property(fc.nat(), (pos) => {
            const other: KeyRecord = { ...key, publicKey: toBase64url(flipBit(pub, pos)) };
            expect(
              verifyRaw(alg, flipBit(pub, pos), signingHeaderBytes(signingHeader(sig, signed.hash, 'Checkpoint')), sigBytes, backend),
            ).toBe(false);
            expect(verifyHashSignature(signed.hash, 'Checkpoint', sig, other, opts).ok).toBe(false);
          }),
          { numRuns: runs },
        );
      });

      it('fails on any one-bit change of the signature bytes', () => {
        fc.assert(
          fc.property(fc.nat(), (pos) => {
            const bad = { ...sig, sig: toBase64url(flipBit(sigBytes, pos)) };
            expect(verifyHashSignature(signed.hash, 'Checkpoint', bad, key, opts)).toMatchObject({ ok: false, code: 'bad_signature' });
          }),
          { numRuns: runs },
        );
      });

      it('a signature moved to another document, kid, alg, kind or signedAt is invalid', () => {
        const other = signDocument({ ...doc, seq: 18 }, signer, at(1000), backend);
        expect(verifyDocument({ ...other, signature: sig } as unknown as JsonObject, lookup, opts)).toMatchObject({
          ok: false,
          code: 'bad_signature',
        });
        const sameKeyOtherKid = { ...key, kid: 'k-2' };
        expect(verifyHashSignature(signed.hash, 'Checkpoint', { ...sig, kid: 'k-2' }, sameKeyOtherKid, opts)).toMatchObject({
          ok: false,
          code: 'bad_signature',
        });
        const otherAlg: Alg = alg === 'EdDSA' ? 'ES256' : 'EdDSA';
        expect(verifyHashSignature(signed.hash, 'Checkpoint', { ...sig, alg: otherAlg }, key, opts)).toMatchObject({
          ok: false,
          code: 'bad_signature',
        });
        const otherAlgKey = keyFor(signerFor(otherAlg, 'k-1', 7, backend), 'sequencer', 'kitchen');
        expect(verifyHashSignature(signed.hash, 'Checkpoint', { ...sig, alg: otherAlg }, otherAlgKey, opts)).toMatchObject({
          ok: false,
          code: 'bad_signature',
        });
        expect(verifyHashSignature(signed.hash, 'Log', sig, key, opts)).toMatchObject({ ok: false, code: 'bad_signature' });
        expect(verifyHashSignature(signed.hash, undefined, sig, key, opts)).toMatchObject({ ok: false, code: 'bad_signature' });
        expect(verifyHashSignature(signed.hash, 'Checkpoint', { ...sig, signedAt: at(1001) }, key, opts)).toMatchObject({
          ok: false,
          code: 'bad_signature',
        });
      });

      it('applies the key validity window at signedAt (edges included)', () => {
        const signAt = (t: string) => signHash(signed.hash, 'Checkpoint', signer, t);
        const v = (t: string) => verifyHashSignature(signed.hash, 'Checkpoint', signAt(t), key, opts);
        expect(v(at(0)).ok).toBe(true); // == validFrom
        expect(v(at(49_999)).ok).toBe(true);
        expect(v(at(50_000))).toMatchObject({ ok: false, code: 'key_revoked' }); // == revokedAt
        expect(v(at(-1))).toMatchObject({ ok: false, code: 'key_not_valid_at' });
        const unrevoked = { ...key, revokedAt: undefined };
        expect(verifyHashSignature(signed.hash, 'Checkpoint', signAt(at(100_000)), unrevoked, opts).ok).toBe(true); // == validUntil
        expect(verifyHashSignature(signed.hash, 'Checkpoint', signAt(at(100_001)), unrevoked, opts)).toMatchObject({
          ok: false,
          code: 'key_not_valid_at',
        });
      });

      it('accepts a 0.2.0 bare-hash signature only with allowLegacy, and says so', () => {
        const legacyDoc: JsonObject = { kind: 'Log', coreVersion: '0.2.0', log: LOG };
        const h = (signDocument(legacyDoc, signer, at(1), backend) as { hash: string }).hash;
        const bare: Signature = { alg, kid: 'k-1', signedAt: at(1), sig: toBase64url(signer.sign(utf8(h))) };
        const d = { ...legacyDoc, hash: h, signature: bare } as unknown as JsonObject;
        expect(verifyDocument(d, lookup, opts)).toMatchObject({ ok: false, code: 'legacy_signature' });
        expect(verifyDocument(d, lookup, { ...opts, allowLegacy: true })).toEqual({
          ok: true,
          value: { kid: 'k-1', legacy: true, hash: h },
        });
        const declared021 = { ...d, coreVersion: '0.2.1' } as unknown as JsonObject;
        const h2 = (signDocument({ ...legacyDoc, coreVersion: '0.2.1' }, signer, at(1), backend) as { hash: string }).hash;
        const bare2 = { ...bare, sig: toBase64url(signer.sign(utf8(h2))) };
        expect(
          verifyDocument({ ...declared021, hash: h2, signature: bare2 } as unknown as JsonObject, lookup, { ...opts, allowLegacy: true }),
        ).toMatchObject({ ok: false, code: 'legacy_signature' });
      });
    });
  }
}

describe('signing header and signer', () => {
  it('the signed bytes are JCS of {alg, hash, kid, kind?, signedAt}', () => {
    const h = signingHeader({ alg: 'EdDSA', kid: 'k', signedAt: T0 }, fakeHash('c'), 'Event');
    expect(new TextDecoder().decode(signingHeaderBytes(h))).toBe(
      `{"alg":"EdDSA","hash":"${fakeHash('c')}","kid":"k","kind":"Event","signedAt":"${T0}"}`,
    );
    expect(signingHeader({ alg: 'EdDSA', kid: 'k', signedAt: T0 }, fakeHash('c'))).not.toHaveProperty('kind');
  });

  it('property: the direct header writer gives the bytes of JCS, or defers to it (escapes, extra members, non-strings)', () => {
    const piece = fc.oneof(
      fc.constantFrom('EdDSA', 'ES256', 'k', T0, fakeHash('e'), 'Event', '', 'a"b', 'a\\b', '\u0001', '\ud800', 'k\u00e9', '\u2028'),
      fc.string({ maxLength: 6 }),
      fc.integer(),
    );
    const header = fc
      .record(
        { alg: piece, hash: piece, kid: piece, kind: piece, signedAt: piece, extra: piece },
        { requiredKeys: ['alg', 'hash', 'kid', 'signedAt'] },
      )
      .map((o) => {
        const { extra, ...h } = o;
        return extra === undefined || typeof extra === 'number' ? h : { ...h, [`x-${extra.length}`]: extra };
      });
    fc.assert(
      fc.property(header, (h) => {
        const c = canonicalize(h);
        if (!c.ok) expect(() => signingHeaderBytes(h as never)).toThrow(TypeError);
        else expect(Buffer.from(signingHeaderBytes(h as never)).toString('utf8')).toBe(c.value);
      }),
      { numRuns: 2000 },
    );
    // A lone surrogate is never written directly: JCS refuses it.
    expect(() => signingHeaderBytes({ alg: 'EdDSA', hash: fakeHash('e'), kid: '\ud800', signedAt: T0 })).toThrow(TypeError);
  });

  it('EdDSA signatures are identical on both backends; ES256 on noble is deterministic (RFC 6979)', () => {
    const [node, noble] = BACKENDS;
    const a = signHash(fakeHash('d'), 'Log', signerFor('EdDSA', 'k', 3, node), T0);
    const b = signHash(fakeHash('d'), 'Log', signerFor('EdDSA', 'k', 3, noble), T0);
    expect(a).toEqual(b);
    const es = signerFor('ES256', 'k', 3, noble);
    expect(signHash(fakeHash('d'), 'Log', es, T0)).toEqual(signHash(fakeHash('d'), 'Log', es, T0));
  });

  it('createSigner and generateSecretKey refuse bad keys as programmer errors', () => {
    expect(() => createSigner({ alg: 'EdDSA', kid: 'k', secretKey: toBase64url(new Uint8Array(31)) })).toThrow(TypeError);
    expect(() => createSigner({ alg: 'EdDSA', kid: 'k', secretKey: 'not base64!' })).toThrow(TypeError);
    expect(() => createSigner({ alg: 'RS256' as Alg, kid: 'k', secretKey: toBase64url(seed(1)) })).toThrow(TypeError);
    expect(() => generateSecretKey('EdDSA', 'k', undefined, new Uint8Array(16))).toThrow(TypeError);
    const fresh = generateSecretKey('ES256', 'k');
    expect(fromBase64url(fresh.secretKey)).toMatchObject({ ok: true });
    expect(generateSecretKey('ES256', 'k').secretKey).not.toBe(fresh.secretKey);
  });

  it('keyRecordOf copies the signer and the fields given, leaving unset optionals out', () => {
    const s = signerFor('EdDSA', 'dev', 4);
    expect(keyRecordOf(s, { owner: 'o', role: 'device', validFrom: T0 })).toEqual({
      kind: 'KeyRecord',
      kid: 'dev',
      alg: 'EdDSA',
      publicKey: toBase64url(s.publicKey),
      owner: 'o',
      role: 'device',
      validFrom: T0,
    });
    expect(keyRecordOf(s, { owner: 'o', role: 'device', validFrom: T0, validUntil: at(1), revokedAt: at(2) })).toMatchObject({
      validUntil: at(1),
      revokedAt: at(2),
    });
  });

  it('signDocument throws on a document JCS cannot express', () => {
    expect(() => signDocument({ a: NaN } as unknown as JsonObject, signerFor('EdDSA', 'k', 1), T0)).toThrow(TypeError);
  });
});

describe('reason codes of parsing and verification', () => {
  const s = signerFor('EdDSA', 'k-1', 9);
  const key = keyFor(s, 'sequencer', 'kitchen');
  const sig = signHash(fakeHash('e'), 'Checkpoint', s, at(1));

  it('parseSignature: malformed_signature, unknown_field, unsupported_alg; x-<vendor>- members pass', () => {
    expect(parseSignature(sig)).toEqual({ ok: true, value: sig });
    expect(parseSignature({ ...sig, 'x-acme-hint': 1 }).ok).toBe(true);
    for (const bad of [
      null,
      'x',
      [sig],
      { ...sig, kid: '' },
      { ...sig, kid: 3 },
      { ...sig, signedAt: '2026-11-30T10:00:00Z' },
      { ...sig, sig: 'a+b' },
      { ...sig, sig: undefined },
    ]) {
      expect(parseSignature(bad)).toMatchObject({ ok: false, code: 'malformed_signature' });
    }
    expect(parseSignature({ ...sig, extra: 1 })).toMatchObject({ ok: false, code: 'unknown_field' });
    expect(parseSignature({ ...sig, 'x-nodash': 1 })).toMatchObject({ ok: false, code: 'unknown_field' });
    expect(parseSignature({ ...sig, alg: 'RS256' })).toMatchObject({ ok: false, code: 'unsupported_alg' });
  });

  it('verifyHashSignature: invalid_hash, key_role_mismatch, invalid_document for a bad key, bad_signature for a kid mismatch', () => {
    expect(verifyHashSignature('sha256:00', 'Checkpoint', sig, key)).toMatchObject({ ok: false, code: 'invalid_hash' });
    expect(verifyHashSignature(fakeHash('e'), 'Checkpoint', sig, key, { role: 'witness' })).toMatchObject({
      ok: false,
      code: 'key_role_mismatch',
    });
    expect(verifyHashSignature(fakeHash('e'), 'Checkpoint', sig, { ...key, publicKey: 'AAAA' })).toMatchObject({
      ok: false,
      code: 'invalid_document',
    });
    expect(verifyHashSignature(fakeHash('e'), 'Checkpoint', sig, { ...key, kid: 'k-9' })).toMatchObject({
      ok: false,
      code: 'bad_signature',
    });
    expect(verifyHashSignature(fakeHash('e'), 'Checkpoint', sig, key, { role: 'sequencer' })).toEqual({
      ok: true,
      value: { kid: 'k-1', legacy: false },
    });
  });

  it('verifyWithKeys: unknown_key names the kid', () => {
    expect(verifyWithKeys(fakeHash('e'), 'Checkpoint', sig, () => undefined)).toMatchObject({ ok: false, code: 'unknown_key', kid: 'k-1' });
    expect(verifyWithKeys(fakeHash('e'), 'Checkpoint', sig, lookupOf(key)).ok).toBe(true);
  });

  it('verifyDocument: hash_mismatch, a missing signature, a document JCS cannot express', () => {
    const d = signDocument({ kind: 'Checkpoint', seq: 1 }, s, at(1)) as unknown as JsonObject;
    expect(verifyDocument({ ...d, seq: 2 }, lookupOf(key))).toMatchObject({ ok: false, code: 'hash_mismatch' });
    const { signature: _s, ...unsigned } = d;
    expect(verifyDocument(unsigned, lookupOf(key))).toMatchObject({ ok: false, code: 'malformed_signature' });
    expect(verifyDocument({ ...d, seq: NaN } as unknown as JsonObject, lookupOf(key))).toMatchObject({
      ok: false,
      code: 'noncanonical_number',
    });
  });
});
