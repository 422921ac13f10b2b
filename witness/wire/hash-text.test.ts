// The hash-string reader of the witness protocol (hash-text.ts) against verifier/encoding/wire.ts:
// the same strings accepted as isHashString / parseHash, the same 32 bytes decoded, for random
// hashes, random strings over the characters that matter (hex of both cases, the prefix, others),
// and each hostile near-miss written out (uppercase, short, long, other prefix, non-ASCII, non-string);
// and the base64 proof-line reader against verifier/note/base64.ts fromBase64Std (32 bytes or refused).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isHashString, parseHash } from '../../verifier/encoding/wire.ts';
import { fromBase64Std } from '../../verifier/note/base64.ts';
import { hashFromBase64Std, hashTextBytes, isHashText } from './hash-text.ts';

const agree = (s: unknown) => {
  expect(isHashText(s)).toBe(isHashString(s));
  const want = parseHash(s);
  const got = hashTextBytes(s);
  if (want.ok) expect(got && [...got]).toEqual([...want.value]);
  else expect(got).toBeUndefined();
};

describe('hash text', () => {
  it('decodes every valid hash string to the bytes wire.ts decodes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (b) => {
        const s = 'sha256:' + Buffer.from(b).toString('hex');
        expect(isHashText(s)).toBe(true);
        agree(s);
      }),
      { numRuns: 500 },
    );
  });

  it('accepts exactly what isHashString accepts, on strings built from the characters that matter', () => {
    const ch = fc.constantFrom(...'0123456789abcdefABCDEFgz:s\u00e9\u0660'.split(''));
    const tail = fc.array(ch, { minLength: 62, maxLength: 66 }).map((a) => a.join(''));
    fc.assert(
      fc.property(fc.constantFrom('sha256:', 'SHA256:', 'sha256', 'sha512:', ''), tail, (p, t) => agree(p + t)),
      { numRuns: 2000 },
    );
  });

  it('refuses each near miss', () => {
    const good = 'sha256:' + 'ab'.repeat(32);
    agree(good);
    for (const bad of [
      good.toUpperCase(),
      'sha256:' + 'AB'.repeat(32),
      good.slice(0, -1),
      good + '0',
      good.slice(0, -1) + 'g',
      good.slice(0, -1) + '\u0660',
      'sha257:' + 'ab'.repeat(32),
      ' ' + good.slice(1),
      '',
      undefined,
      null,
      42,
      ['sha256:' + 'ab'.repeat(32)],
    ]) {
      expect(isHashText(bad)).toBe(false);
      expect(hashTextBytes(bad)).toBeUndefined();
      agree(bad);
    }
  });
});

const agree64 = (s: string) => {
  const want = fromBase64Std(s);
  const got = hashFromBase64Std(s);
  if (want.ok && want.value.length === 32) expect(got && [...got]).toEqual([...want.value]);
  else expect(got).toBeUndefined();
};

describe('base64 hash lines', () => {
  it('decodes the base64 of every 32-byte string to those bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (b) => {
        const s = Buffer.from(b).toString('base64');
        expect([...hashFromBase64Std(s)!]).toEqual([...b]);
        agree64(s);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses what fromBase64Std refuses or decodes to another length, on strings of the characters that matter', () => {
    // Mostly the last characters vary: trailing bits, padding, stray `=`, URL-safe and non-ASCII letters.
    const ch = fc.constantFrom(...'AQgwBCDz09+/=-_ \u00e9'.split(''));
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 30, maxLength: 32 }),
        fc.array(ch, { minLength: 0, maxLength: 4 }),
        fc.nat(3),
        (b, tail, cut) => {
          const s = Buffer.from(b).toString('base64');
          agree64(s.slice(0, s.length - cut) + tail.join(''));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('refuses each near miss', () => {
    const good = Buffer.alloc(32, 0xab).toString('base64');
    agree64(good);
    const last = good.charCodeAt(42);
    for (const bad of [
      good.slice(0, 42) + String.fromCharCode(last + 1) + '=', // non-zero trailing bits
      good.slice(0, 43), // no padding
      good + '=',
      good.slice(0, 43) + 'A',
      good.slice(0, 10) + '-' + good.slice(11), // base64url letter
      good.slice(0, 10) + '\u00e9' + good.slice(11),
      ' ' + good.slice(1),
      Buffer.alloc(31, 1).toString('base64'),
      Buffer.alloc(33, 1).toString('base64'),
      '',
    ]) {
      expect(hashFromBase64Std(bad)).toBeUndefined();
      agree64(bad);
    }
  });
});
