// The witness's JSON cosignature (checkpoint-cosigner.ts) against the verifier's: the header
// bytes equal signingHeaderBytes for any kid (escapes, non-ASCII, astral), hash and time; the
// Signature equals cosignVerifiedCheckpoint's and verifies with verifyHashSignature; a signer
// replaced by another (another kid) signs its own kid; a non-hash or non-time throws.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatTime } from '../../verifier/encoding/wire.ts';
import { cosignVerifiedCheckpoint, CHECKPOINT_KIND } from '../../verifier/documents/checkpoint.ts';
import { signingHeader, signingHeaderBytes, verifyHashSignature, type Signer } from '../../verifier/signing/signature.ts';
import { testKey } from '../../testkit/witness.ts';
import { cosignatureHeaderBytes, cosignCheckpoint } from './checkpoint-cosigner.ts';

const w = testKey('cosigner-w1', 'witness');
const hashArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => 'sha256:' + Buffer.from(b).toString('hex'));
const timeArb = fc.integer({ min: 0, max: 253402300799999 }).map((ms) => formatTime(ms));

describe('checkpoint cosigner', () => {
  it('writes the bytes signingHeaderBytes writes, for any kid, hash and time', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 20 }),
        hashArb,
        timeArb,
        (a, b, hash, t) => {
          const signer: Signer = { ...w.signer, kid: a + b };
          const want = signingHeaderBytes(signingHeader({ alg: signer.alg, kid: signer.kid, signedAt: t }, hash, CHECKPOINT_KIND));
          expect(Buffer.from(cosignatureHeaderBytes(signer, hash, t)).equals(Buffer.from(want))).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('makes the Signature cosignVerifiedCheckpoint makes, and it verifies', () => {
    const hash = 'sha256:' + 'c3'.repeat(32);
    const t = '2026-12-01T09:00:00.123Z';
    const s = cosignCheckpoint({ hash }, w.signer, t);
    expect(s).toEqual(cosignVerifiedCheckpoint({ hash }, w.signer, t));
    expect(verifyHashSignature(hash, CHECKPOINT_KIND, s, w.keyRecord, { role: 'witness' }).ok).toBe(true);
    // Another key under another kid: its own header, not the first signer's.
    const w2 = testKey('cosigner-w2', 'witness');
    const s2 = cosignCheckpoint({ hash }, w2.signer, t);
    expect(s2.kid).toBe(w2.signer.kid);
    expect(verifyHashSignature(hash, CHECKPOINT_KIND, s2, w2.keyRecord, { role: 'witness' }).ok).toBe(true);
    expect(verifyHashSignature(hash, CHECKPOINT_KIND, s2, w.keyRecord, { role: 'witness' }).ok).toBe(false);
    // The first signer again still signs under its own kid.
    expect(cosignCheckpoint({ hash }, w.signer, t)).toEqual(s);
  });

  it('refuses to sign anything but a hash at a time', () => {
    expect(() => cosignCheckpoint({ hash: 'sha256:' + 'C3'.repeat(32) }, w.signer, '2026-12-01T09:00:00.123Z')).toThrow(TypeError);
    expect(() => cosignCheckpoint({ hash: 'sha256:' + 'c3'.repeat(32) }, w.signer, '2026-12-01T09:00:00Z')).toThrow(TypeError);
    expect(() => cosignCheckpoint({ hash: '"}' }, w.signer, '2026-12-01T09:00:00.123Z')).toThrow(TypeError);
  });
});

describe('note cosigner time', () => {
  it('gives each cosignature the signedAt of its own second (the kept form changes with the second)', async () => {
    const { createWitnessCosigner } = await import('./note-cosigner.ts');
    const c = createWitnessCosigner('witness.test/cosigner', w.signer);
    const body = new TextEncoder().encode(`example.org/log\n5\n${Buffer.alloc(32, 7).toString('base64')}\n`);
    const t0 = Date.parse('2026-12-01T09:00:00.000Z');
    for (const [ms, want] of [
      [t0 + 1, '2026-12-01T09:00:00.000Z'],
      [t0 + 999, '2026-12-01T09:00:00.000Z'],
      [t0 + 1000, '2026-12-01T09:00:01.000Z'],
      [t0 + 999, '2026-12-01T09:00:00.000Z'],
      [t0 + 61_000, '2026-12-01T09:01:01.000Z'],
    ] as const) {
      const n = c.cosign(body, ms);
      expect(n.object.signedAt).toBe(want);
      expect(n.timestamp).toBe(Math.floor(ms / 1000));
    }
  });
});
