// The stored forms of entries and payloads: exact round trips (member order included), the
// compact binary form for the shapes the sequencer makes, the JSON form for anything else.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEntry, type Entry } from '../verifier/documents/entry.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';
import { decodeEntry, encodeEntry } from './entry-codec.ts';
import { writeBase64urlBytes } from '../verifier/encoding/index.ts';
import { decodePayload, encodePayload } from './payload-codec.ts';

const H = (c: string) => 'sha256:' + c.repeat(64);
const SIG = Buffer.alloc(64, 7).toString('base64url');

function entry(over: Partial<Entry> & { ce?: Entry['ce'] } = {}): Entry {
  return buildEntry({
    log: 'l.example/x',
    seq: 5,
    prev: H('a'),
    sequencedAt: '2026-11-30T10:00:00.123Z',
    ce: { source: 'urn:dev:1', id: 'e-5', type: 'cookwala.execution.running' },
    eventHash: H('b'),
    eventSignature: { alg: 'EdDSA', kid: 'dev-1', signedAt: '2026-11-30T09:59:59.999Z', sig: SIG },
    ...over,
  });
}

function roundTrip(e: Entry): Buffer {
  const b = encodeEntry(e);
  const back = decodeEntry(b, e.log, e.seq);
  expect(JSON.stringify(back)).toBe(JSON.stringify(e)); // equal, and in the same member order
  return b;
}

describe('entry codec', () => {
  it('buildEntry shapes take the binary form, at well under the JSON size', () => {
    const e = entry({ ce: { source: 'urn:dev:1', id: 'e-5', type: 't', subject: 'exec-1', cookwalaseq: 0 } });
    const b = roundTrip(e);
    expect(b[0]).toBe(0x01);
    expect(b.length).toBeLessThan(JSON.stringify(e).length * 0.6);
  });

  it('random buildEntry-shaped entries round-trip in binary', () => {
    fc.assert(
      fc.property(
        fc.record({
          seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
          source: fc.string({ unit: 'grapheme', maxLength: 40 }),
          id: fc.string({ unit: 'grapheme', maxLength: 40 }),
          type: fc.string({ maxLength: 40 }),
          subject: fc.option(fc.string({ unit: 'grapheme', maxLength: 40 }), { nil: undefined }),
          cookwalaseq: fc.option(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), { nil: undefined }),
          ms: fc.integer({ min: 0, max: Date.parse('9999-12-31T23:59:59.999Z') }),
          alg: fc.constantFrom('EdDSA' as const, 'ES256' as const),
          sig: fc.uint8Array({ minLength: 0, maxLength: 80 }),
          hashes: fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { minLength: 3, maxLength: 3 }),
        }),
        (r) => {
          const ce: Entry['ce'] = { source: r.source, id: r.id, type: r.type };
          if (r.subject !== undefined) ce.subject = r.subject;
          if (r.cookwalaseq !== undefined) ce.cookwalaseq = r.cookwalaseq;
          const hex = r.hashes.map((h) => 'sha256:' + Buffer.from(h).toString('hex'));
          const t = new Date(r.ms).toISOString();
          const e = {
            ...entry({
              seq: r.seq,
              prev: hex[0],
              eventHash: hex[1],
              sequencedAt: t,
              ce,
              eventSignature: { alg: r.alg, kid: r.id, signedAt: t, sig: Buffer.from(r.sig).toString('base64url') },
            }),
            hash: hex[2],
          };
          expect(roundTrip(e)[0]).toBe(0x01);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('any strings at all (lone surrogates included) come back exactly, in whichever form', () => {
    const units = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 });
    fc.assert(
      fc.property(units, units, units, (source, id, subject) => {
        // (buildEntry itself refuses lone surrogates, as JCS does; the codec must not rely on it)
        roundTrip({ ...entry(), ce: { source, id, type: 't', subject } });
      }),
      { numRuns: 300 },
    );
  });

  it('anything else is kept as JSON, unchanged', () => {
    const base = entry();
    const variants: Entry[] = [
      { ...base, 'x-acme-note': 'kept' } as Entry,
      { ...base, sequencedAt: '2026-11-30T10:00:00Z' },
      { ...base, eventSignature: { ...base.eventSignature, sig: SIG + '=' } },
      { ...base, eventSignature: { ...base.eventSignature, alg: 'RS256' as 'EdDSA' } },
      { ...base, ce: { id: 'e-5', source: 'urn:dev:1', type: 't' } }, // another member order
      { ...base, ce: { ...base.ce, cookwalaseq: -1 } },
      { ...base, sequencedAt: '1969-12-31T23:59:59.999Z' },
      { ...base, hash: 'sha256:' + 'A'.repeat(64) },
      { ...base, eventHash: 'sha256:' + 'g'.repeat(64) },
      { ...base, hash: 'sha256:' + 'a'.repeat(63) + '\u0130' }, // a char past 127 where a digit goes
      { ...base, ce: { ...base.ce, cookwalaseq: 1, subject: 'x' } }, // subject after cookwalaseq
      { ...base, ce: { ...base.ce, extra: 'x' } as Entry['ce'] },
      { ...base, ce: { ...base.ce, id: 'lone \ud800 surrogate' } }, // UTF-8 cannot carry it; JSON can
    ];
    for (const v of variants) expect(roundTrip(v)[0]).toBe(0x7b);
  });

  it("the signature's one-pass base64url decode accepts exactly the texts Buffer's round trip does", () => {
    const viaBuffer = (x: string): Buffer | undefined => {
      const n = Math.floor((x.length * 3) / 4);
      const b = Buffer.alloc(n);
      return b.write(x, 0, n, 'base64url') === n && b.toString('base64url') === x ? b : undefined;
    };
    const agree = (x: string) => {
      const n = Math.floor((x.length * 3) / 4);
      const b = Buffer.alloc(n + 2, 0xee);
      const ok = writeBase64urlBytes(x, b, 1, n);
      const want = viaBuffer(x);
      expect(ok, JSON.stringify(x)).toBe(want !== undefined);
      if (want) expect(b.subarray(1, 1 + n).equals(want)).toBe(true);
    };
    const digits = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 80 }).map((u) => Buffer.from(u).toString('base64url')),
          fc.string({ unit: fc.constantFrom(...'AQgw-_+/= \u00e9'.split('')), maxLength: 12 }),
          fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.nat(63)).map(([u, k]) => {
            const t = Buffer.from(u).toString('base64url');
            return t.slice(0, -1) + digits[k]; // the last digit changed: its unused bits may now be set
          }),
        ),
        agree,
      ),
    );
    for (const x of ['', 'A', 'AA', 'AB', 'AAA', 'AAB', 'AAAA', 'AA==', 'A+/A', 'AAA\u0100']) agree(x);
  });

  it('a prev the caller vouches for gives the same bytes; any other prev is still checked', () => {
    const e = entry();
    expect(encodeEntry(e, e.prev).equals(encodeEntry(e))).toBe(true);
    const bad = { ...e, prev: 'sha256:' + 'A'.repeat(64) };
    expect(encodeEntry(bad, e.prev)[0]).toBe(0x7b); // not the vouched string: checked, so JSON
    expect(roundTrip(bad)[0]).toBe(0x7b);
  });

  it('values cut from one slab stay apart: many kept encodings all decode back (entries and payloads)', () => {
    const es = Array.from({ length: 3000 }, (_, i) => entry({ seq: i + 1, ce: { source: 'urn:dev:' + i, id: 'e-' + i, type: 't' } }));
    const ps = Array.from(
      { length: 300 },
      (_, i) =>
        ({
          specversion: '1.0',
          id: 'p' + i,
          source: 's',
          type: 't',
          data_base64: Buffer.alloc(600 + i, i).toString('base64'),
        }) as CloudEvent,
    );
    const eb = es.map((e) => encodeEntry(e));
    const pb = ps.map((p) => encodePayload(p));
    es.forEach((e, i) => expect(decodeEntry(eb[i], e.log, e.seq)).toEqual(e));
    ps.forEach((p, i) => expect(decodePayload(pb[i])).toEqual(p));
  });

  it('a damaged binary record is reported', () => {
    const b = encodeEntry(entry());
    expect(() => decodeEntry(b.subarray(0, b.length - 1), 'l', 5)).toThrow();
    expect(() => decodeEntry(Buffer.from([9, 9]), 'l', 5)).toThrow(/unknown encoding/);
  });
});

describe('payload codec', () => {
  const ev = (extra: Record<string, unknown>) => ({ specversion: '1.0', id: 'i', source: 's', type: 't', ...extra }) as CloudEvent;

  it('canonical data_base64 is stored raw; order and value come back exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 48, maxLength: 2000 }), fc.boolean(), (data, after) => {
        const b64 = Buffer.from(data).toString('base64');
        const ce = after
          ? ev({ data_base64: b64, datacontenttype: 'application/octet-stream' })
          : ev({ datacontenttype: 'x', data_base64: b64 });
        const stored = encodePayload(ce);
        expect(stored[0]).toBe(0x01);
        expect(stored.length).toBe(5 + JSON.stringify(ce).length - b64.length + data.length);
        expect(JSON.stringify(decodePayload(stored))).toBe(JSON.stringify(ce));
      }),
      { numRuns: 200 },
    );
  });

  it('JSON data, short or non-canonical base64 stay JSON', () => {
    const long = Buffer.alloc(91, 1).toString('base64'); // ends in '='
    for (const ce of [
      ev({ data: { a: [1, 'x', null] } }),
      ev({ data_base64: 'AAEC' }),
      ev({ data_base64: long.replace(/=+$/, '') }),
      ev({ data_base64: long.replace('A', '-') }),
    ]) {
      const stored = encodePayload(ce);
      expect(stored[0]).toBe(0x7b);
      expect(JSON.stringify(decodePayload(stored))).toBe(JSON.stringify(ce));
    }
    expect(() => encodePayload(ev({ data: { n: 1n } }))).toThrow(TypeError);
  });
});
