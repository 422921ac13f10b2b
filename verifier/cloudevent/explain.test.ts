// explainEvent: the hash input is the JCS text whose SHA-256 is eventHash (on random events), and
// the signing header text is the one signHash signed (the signature verifies over its bytes).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { explainEvent } from './explain.ts';
import { decodeCookwalasig, eventHash, signEvent, type CloudEvent } from './read.ts';
import { createSigner, generateSecretKey, verifyRaw } from '../signing/signature.ts';
import { utf8 } from '../encoding/wire.ts';

const signer = createSigner(generateSecretKey('EdDSA', 'k-1', undefined, new Uint8Array(32).fill(3)));

describe('explainEvent', () => {
  it('gives the bytes of the event hash on random events', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), value), fc.string({ minLength: 1 }), (data, id) => {
        const ce: CloudEvent = {
          specversion: '1.0',
          id,
          source: 's',
          type: 't',
          datacontenttype: 'application/json',
          data,
          subject: null as never,
        };
        const x = explainEvent(ce);
        expect(x.ok).toBe(true);
        if (!x.ok) return;
        expect('sha256:' + createHash('sha256').update(x.value.hashInput, 'utf8').digest('hex')).toBe(x.value.eventHash);
        expect(x.value.eventHash).toBe((eventHash(ce) as { value: string }).value);
        expect(x.value.hashInput).not.toContain('"subject"');
      }),
      { numRuns: 200 },
    );
  });

  it('gives the signing header whose bytes the signature covers', () => {
    const signed = signEvent({ specversion: '1.0', id: 'a', source: 's', type: 't' }, signer, '2026-11-30T10:00:00.123Z');
    const sig = decodeCookwalasig(signed.cookwalasig as string);
    if (!sig.ok) throw new Error(sig.detail);
    const x = explainEvent(signed, sig.value);
    if (!x.ok) throw new Error(x.detail);
    expect(x.value.signingHeader).toBe(
      `{"alg":"EdDSA","hash":"${x.value.eventHash}","kid":"k-1","kind":"Event","signedAt":"2026-11-30T10:00:00.123Z"}`,
    );
    expect(verifyRaw('EdDSA', signer.publicKey, utf8(x.value.signingHeader!), Buffer.from(sig.value.sig, 'base64url'))).toBe(true);
    expect(explainEvent({ specversion: '1.0', id: 'a', source: 's', type: 't', data: new Uint8Array(1) } as CloudEvent)).toMatchObject({
      ok: false,
      code: 'invalid_event',
    });
  });
});
