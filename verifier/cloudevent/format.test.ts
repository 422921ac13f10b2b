// The CloudEvents attribute formats: RFC 3339 timestamps, RFC 3986 URI-references and URIs,
// RFC 2046 media types (with the JSON test of json-format §3.1) and RFC 4648 base64.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromBase64, isAbsoluteUri, isJsonMediaType, isMediaType, isRfc3339, isUriReference, toBase64 } from './format.ts';

describe('isRfc3339', () => {
  it('accepts the RFC 3339 date-time forms CloudEvents allows', () => {
    for (const t of [
      '2018-04-05T17:31:00Z',
      '2018-04-05T17:31:00.123456Z',
      '2018-04-05t17:31:00z',
      '2018-04-05T17:31:00+05:30',
      '2018-04-05T17:31:00-00:00',
      '2016-12-31T23:59:60Z',
      '2024-02-29T00:00:00Z',
    ]) {
      expect(isRfc3339(t), t).toBe(true);
    }
  });
  it('refuses other spellings and impossible dates', () => {
    for (const t of [
      '2018-04-05 17:31:00',
      '2018-04-05T17:31:00',
      '2018-04-05T17:31Z',
      '2018-4-05T17:31:00Z',
      '2023-02-29T00:00:00Z',
      '2018-13-01T00:00:00Z',
      '2018-04-31T00:00:00Z',
      '2018-04-05T24:00:00Z',
      '2018-04-05T17:61:00Z',
      '2018-04-05T17:31:00+24:00',
      '2018-04-05T17:31:00.Z',
      '2018-04-05T17:31:00+0530',
      '',
      5,
      null,
    ]) {
      expect(isRfc3339(t), String(t)).toBe(false);
    }
  });
});

describe('isRfc3339 on the usual spelling (the isTime path)', () => {
  // The grammar's rule for every date-time of Cookwala's own spelling, written out here.
  const reference = (t: string) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/.exec(t);
    if (!m) return false;
    const [y, mo, d, h, mi, s] = m.slice(1).map(Number);
    const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
    return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h <= 23 && mi <= 59 && s <= 60;
  };
  it('agrees with the grammar on millisecond UTC texts, valid or not, leap days and leap seconds included (property)', () => {
    const two = (hi: number) => fc.integer({ min: 0, max: hi }).map((n) => String(n).padStart(2, '0'));
    const text = fc
      .tuple(
        fc.constantFrom(1900, 2000, 2023, 2024, 2100, 9999, 0),
        two(13),
        two(32),
        two(25),
        two(61),
        two(61),
        fc.integer({ min: 0, max: 999 }),
      )
      .map(([y, mo, d, h, mi, s, ms]) => `${String(y).padStart(4, '0')}-${mo}-${d}T${h}:${mi}:${s}.${String(ms).padStart(3, '0')}Z`);
    fc.assert(
      fc.property(text, (t) => {
        expect(isRfc3339(t), t).toBe(reference(t));
      }),
      { numRuns: 2000 },
    );
    for (const t of ['2024-02-29T00:00:00.000Z', '2016-12-31T23:59:60.000Z', '2000-02-29T12:00:00.000Z'])
      expect(isRfc3339(t), t).toBe(true);
    for (const t of ['2023-02-29T00:00:00.000Z', '2100-02-29T00:00:00.000Z', '2018-04-05T24:00:00.000Z', '2018-00-05T00:00:00.000Z'])
      expect(isRfc3339(t), t).toBe(false);
  });
});

describe('URIs', () => {
  it('URI-references: absolute, network-path, relative, URNs, phone-like', () => {
    for (const u of [
      'https://github.com/cloudevents',
      'mailto:cncf-wg-serverless@lists.cncf.io',
      'urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66',
      'cloudevents/spec/pull/123',
      '/sensors/tn-1234567/alerts',
      '1-555-123-4567',
      '//github.com/cloudevents/x',
      'a%20b',
      '#frag',
      '',
    ]) {
      expect(isUriReference(u), u).toBe(true);
    }
  });
  it('refuses spaces, raw non-ASCII, bad percent-encodings, two fragments and a colon in a first relative segment', () => {
    for (const u of ['a b', 'caf\u00e9', 'a%2', 'a%zz', 'x#a#b', '1abc:def', '<x>', 'a\\b', 'a"b', 3])
      expect(isUriReference(u), String(u)).toBe(false);
  });
  it('absolute URIs need a scheme', () => {
    expect(isAbsoluteUri('https://example.org/schema.json')).toBe(true);
    expect(isAbsoluteUri('urn:x')).toBe(true);
    expect(isAbsoluteUri('/relative')).toBe(false);
    expect(isAbsoluteUri('')).toBe(false);
  });
});

describe('media types', () => {
  it('accepts type/subtype with parameters, quoted or not', () => {
    for (const m of [
      'application/json',
      'text/plain; charset=us-ascii',
      'application/vnd.apache.thrift.binary',
      'text/plain;charset="utf-8"',
      'multipart/form-data; boundary=x; a="b\\"c"',
    ])
      expect(isMediaType(m), m).toBe(true);
  });
  it('refuses anything else', () => {
    for (const m of [
      'json',
      'application/',
      '/json',
      'text/plain;',
      'text/plain; charset',
      'text /plain',
      'text/plain; a="unterminated',
      '',
      1,
    ])
      expect(isMediaType(m), String(m)).toBe(false);
  });
  it('knows JSON content types by subtype json or a +json suffix', () => {
    for (const m of [
      'application/json',
      'application/json; charset=utf-8',
      'text/json',
      'application/cloudevents+json',
      'APPLICATION/JSON',
    ])
      expect(isJsonMediaType(m), m).toBe(true);
    for (const m of ['application/xml', 'text/plain', 'application/jsonl', 'application/json-seq'])
      expect(isJsonMediaType(m), m).toBe(false);
  });
});

describe('base64 (RFC 4648 §4)', () => {
  it('round-trips and matches Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        const s = toBase64(b);
        expect(s).toBe(Buffer.from(b).toString('base64'));
        expect(fromBase64(s)).toEqual(b);
      }),
    );
  });
  it('refuses missing padding, url alphabet, whitespace and non-zero trailing bits', () => {
    for (const s of ['Zm9vYg', 'Zm9vYg=', 'Zm9v-g==', 'Zm9v Yg==', 'Zm9vYh==', '... base64 encoded string ...', 5])
      expect(fromBase64(s), String(s)).toBeUndefined();
    expect(fromBase64('')).toEqual(new Uint8Array(0));
  });
});
