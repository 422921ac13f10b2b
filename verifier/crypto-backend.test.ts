// Both CryptoBackends give identical bytes (SHA-256, Ed25519 keys and signatures, P-256 public
// keys) and accept each other's signatures; ES256 is randomized in node:crypto, so those are
// cross-verified rather than compared.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createNodeBackend } from './crypto-node.ts';
import { createNobleBackend } from './crypto-noble.ts';

const node = createNodeBackend();
const noble = createNobleBackend();
const seed = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + n) & 0xff);

describe('node:crypto and @noble agree', () => {
  it('SHA-256 is identical', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2048 }), (d) => {
      expect(Buffer.from(node.sha256(d))).toEqual(Buffer.from(noble.sha256(d)));
    }), { numRuns: 200 });
  });

  it('sha256Hex and sha256Text of text are identical and equal sha256(UTF-8)', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (t) => {
      const want = Buffer.from(node.sha256(new TextEncoder().encode(t))).toString('hex');
      expect(node.sha256Hex(t)).toBe(want);
      expect(noble.sha256Hex(t)).toBe(want);
      expect(Buffer.from(node.sha256Text(t)).toString('hex')).toBe(want);
      expect(Buffer.from(noble.sha256Text(t)).toString('hex')).toBe(want);
    }), { numRuns: 300 });
  });

  it('Ed25519 keys and signatures are identical, and each verifies the other', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uint8Array({ maxLength: 300 }), (s, m) => {
      const pkA = node.ed25519PublicKey(s);
      expect(Buffer.from(pkA)).toEqual(Buffer.from(noble.ed25519PublicKey(s)));
      const a = node.ed25519Sign(s, m);
      expect(Buffer.from(a)).toEqual(Buffer.from(noble.ed25519Sign(s, m)));
      expect(node.ed25519Verify(pkA, m, a)).toBe(true);
      expect(noble.ed25519Verify(pkA, m, a)).toBe(true);
    }), { numRuns: 50 });
  });

  it('P-256 public keys are identical and signatures cross-verify', () => {
    const s = seed(3);
    const pk = node.p256PublicKey(s);
    expect(Buffer.from(pk)).toEqual(Buffer.from(noble.p256PublicKey(s)));
    const m = new TextEncoder().encode('cookwala');
    const a = node.p256Sign(s, m);
    const b = noble.p256Sign(s, m);
    expect(a.length).toBe(64);
    expect(noble.p256Verify(pk, m, a)).toBe(true);
    expect(node.p256Verify(pk, m, b)).toBe(true);
    const bad = Uint8Array.from(a);
    bad[10] ^= 1;
    expect(node.p256Verify(pk, m, bad)).toBe(false);
    expect(noble.p256Verify(pk, m, bad)).toBe(false);
  });

  it('malformed inputs return false, never throw', () => {
    for (const b of [node, noble]) {
      expect(b.ed25519Verify(new Uint8Array(31), new Uint8Array(1), new Uint8Array(64))).toBe(false);
      expect(b.ed25519Verify(new Uint8Array(32), new Uint8Array(1), new Uint8Array(63))).toBe(false);
      expect(b.p256Verify(new Uint8Array(65), new Uint8Array(1), new Uint8Array(64))).toBe(false);
      expect(b.p256Verify(new Uint8Array(33), new Uint8Array(1), new Uint8Array(70))).toBe(false);
    }
  });
});
