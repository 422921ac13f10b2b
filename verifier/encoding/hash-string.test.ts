// The hash strings of docs/design.md §3 (verifier/encoding/wire.ts isHashString, parseHash: one pass, no
// regular expression) against the grammar as a regular expression and Buffer's hex decoder: the
// same strings accepted, the same 32 bytes, for random hashes, random strings over the characters
// that matter (hex of both cases, the prefix, others), and each hostile near miss written out
// (uppercase, short, long, other prefix, non-ASCII, non-string), refused with invalid_hash.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isHashString, parseHash } from './wire.ts';

// The oracle: the spec's grammar as a regular expression, decoded by Buffer's hex codec.
const agree = (s: unknown) => {
  const want = typeof s === 'string' && /^sha256:[0-9a-f]{64}$/.test(s);
  expect(isHashString(s)).toBe(want);
  const got = parseHash(s);
  expect(got.ok).toBe(want);
  if (got.ok) expect(Buffer.from(got.value).toString('hex')).toBe((s as string).slice(7));
  else expect(got.code).toBe('invalid_hash');
};

describe('hash strings', () => {
  it('decodes every valid hash string to the bytes wire.ts decodes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (b) => {
        const s = 'sha256:' + Buffer.from(b).toString('hex');
        expect(isHashString(s)).toBe(true);
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
      expect(isHashString(bad)).toBe(false);
      expect(parseHash(bad).ok).toBe(false);
      agree(bad);
    }
  });
});
