// The wire encodings of docs/design.md §3: strict base64url, lowercase hex, sha256: hash strings, RFC 3339
// UTC times with milliseconds; one spelling per value.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  bytesEqual,
  concatBytes,
  decodeUtf8,
  formatHash,
  formatTime,
  fromBase64url,
  fromHex,
  fromUtf8,
  isBase64url,
  isHashString,
  isTime,
  parseHash,
  textToBase64url,
  timeMs,
  toBase64Std,
  toBase64StdPortable,
  toBase64url,
  toHex,
  utf8OfBase64url,
  utf8,
} from './wire.ts';

describe('base64url', () => {
  it('round-trips any bytes and matches Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (b) => {
        const s = toBase64url(b);
        expect(s).toBe(Buffer.from(b).toString('base64url'));
        const r = fromBase64url(s);
        expect(r.ok && bytesEqual(r.value, b)).toBe(true);
        expect(isBase64url(s)).toBe(true);
      }),
    );
  });

  it('isBase64url accepts exactly what fromBase64url decodes', () => {
    const chars = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/= '.split(''));
    fc.assert(
      fc.property(fc.string({ unit: chars, maxLength: 12 }), (s) => {
        expect(isBase64url(s)).toBe(fromBase64url(s).ok);
      }),
      { numRuns: 2000 },
    );
  });

  it('textToBase64url is base64url of the UTF-8 of the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (t) => {
        expect(textToBase64url(t)).toBe(toBase64url(utf8(t)));
      }),
    );
  });

  it('encodes a subarray view, not the whole buffer', () => {
    const big = Uint8Array.from([1, 2, 3, 4, 5]);
    expect(toBase64url(big.subarray(1, 3))).toBe(Buffer.from([2, 3]).toString('base64url'));
  });

  it('refuses padding, the standard alphabet, impossible lengths and non-canonical trailing bits', () => {
    for (const s of ['AQ==', 'A+8', 'A/8', 'A', 'AQ=', ' AQ', 'AR', 'AQE', 'AQF']) {
      const r = fromBase64url(s);
      if (s === 'AQE') expect(r.ok).toBe(true);
      else expect(r.ok, s).toBe(false);
      expect(isBase64url(s), s).toBe(r.ok);
    }
  });
});

describe('standard base64', () => {
  it('the Buffer path and the portable path give the same text, which is RFC 4648 base64', () => {
    // RFC 4648 §10 test vectors, then any bytes (subarray views included).
    const vectors: [string, string][] = [
      ['', ''],
      ['f', 'Zg=='],
      ['fo', 'Zm8='],
      ['foo', 'Zm9v'],
      ['foob', 'Zm9vYg=='],
      ['fooba', 'Zm9vYmE='],
      ['foobar', 'Zm9vYmFy'],
    ];
    for (const [plain, b64] of vectors) {
      const b = new TextEncoder().encode(plain);
      expect(toBase64Std(b)).toBe(b64);
      expect(toBase64StdPortable(b)).toBe(b64);
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(8), (bytes, cut) => {
        const view = bytes.subarray(Math.min(cut, bytes.length));
        const want = Buffer.from(view).toString('base64');
        expect(toBase64Std(view)).toBe(want);
        expect(toBase64StdPortable(view)).toBe(want);
      }),
    );
  });
});

describe('hex and hashes', () => {
  it('hex round-trips and refuses uppercase and odd lengths', () => {
    expect(toHex(Uint8Array.from([0, 15, 255]))).toBe('000fff');
    expect(fromHex('000fff')).toEqual({ ok: true, value: Uint8Array.from([0, 15, 255]) });
    expect(fromHex('0F').ok).toBe(false);
    expect(fromHex('abc').ok).toBe(false);
  });

  it('formats and parses sha256: hash strings strictly', () => {
    const h = formatHash(new Uint8Array(32).fill(0xab));
    expect(h).toBe('sha256:' + 'ab'.repeat(32));
    expect(isHashString(h)).toBe(true);
    expect(parseHash(h)).toMatchObject({ ok: true });
    for (const bad of ['sha256:' + 'AB'.repeat(32), 'sha256:' + 'ab'.repeat(31), 'sha512:' + 'ab'.repeat(32), 'ab'.repeat(32), 42, null]) {
      expect(isHashString(bad)).toBe(false);
      expect(parseHash(bad)).toMatchObject({ ok: false, code: 'invalid_hash' });
    }
    expect(() => formatHash(new Uint8Array(31))).toThrow(TypeError);
  });
});

describe('times', () => {
  it('accepts only RFC 3339 UTC with Z and exactly three fraction digits, on real dates', () => {
    expect(isTime('2026-11-30T10:00:00.123Z')).toBe(true);
    expect(isTime('2028-02-29T23:59:59.999Z')).toBe(true);
    for (const t of [
      '2026-11-30T10:00:00Z',
      '2026-11-30T10:00:00.12Z',
      '2026-11-30T10:00:00.1234Z',
      '2026-11-30T10:00:00.123+00:00',
      '2026-11-30t10:00:00.123z',
      '2026-02-30T00:00:00.000Z',
      '2026-11-30T24:00:00.000Z',
      '2026-11-30 10:00:00.000Z',
      1,
      null,
    ]) {
      expect(isTime(t), String(t)).toBe(false);
    }
  });

  it('formatTime writes the one spelling and timeMs reads it back', () => {
    const ms = Date.UTC(2026, 10, 30, 10, 0, 0, 7);
    expect(formatTime(ms)).toBe('2026-11-30T10:00:00.007Z');
    expect(formatTime(new Date(ms))).toBe('2026-11-30T10:00:00.007Z');
    expect(timeMs('2026-11-30T10:00:00.007Z')).toBe(ms);
  });
});

describe('bytes', () => {
  it("utf8 gives TextEncoder's bytes (lone surrogates included) as a plain Uint8Array whose slice copies", () => {
    const te = new TextEncoder();
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.string({ unit: 'grapheme', maxLength: 200 }),
          fc.constant('a\ud800b\udc00'),
        ),
        (t) => {
          const b = utf8(t);
          expect(Object.getPrototypeOf(b)).toBe(Uint8Array.prototype);
          expect(bytesEqual(b, te.encode(t))).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
    const b = utf8('abc');
    const c = b.slice();
    c[0] = 0x7a;
    expect(fromUtf8(b)).toBe('abc');
  });

  it('utf8 round-trips and fromUtf8 refuses invalid UTF-8', () => {
    expect(fromUtf8(utf8('é😀'))).toBe('é😀');
    expect(() => fromUtf8(Uint8Array.from([0xc3]))).toThrow();
  });

  it('concatBytes and bytesEqual', () => {
    expect(concatBytes(Uint8Array.from([1]), new Uint8Array(0), Uint8Array.from([2, 3]))).toEqual(Uint8Array.from([1, 2, 3]));
    expect(bytesEqual(Uint8Array.from([1, 2]), Uint8Array.from([1, 2]))).toBe(true);
    expect(bytesEqual(Uint8Array.from([1, 2]), Uint8Array.from([1, 3]))).toBe(false);
    expect(bytesEqual(Uint8Array.from([1]), Uint8Array.from([1, 0]))).toBe(false);
  });
});

describe('fast paths agree with the reference definitions', () => {
  it('isTime equals "Date.parse round-trips through toISOString" for random strings near the format', () => {
    const ref = (s: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(s) &&
      Number.isFinite(Date.parse(s)) &&
      new Date(Date.parse(s)).toISOString() === s;
    const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((a) => a.join(''));
    const near = fc
      .tuple(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), digits(3))
      .map(([y, mo, d, h, mi, se, ms]) => `${y}-${mo}-${d}T${h}:${mi}:${se}.${ms}Z`);
    fc.assert(
      fc.property(near, (s) => {
        expect(isTime(s), s).toBe(ref(s));
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }), (d) => {
        expect(isTime(d.toISOString())).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
  it('fromBase64url accepts exactly what Buffer re-encodes to the same string', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), maxLength: 12 }),
        (s) => {
          const canonical = s.length % 4 !== 1 && Buffer.from(Buffer.from(s, 'base64url')).toString('base64url') === s;
          expect(fromBase64url(s).ok, s).toBe(canonical);
        },
      ),
      { numRuns: 5000 },
    );
  });
  it('toHex equals Buffer hex on views', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(8), (b, off) => {
        const v = b.subarray(Math.min(off, b.length));
        expect(toHex(v)).toBe(Buffer.from(v).toString('hex'));
      }),
    );
  });
});

describe('utf8OfBase64url (the text of a cookwalasig)', () => {
  /** The two-step reading it replaces. */
  const reference = (s: string) => {
    const b = fromBase64url(s);
    return b.ok ? decodeUtf8(b.value) : b;
  };
  it('property: the same text or the same verdict as fromBase64url then decodeUtf8', () => {
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 20 }).map((t) => new TextEncoder().encode(t)),
      fc.constantFrom(Uint8Array.from([0xef, 0xbb, 0xbf, 0x41]), Uint8Array.from([0xc0, 0x80]), Uint8Array.from([0xed, 0xa0, 0x80])),
    );
    const text = fc.oneof(
      bytes.map((b) => toBase64url(b)),
      bytes.map((b) => toBase64url(b) + 'A'),
      bytes.map((b) => Buffer.from(b).toString('base64')),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(utf8OfBase64url(t)).toEqual(reference(t));
      }),
      { numRuns: 3000 },
    );
    expect(utf8OfBase64url(toBase64url(new TextEncoder().encode('{"a":"é"}')))).toEqual({ ok: true, value: '{"a":"é"}' });
    expect(utf8OfBase64url(toBase64url(Uint8Array.from([0xff])))).toMatchObject({ ok: false, code: 'bad_request' });
  });
});
