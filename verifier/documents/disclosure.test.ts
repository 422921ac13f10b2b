// Selective disclosure (Core §5): {"disclosure": sha256(JCS([salt, value]))} with a 16-byte salt;
// revealing [salt, value] proves the value and leaves the document's signature intact.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createDisclosure, verifyDisclosure } from './disclosure.ts';
import { signDocument, verifyDocument } from '../signing/signature.ts';
import { createNobleBackend } from '../crypto/noble.ts';
import { keyFor, lookupOf, signerFor, T0 } from '../../testkit/verifier-fixtures.ts';
import { toBase64url } from '../encoding/wire.ts';
import type { JsonObject } from '../signing/document-hash.ts';

const SALT = Uint8Array.from({ length: 16 }, (_, i) => i);

describe('disclosures', () => {
  it('the digest is sha256 of JCS([salt, value])', () => {
    const { digest, revealed } = createDisclosure({ allergy: 'sesame' }, undefined, SALT);
    const salt = toBase64url(SALT);
    expect(revealed).toEqual([salt, { allergy: 'sesame' }]);
    const want = createHash('sha256').update(`["${salt}",{"allergy":"sesame"}]`).digest('hex');
    expect(digest).toEqual({ disclosure: 'sha256:' + want });
    expect(verifyDisclosure(digest, revealed)).toEqual({ ok: true, value: { allergy: 'sesame' } });
  });

  it('random salts differ, so equal values do not give equal digests', () => {
    const a = createDisclosure('same');
    const b = createDisclosure('same');
    expect(a.digest.disclosure).not.toBe(b.digest.disclosure);
    expect(verifyDisclosure(a.digest, a.revealed).ok).toBe(true);
  });

  it('refuses another value, another salt, a short salt and malformed reveals with bad_disclosure', () => {
    const { digest, revealed } = createDisclosure(42, undefined, SALT);
    expect(verifyDisclosure(digest, [revealed[0], 43])).toMatchObject({ ok: false, code: 'bad_disclosure' });
    expect(verifyDisclosure(digest, [toBase64url(new Uint8Array(16).fill(9)), 42])).toMatchObject({ ok: false, code: 'bad_disclosure' });
    expect(verifyDisclosure(digest, [toBase64url(new Uint8Array(8)), 42])).toMatchObject({ ok: false, code: 'bad_disclosure' });
    expect(verifyDisclosure(digest, [revealed[0] + '=', 42])).toMatchObject({ ok: false, code: 'bad_disclosure' });
    for (const bad of [null, 'x', [revealed[0]], [revealed[0], 42, 1], [1, 42]])
      expect(verifyDisclosure(digest, bad)).toMatchObject({ ok: false, code: 'bad_disclosure' });
  });

  it('a value JCS cannot express is refused', () => {
    expect(() => createDisclosure(NaN, undefined, SALT)).toThrow(TypeError);
    expect(verifyDisclosure({ disclosure: 'sha256:' + '0'.repeat(64) }, [toBase64url(SALT), NaN])).toMatchObject({
      ok: false,
      code: 'noncanonical_number',
    });
  });

  it('works on the noble backend with identical digests', () => {
    const a = createDisclosure({ v: [1, 2] }, undefined, SALT);
    const b = createDisclosure({ v: [1, 2] }, createNobleBackend(), SALT);
    expect(b.digest).toEqual(a.digest);
  });

  it('revealing does not touch the signature of the document holding the digest', () => {
    const signer = signerFor('EdDSA', 'op-1', 1);
    const key = keyFor(signer, 'operator', 'kitchen');
    const { digest, revealed } = createDisclosure('household of 4', undefined, SALT);
    const doc = signDocument({ kind: 'KeyRecord', household: digest as unknown as { disclosure: string } }, signer, T0);
    expect(verifyDocument(doc as unknown as JsonObject, lookupOf(key)).ok).toBe(true);
    expect(verifyDisclosure(doc.household as { disclosure: string }, revealed)).toEqual({ ok: true, value: 'household of 4' });
    expect(verifyDocument(doc as unknown as JsonObject, lookupOf(key)).ok).toBe(true);
  });
});
