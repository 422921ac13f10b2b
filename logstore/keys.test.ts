// Key layout and value encodings: round trips, bytewise order = seq order, and no two
// (source, id) pairs sharing a dedup key.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { P, checkpointKey, decodeDedupKey, dedupKey, entryKey, familyRange, readU64, seqOfKey, subjectKey, u64 } from './keys.ts';
import { decodeDedup, decodeHead, decodeU64, encodeDedup, encodeHead, encodeU64, hashBytes } from './values.ts';

const H1 = 'sha256:' + 'ab'.repeat(32);
const H2 = 'sha256:' + '0f'.repeat(32);

describe('keys', () => {
  it('u64 round-trips at the 2^32 and 2^53 edges and refuses what a number cannot hold', () => {
    for (const n of [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER]) expect(readU64(u64(n), 0)).toBe(n);
    expect(() => u64(-1)).toThrow(RangeError);
    expect(() => u64(1.5)).toThrow(RangeError);
    expect(() => u64(2 ** 53)).toThrow(RangeError);
  });

  it('seq keys sort bytewise in seq order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (a, b) => {
        const c = Buffer.compare(entryKey(a), entryKey(b));
        expect(Math.sign(c)).toBe(Math.sign(a - b));
        expect(seqOfKey(entryKey(a))).toBe(a);
      }),
      { numRuns: 500 },
    );
  });

  it('a family range holds every key of its prefix and none of the next', () => {
    const r = familyRange(P.entry);
    for (const k of [entryKey(0), entryKey(Number.MAX_SAFE_INTEGER)]) {
      expect(Buffer.compare(k, r.gte)).toBeGreaterThanOrEqual(0);
      expect(Buffer.compare(k, r.lte)).toBeLessThanOrEqual(0);
    }
    expect(Buffer.compare(Buffer.from([P.entry + 1]), r.lte)).toBeGreaterThan(0);
    expect(Buffer.compare(checkpointKey(Number.MAX_SAFE_INTEGER), r.gte)).toBeLessThan(0);
  });

  it('dedup keys are unambiguous: distinct (source, id) pairs never share a key', () => {
    // Concatenation without the length prefix would make ("ab","c") and ("a","bc") collide.
    expect(dedupKey('ab', 'c').equals(dedupKey('a', 'bc'))).toBe(false);
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'grapheme' }),
        fc.string({ unit: 'grapheme' }),
        (s1, i1, s2, i2) => {
          const same = s1 === s2 && i1 === i2;
          expect(dedupKey(s1, i1).equals(dedupKey(s2, i2))).toBe(same);
          expect(decodeDedupKey(dedupKey(s1, i1))).toEqual({ source: s1, id: i1 });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('strings with lone surrogates keep distinct keys (UTF-8 would merge them into U+FFFD)', () => {
    const units = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 6 });
    expect(dedupKey('a\ud800', 'x').equals(dedupKey('a\udbff', 'x'))).toBe(false);
    expect(subjectKey('s\udc00').equals(subjectKey('s\udfff'))).toBe(false);
    fc.assert(
      fc.property(units, units, units, units, (s1, i1, s2, i2) => {
        expect(dedupKey(s1, i1).equals(dedupKey(s2, i2))).toBe(s1 === s2 && i1 === i2);
        expect(decodeDedupKey(dedupKey(s1, i1))).toEqual({ source: s1, id: i1 });
        expect(subjectKey(s1).equals(subjectKey(s2))).toBe(s1 === s2);
      }),
      { numRuns: 500 },
    );
  });

  it('subject keys never fall inside another family', () => {
    expect(subjectKey('')[0]).toBe(P.subject);
    expect(subjectKey('x').toString('utf8', 2)).toBe('x');
  });
});

describe('values', () => {
  it('head, dedup and u64 records round-trip', () => {
    const head = { seq: 2 ** 40 + 3, hash: H1, root: H2 };
    expect(decodeHead(encodeHead(head))).toEqual(head);
    expect(decodeDedup(encodeDedup(7, H2))).toEqual({ seq: 7, eventHash: H2 });
    expect(decodeU64(encodeU64(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('a malformed hash never enters binary form', () => {
    expect(() => hashBytes('sha256:AB' + 'ab'.repeat(31))).toThrow(TypeError);
    expect(() => encodeHead({ seq: 1, hash: 'sha256:00', root: H2 })).toThrow(TypeError);
    expect(() => decodeHead(Buffer.alloc(71))).toThrow(/72/);
  });
});
