// Key layout and value encodings: round trips, bytewise order = seq order, and no two
// (source, id) pairs sharing a dedup key.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  BAND,
  BANDED,
  FAMILY_FIRST,
  P,
  RECORD_FAMILIES,
  checkpointKey,
  decodeDedupKey,
  dedupKey,
  familyRange,
  readU64,
  seqOfKey,
  subjectKey,
  u64,
  type RecordLayout,
} from './keys.ts';
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

  const seqs = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
  const within = (k: Buffer, r: { gte: Buffer; lte: Buffer }) => Buffer.compare(k, r.gte) >= 0 && Buffer.compare(k, r.lte) <= 0;

  for (const layout of [FAMILY_FIRST, BANDED] as RecordLayout[]) {
    it(`${layout.format}: one family's record keys sort bytewise in seq order and name their seq`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...RECORD_FAMILIES), seqs, seqs, (f, a, b) => {
          expect(Math.sign(Buffer.compare(layout.key(f, a), layout.key(f, b)))).toBe(Math.sign(a - b));
          expect(layout.seqOf(layout.key(f, a))).toBe(a);
        }),
        { numRuns: 500 },
      );
    });

    it(`${layout.format}: ranges(f, from, to) hold exactly the family's keys from..to, in order`, () => {
      const near = (n: number) => fc.integer({ min: Math.max(0, n - 3), max: n + 3 });
      const around = fc.oneof(
        fc.nat({ max: 3 * BAND }),
        fc.nat({ max: 40 }).chain((k) => near(k * BAND)),
        seqs,
      );
      fc.assert(
        fc.property(fc.constantFrom(...RECORD_FAMILIES), around, fc.nat({ max: 2 * BAND + 5 }), around, (f, from, span, probe) => {
          const to = Math.min(Number.MAX_SAFE_INTEGER, from + span);
          const rs = [...layout.ranges(f, from, to)];
          for (let i = 1; i < rs.length; i++) expect(Buffer.compare(rs[i - 1].lte, rs[i].gte)).toBeLessThan(0);
          for (const g of RECORD_FAMILIES)
            for (const s of [from, to, probe, Math.max(0, from - 1), Math.min(Number.MAX_SAFE_INTEGER, to + 1)]) {
              const inside = rs.filter((r) => within(layout.key(g, s), r)).length;
              expect(inside).toBe(g === f && s >= from && s <= to ? 1 : 0);
            }
          for (const k of [checkpointKey(from), dedupKey('s', 'i'), subjectKey('x')]) expect(rs.some((r) => within(k, r))).toBe(false);
        }),
        { numRuns: 400 },
      );
    });
  }

  it('BANDED: a band holds BAND seqs, records of one band sort before the next band, whatever the family', () => {
    expect(BANDED.key(P.payload, BAND - 1).compare(BANDED.key(P.entry, BAND))).toBeLessThan(0);
    expect(BANDED.key(P.entry, BAND).compare(BANDED.key(P.node, BAND - 1))).toBeGreaterThan(0);
    expect([...BANDED.ranges(P.entry, BAND - 2, BAND + 1)].length).toBe(2);
    expect(BANDED.key(P.entry, 0)[0]).toBe(P.record);
    expect(BANDED.key(P.entry, 0).compare(Buffer.from([P.version]))).toBeLessThan(0);
  });

  it('a family range holds every key of its prefix and none of the next', () => {
    const r = familyRange(P.entry);
    for (const k of [FAMILY_FIRST.key(P.entry, 0), FAMILY_FIRST.key(P.entry, Number.MAX_SAFE_INTEGER)]) expect(within(k, r)).toBe(true);
    expect(Buffer.compare(Buffer.from([P.entry + 1]), r.lte)).toBeGreaterThan(0);
    expect(Buffer.compare(checkpointKey(Number.MAX_SAFE_INTEGER), r.gte)).toBeLessThan(0);
    expect(seqOfKey(checkpointKey(77))).toBe(77);
  });

  it('u64 and dedup keys keep their stored bytes (big-endian u64; 0x69, u32 UTF-8 length, UTF-8)', () => {
    fc.assert(
      fc.property(seqs, (n) => {
        const want = Buffer.alloc(8);
        want.writeBigUInt64BE(BigInt(n));
        expect(u64(n).equals(want)).toBe(true);
      }),
    );
    const text = fc.string({
      unit: fc.constantFrom('a', 'Z', '-', ':', '\u007f', '\u0080', '\u00e9', '\u20ac', '\u{1f600}'),
      maxLength: 12,
    });
    fc.assert(
      fc.property(text, text, (source, id) => {
        const len = Buffer.alloc(4);
        len.writeUInt32BE(Buffer.byteLength(source));
        const want = Buffer.concat([Buffer.from([P.dedup]), len, Buffer.from(source, 'utf8'), Buffer.from(id, 'utf8')]);
        expect(dedupKey(source, id).equals(want)).toBe(true);
      }),
    );
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
