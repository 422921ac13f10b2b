// KeyRecords (Core §5): validity window edges (validFrom and validUntil inclusive, revokedAt
// exclusive), key bytes per algorithm, record shape, and the key cache.
import { describe, expect, it } from 'vitest';
import { checkKeyValidAt, createKeyCache, parseKeyCache, publicKeyBytes, sameKey, validKeyRecordShape, type KeyRecord } from './keys.ts';
import { at, keyFor, signerFor, T0 } from '../../testkit/verifier-fixtures.ts';
import { toBase64url } from '../encoding/wire.ts';
import { IDENTITY } from '../../testkit/ed25519-adversarial.ts';

const ed = signerFor('EdDSA', 'dev-1', 1);
const p256 = signerFor('ES256', 'dev-2', 2);

describe('checkKeyValidAt', () => {
  const key = keyFor(ed, 'device', 'src', { validFrom: at(0), validUntil: at(10_000), revokedAt: at(5_000) });

  it('is valid from validFrom inclusive and before revokedAt', () => {
    expect(checkKeyValidAt(key, at(0))).toEqual({ ok: true, value: true });
    expect(checkKeyValidAt(key, at(4_999))).toEqual({ ok: true, value: true });
  });

  it('is revoked at exactly revokedAt and after', () => {
    expect(checkKeyValidAt(key, at(5_000))).toMatchObject({ ok: false, code: 'key_revoked', kid: 'dev-1' });
    expect(checkKeyValidAt(key, at(7_000))).toMatchObject({ ok: false, code: 'key_revoked' });
  });

  it('is not valid before validFrom or after validUntil; validUntil itself is valid', () => {
    const k = keyFor(ed, 'device', 'src', { validFrom: at(0), validUntil: at(10_000) });
    expect(checkKeyValidAt(k, at(-1))).toMatchObject({ ok: false, code: 'key_not_valid_at' });
    expect(checkKeyValidAt(k, at(10_000))).toEqual({ ok: true, value: true });
    expect(checkKeyValidAt(k, at(10_001))).toMatchObject({ ok: false, code: 'key_not_valid_at' });
  });

  it('refuses a signedAt or a record time that is not an RFC 3339 UTC time (fails closed)', () => {
    expect(checkKeyValidAt(key, '2026-11-30T10:00:00Z')).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(checkKeyValidAt({ ...key, validFrom: 'garbage' }, at(1))).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(checkKeyValidAt({ ...key, revokedAt: 'soon' }, at(1))).toMatchObject({ ok: false, code: 'invalid_document' });
    const { validFrom: _v, ...noFrom } = key;
    expect(checkKeyValidAt(noFrom as KeyRecord, at(1))).toMatchObject({ ok: false, code: 'invalid_document' });
  });
});

describe('publicKeyBytes and sameKey', () => {
  it('returns 32 bytes for EdDSA and 65 (uncompressed) for ES256', () => {
    expect(publicKeyBytes(keyFor(ed, 'device', 's'))).toMatchObject({ ok: true, value: ed.publicKey });
    const p = publicKeyBytes(keyFor(p256, 'device', 's'));
    expect(p.ok && p.value.length === 65 && p.value[0] === 4).toBe(true);
  });

  it('refuses wrong lengths, bad base64url and unknown algorithms', () => {
    expect(publicKeyBytes({ alg: 'EdDSA', publicKey: toBase64url(new Uint8Array(33)) })).toMatchObject({
      ok: false,
      code: 'invalid_document',
    });
    expect(publicKeyBytes({ alg: 'ES256', publicKey: toBase64url(ed.publicKey) })).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(publicKeyBytes({ alg: 'EdDSA', publicKey: 'a+b=' })).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(publicKeyBytes({ alg: 'RS256' as 'EdDSA', publicKey: toBase64url(ed.publicKey) })).toMatchObject({
      ok: false,
      code: 'unsupported_alg',
    });
  });

  it('compares keys by algorithm and public key, not kid', () => {
    const a = keyFor(ed, 'device', 's');
    expect(sameKey(a, { ...a, kid: 'other' } as KeyRecord)).toBe(true);
    expect(sameKey(a, keyFor(p256, 'device', 's'))).toBe(false);
  });
});

describe('validKeyRecordShape', () => {
  const good = keyFor(ed, 'device', 'src', { validUntil: at(1) });
  it('accepts a well formed record', () => expect(validKeyRecordShape(good)).toEqual({ ok: true, value: true }));
  it('refuses a bad role, owner, time, window or key', () => {
    expect(validKeyRecordShape({ ...good, role: 'admin' as 'device' })).toMatchObject({ code: 'invalid_document' });
    expect(validKeyRecordShape({ ...good, owner: '' })).toMatchObject({ code: 'invalid_document' });
    expect(validKeyRecordShape({ ...good, validFrom: T0.replace('.000', '') })).toMatchObject({ code: 'invalid_document' });
    expect(validKeyRecordShape({ ...good, validUntil: at(-1) })).toMatchObject({ code: 'invalid_document' });
    expect(validKeyRecordShape({ ...good, publicKey: 'AA' })).toMatchObject({ code: 'invalid_document' });
  });
});

describe('key cache', () => {
  it('a later record for a kid replaces the earlier (a revocation)', () => {
    const k = keyFor(ed, 'device', 's');
    const revoked = { ...k, revokedAt: at(1) };
    const cache = createKeyCache([k, revoked]);
    expect(cache.get('dev-1')).toEqual(revoked);
    expect(cache.all()).toHaveLength(1);
    cache.add(keyFor(p256, 'device', 's'));
    expect(cache.toJSON()).toEqual({ kind: 'KeyCache', keys: [revoked, keyFor(p256, 'device', 's')] });
    expect(cache.get('nope')).toBeUndefined();
  });

  it('parseKeyCache reads the file format and refuses anything else', () => {
    const k = keyFor(ed, 'device', 's');
    const r = parseKeyCache({ kind: 'KeyCache', keys: [k] });
    expect(r.ok && r.value.get('dev-1')).toEqual(k);
    expect(parseKeyCache({ kind: 'KeyCache' })).toMatchObject({ code: 'invalid_document' });
    expect(parseKeyCache({ kind: 'Keys', keys: [] })).toMatchObject({ code: 'invalid_document' });
    expect(parseKeyCache({ kind: 'KeyCache', keys: [{ kind: 'Other' }] })).toMatchObject({ code: 'invalid_document' });
    expect(parseKeyCache({ kind: 'KeyCache', keys: [{ ...k, publicKey: 'AA' }] })).toMatchObject({ code: 'invalid_document' });
  });
});

describe('remembered keys and key times', () => {
  it('a key that passed is found by its exact text only, under its own alg, and each caller gets its own copy', () => {
    const text = toBase64url(ed.publicKey);
    const first = publicKeyBytes({ alg: 'EdDSA', publicKey: text });
    expect(first.ok && [...first.value]).toEqual([...ed.publicKey]);
    if (first.ok) first.value.fill(0); // a caller scribbling on its copy changes nothing for the next
    const again = publicKeyBytes({ alg: 'EdDSA', publicKey: text });
    expect(again.ok && [...again.value]).toEqual([...ed.publicKey]);
    // The same text under the other alg is decided afresh (wrong length for P-256).
    expect(publicKeyBytes({ alg: 'ES256', publicKey: text })).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(publicKeyBytes({ alg: 'Ed448' as 'EdDSA', publicKey: text })).toMatchObject({ ok: false, code: 'unsupported_alg' });
    // Another spelling of nearly the same text (a changed last character, non-canonical bits) is refused.
    const last = text[text.length - 1];
    const other = text.slice(0, -1) + (last === 'A' ? 'B' : 'A');
    const r = publicKeyBytes({ alg: 'EdDSA', publicKey: other });
    if (r.ok) expect([...r.value]).not.toEqual([...ed.publicKey]);
    else expect(['invalid_document', 'weak_key']).toContain(r.code);
  });

  it('refusals are decided every time: a weak key stays weak_key, a non-time validFrom stays invalid_document', () => {
    const identity = toBase64url(IDENTITY);
    for (let i = 0; i < 2; i++) {
      expect(publicKeyBytes({ alg: 'EdDSA', publicKey: identity })).toMatchObject({ ok: false, code: 'weak_key' });
      // Without the key rule the bytes are returned, and that does not make the key pass with the rule.
      expect(publicKeyBytes({ alg: 'EdDSA', publicKey: identity }, false).ok).toBe(true);
    }
    const key = keyFor(ed, 'device', 'src', { validFrom: at(0) });
    expect(checkKeyValidAt(key, at(1)).ok).toBe(true);
    for (const bad of ['2026-11-30T10:00:00Z', at(0).replace('Z', '+00:00'), 'garbage']) {
      expect(checkKeyValidAt({ ...key, validFrom: bad }, at(1))).toMatchObject({ ok: false, code: 'invalid_document' });
      expect(checkKeyValidAt({ ...key, validUntil: bad }, at(1))).toMatchObject({ ok: false, code: 'invalid_document' });
      expect(checkKeyValidAt({ ...key, revokedAt: bad }, at(1))).toMatchObject({ ok: false, code: 'invalid_document' });
    }
    // A remembered time still compares as the time it spells.
    expect(checkKeyValidAt({ ...key, validFrom: at(5) }, at(4))).toMatchObject({ ok: false, code: 'key_not_valid_at' });
    expect(checkKeyValidAt({ ...key, validFrom: at(5) }, at(5)).ok).toBe(true);
  });
});
