// verifier/crypto/sha256.test.ts: the pure-JS SHA-256 (sha256.ts) against FIPS 180-4 example
// vectors (NIST CSRC "Examples with Intermediate Values", public domain) and node:crypto, for
// bytes and for text, around the padding boundaries and with lone surrogates.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Bytes, sha256HexOfText, sha256OfText } from './sha256.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const node = (d: Uint8Array | string) => createHash('sha256').update(d).digest('hex');

describe('sha256 (pure JS)', () => {
  it('gives the FIPS 180-4 example digests', () => {
    expect(sha256HexOfText('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256HexOfText('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256HexOfText('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(hex(sha256Bytes(new Uint8Array(1_000_000).fill(0x61)))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('agrees with node:crypto at every length around the block and padding edges', () => {
    for (let n = 0; n <= 200; n++) {
      const b = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
      expect(hex(sha256Bytes(b))).toBe(node(b));
    }
  });

  it('agrees with node:crypto on random bytes and on the UTF-8 of random text, alternated', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), fc.string({ unit: 'binary', maxLength: 400 }), (b, s) => {
        expect(hex(sha256Bytes(b))).toBe(node(b));
        expect(sha256HexOfText(s)).toBe(node(s));
        expect(hex(sha256OfText(s))).toBe(node(s));
      }),
      { numRuns: 300 },
    );
  });

  it('encodes lone surrogates as U+FFFD, as Node does, and text longer than its first buffer', () => {
    for (const s of ['\ud800', 'a\udc00b', '\udbff\udfff', 'é'.repeat(5000), 'x'.repeat(20_000)]) expect(sha256HexOfText(s)).toBe(node(s));
  });
});
