// The base64 proof-line reader of the C2SP witness (hash-text.ts) against verifier/c2sp/note/base64.ts
// fromBase64Std: 32 bytes or refused, for random hashes, strings over the characters that matter
// and each near miss written out.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromBase64Std } from '../../verifier/c2sp/note/base64.ts';
import { hashFromBase64Std, hashFromBase64StdBytes } from './hash-text.ts';

const agree64 = (s: string) => {
  const want = fromBase64Std(s);
  const got = hashFromBase64Std(s);
  // The bytes reader, on the line's UTF-8 inside a larger body, gives the same verdict.
  const line = Buffer.from(s, 'utf8');
  const body = Buffer.concat([Buffer.from('x\n'), line, Buffer.from('\nrest')]);
  const fromBytes = hashFromBase64StdBytes(body, 2, 2 + line.length);
  if (want.ok && want.value.length === 32) {
    expect(got && [...got]).toEqual([...want.value]);
    expect(fromBytes && [...fromBytes]).toEqual([...want.value]);
  } else {
    expect(got).toBeUndefined();
    expect(fromBytes).toBeUndefined();
  }
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
