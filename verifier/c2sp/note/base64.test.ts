// verifier/c2sp/note/base64.ts fromBase64Std: strict standard base64 accepts exactly the strings that
// are the canonical padded encoding of their bytes (re-encoding gives the same text), and gives
// those bytes; property over strings of the alphabet, `=` and a stray character, plus the edge cases.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromBase64Std, toBase64Std } from './base64.ts';
import { decodeCheckedBase64StdPortable, toBase64StdPortable } from '../../encoding/wire.ts';

const canonical = (s: string): Uint8Array | undefined => {
  const b = Buffer.from(s, 'base64');
  return toBase64StdPortable(b) === s ? new Uint8Array(b) : undefined;
};

describe('fromBase64Std', () => {
  it('accepts exactly the canonical padded encodings', () => {
    const ch = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/==-_ '.split(''));
    fc.assert(
      fc.property(fc.array(ch, { maxLength: 16 }), (cs) => {
        const s = cs.join('');
        const want = canonical(s);
        const r = fromBase64Std(s);
        expect(r.ok).toBe(want !== undefined);
        if (r.ok) {
          expect(r.value).toEqual(want);
          // The browsers' path decodes the same bytes.
          expect(decodeCheckedBase64StdPortable(s)).toEqual(want);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('round-trips bytes, and refuses the edge cases with their details', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (b) => {
        const r = fromBase64Std(toBase64Std(b));
        expect(r.ok && r.value).toEqual(b);
      }),
    );
    expect(fromBase64Std('')).toEqual({ ok: true, value: new Uint8Array(0) });
    for (const s of ['A', 'AA=', '====', 'A===', 'AA=A', 'AAAA\n', 'AA-_'])
      expect(fromBase64Std(s)).toMatchObject({ ok: false, detail: 'not padded standard base64' });
    for (const s of ['AB==', 'AAB=', 'AAAAAB=='])
      expect(fromBase64Std(s)).toMatchObject({ ok: false, code: 'bad_request', detail: 'non-canonical standard base64' });
  });
});
