// The strict DER reader used for Wycheproof DER files: minimal encodings round-trip to r||s, and
// every non-DER spelling (BER lengths, padding, negative or oversized integers, trailing or missing
// parts) is refused, since the runner scores a refused encoding as an invalid signature.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { derToRawSignature, rawSignatureToDer } from './der.ts';

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s/g, ''), 'hex'));
const r32 = '01'.repeat(32);
const s32 = '7f'.repeat(32);
const good = `3044 0220${r32} 0220${s32}`;

describe('derToRawSignature', () => {
  it('round-trips any r||s through the minimal DER encoding', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), (raw) => {
        const back = derToRawSignature(rawSignatureToDer(raw));
        expect(back && Buffer.from(back).toString('hex')).toBe(Buffer.from(raw).toString('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('reads a plain signature and one whose r needs a sign byte', () => {
    expect(Buffer.from(derToRawSignature(hex(good))!).toString('hex')).toBe(r32 + s32);
    const high = 'ff'.repeat(32);
    expect(Buffer.from(derToRawSignature(hex(`3045 022100${high} 0220${s32}`))!).toString('hex')).toBe(high + s32);
    expect(Buffer.from(derToRawSignature(hex('3006 020101 020102'))!).toString('hex')).toBe(
      '00'.repeat(31) + '01' + '00'.repeat(31) + '02',
    );
  });

  it.each([
    ['trailing byte after the SEQUENCE', `${good}00`],
    ['BER long-form length for a short SEQUENCE', `308144 0220${r32} 0220${s32}`],
    ['indefinite length', `3080 0220${r32} 0220${s32} 0000`],
    ['long-form length with a leading zero byte', `30820044 0220${r32} 0220${s32}`],
    ['SEQUENCE length too long', `3045 0220${r32} 0220${s32}`],
    ['SEQUENCE length too short', `3043 0220${r32} 0220${s32}`],
    ['wrong outer tag', `3144 0220${r32} 0220${s32}`],
    ['wrong INTEGER tag', `3044 0320${r32} 0220${s32}`],
    ['superfluous leading zero in r', `3045 022100${r32} 0220${s32}`],
    ['negative r', `3044 0220${'80'.repeat(32)} 0220${s32}`],
    ['empty INTEGER', `3022 0200 0220${s32}`],
    ['r of 33 significant bytes', `3046 022201${'00'.repeat(32)} 0220${s32}`],
    ['s missing', `3022 0220${r32}`],
    ['a third INTEGER', `3047 0220${r32} 0220${s32} 020101`],
    ['empty input', ''],
  ])('refuses %s', (_what, h) => {
    expect(derToRawSignature(hex(h))).toBeNull();
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (b) => {
        const r = derToRawSignature(b);
        expect(r === null || r.length === 64).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
