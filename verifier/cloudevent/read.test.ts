// CloudEvents 1.0 JSON format as Cookwala reads, hashes and signs it (docs/design.md §4, §5): the shared
// vectors (cases.json, spec examples), every reading rule, binary-mode restoration through the
// real cloudevents SDK (same eventHash as structured), cookwalasig encoding, and every reason code
// of verifyEventSignature.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloudEvent as SdkEvent, HTTP } from 'cloudevents';
import {
  decodeCookwalasig,
  flatText,
  encodeCookwalasig,
  eventHash,
  normalizeBinaryExtensions,
  readCloudEvent,
  signEvent,
  verifyEventSignature,
  type CloudEvent,
} from './read.ts';
import { computeHash } from '../signing/document-hash.ts';
import { parseSignature, signHash, type Signature } from '../signing/signature.ts';
import { fromBase64url, fromUtf8, toBase64url, utf8 } from '../encoding/wire.ts';
import { parseJson } from '../encoding/strict-json.ts';
import { canonicalize, canonicalizeSlow } from '../encoding/jcs.ts';
import { setMember } from '../encoding/own-member.ts';
import { fail, ok, type Result } from '../errors.ts';
import fc from 'fast-check';
import { at, DEVICE, keyFor, lookupOf, sampleEvent, signerFor } from '../../testkit/verifier-fixtures.ts';
import { topicDir } from '../../conformance/vectors-dir.ts';

const CE_DIR = topicDir('cloudevents');

describe(`CloudEvents vectors in ${CE_DIR}`, () => {
  it('cases.json: every verdict, invalid ones with invalid_event', () => {
    const cases = JSON.parse(readFileSync(join(CE_DIR, 'cases.json'), 'utf8')).cases as { id: string; event: unknown; expected: string }[];
    expect(cases.length).toBeGreaterThan(0);
    for (const c of cases) {
      const r = readCloudEvent(c.event);
      if (c.expected === 'valid') expect(r, c.id).toMatchObject({ ok: true });
      else expect(r, c.id).toMatchObject({ ok: false, code: 'invalid_event' });
    }
  });

  it('spec examples: valid, except the placeholder "... base64 encoded string ..." which is not base64', () => {
    const dir = join(CE_DIR, 'spec-examples');
    let n = 0;
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
      const json = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      for (const ev of Array.isArray(json) ? json : [json]) {
        const r = readCloudEvent(ev);
        n++;
        if (typeof ev.data_base64 === 'string' && ev.data_base64.includes('...'))
          expect(r, f).toMatchObject({ ok: false, code: 'invalid_event', detail: expect.stringContaining('data_base64') });
        else expect(r, f).toMatchObject({ ok: true });
      }
    }
    expect(n).toBeGreaterThan(5);
  });
});

const base = { specversion: '1.0', id: 'a', source: '/ctx', type: 't' };
const valid = (o: Record<string, unknown>) => expect(readCloudEvent({ ...base, ...o }), JSON.stringify(o)).toMatchObject({ ok: true });
const invalid = (o: Record<string, unknown>) =>
  expect(readCloudEvent({ ...base, ...o }), JSON.stringify(o)).toMatchObject({ ok: false, code: 'invalid_event' });

describe('readCloudEvent', () => {
  it('returns the same object, unchanged', () => {
    const ev = sampleEvent();
    const copy = JSON.parse(JSON.stringify(ev));
    const r = readCloudEvent(ev);
    expect(r.ok && r.value).toBe(ev);
    expect(ev).toEqual(copy);
  });

  it('requires the four attributes, non-null and well typed', () => {
    for (const k of ['specversion', 'id', 'source', 'type']) {
      const { [k]: _, ...rest } = base as Record<string, unknown>;
      expect(readCloudEvent(rest)).toMatchObject({ ok: false, code: 'invalid_event' });
      invalid({ [k]: null });
    }
    invalid({ specversion: '0.3' });
    invalid({ specversion: 1.0 });
    invalid({ id: '' });
    invalid({ id: 7 });
    invalid({ source: 'a b' });
    invalid({ source: '' });
    for (const x of [null, [], 'event', 3]) expect(readCloudEvent(x)).toMatchObject({ ok: false, code: 'invalid_event' });
  });

  it('attribute names are 1 to 20 lower-case letters or digits', () => {
    valid({ abcdefghij0123456789: 'x' });
    invalid({ abcdefghij0123456789x: 'x' });
    invalid({ comExample: 'x' });
    invalid({ 'x-acme-a': 'x' });
    invalid({ data_x: 'x' });
    invalid({ '': 'x' });
  });

  it('checks optional attributes; null means unset', () => {
    valid({ subject: null, time: null, datacontenttype: null, dataschema: null, cookwalaseq: null });
    invalid({ subject: '' });
    valid({ time: '2018-04-05T17:31:00Z' });
    invalid({ time: '2018-04-05 17:31:00' });
    valid({ dataschema: 'https://example.org/s.json' });
    invalid({ dataschema: '/relative' });
    invalid({ dataschema: '' });
    invalid({ datacontenttype: 'json' });
  });

  it('extensions are strings, booleans or 32-bit integers', () => {
    valid({ ext: 'v', flag: true, n: -2147483648, m: 2147483647 });
    for (const v of [1.5, 2147483648, { a: 1 }, [1]]) invalid({ ext: v });
  });

  it('cookwalaseq is an integer from 0 to 2^31-1; cookwalasig is base64url', () => {
    valid({ cookwalaseq: 0 });
    valid({ cookwalaseq: 2147483647 });
    for (const v of [-1, 1.5, '3', 2147483648]) invalid({ cookwalaseq: v });
    invalid({ cookwalasig: 'a+b/' });
    invalid({ cookwalasig: '' });
    invalid({ cookwalasig: 5 });
  });

  it('data and data_base64: exclusive, base64 canonical, non-JSON data a string', () => {
    valid({ data: { a: 1 } });
    valid({ datacontenttype: 'application/json', data: 'a string is JSON too' });
    valid({ datacontenttype: 'application/cloudevents+json', data: [1] });
    valid({ datacontenttype: 'text/plain', data: 'hello' });
    valid({ datacontenttype: 'text/plain', data: null });
    invalid({ datacontenttype: 'text/plain', data: { a: 1 } });
    valid({ data_base64: 'Zm9vYg==' });
    valid({ data_base64: null });
    invalid({ data_base64: 'Zm9vYg' });
    invalid({ data_base64: 'Zm9vYh==' });
    invalid({ data: 'x', data_base64: 'eA==' });
    invalid({ data: null, data_base64: 'eA==' });
  });
});

describe('normalizeBinaryExtensions and eventHash', () => {
  const signer = signerFor('EdDSA', 'dev-1', 21);
  const signed = signEvent(sampleEvent(), signer, at(10));

  it('restores cookwalaseq to an Integer and leaves other extensions as strings', () => {
    const n = normalizeBinaryExtensions({ ...base, cookwalaseq: '42', cookwalalatency: 'local_safety', other: '7', skip: undefined });
    expect(n).toEqual({ ...base, cookwalaseq: 42, cookwalalatency: 'local_safety', other: '7' });
    for (const s of ['042', '-1', '1.0', '2147483648', ' 1'])
      expect(normalizeBinaryExtensions({ ...base, cookwalaseq: s }).cookwalaseq).toBe(s);
    expect(readCloudEvent(normalizeBinaryExtensions({ ...base, cookwalaseq: '042' }))).toMatchObject({ ok: false, code: 'invalid_event' });
  });

  it('turns binary data into data_base64 and Date times into strings; does not change its input', () => {
    const input = { ...base, data: Buffer.from([1, 2, 3]), time: new Date(Date.UTC(2026, 0, 2)) };
    const n = normalizeBinaryExtensions(input);
    expect(n).toEqual({ ...base, data_base64: 'AQID', time: '2026-01-02T00:00:00.000Z' });
    expect(input.data).toBeInstanceOf(Buffer);
    expect(normalizeBinaryExtensions({ ...base, data: Uint32Array.from([1, 2]) }).data_base64).toBe('AQI=');
  });

  it('with the request headers, takes time verbatim from ce-time and drops a time the SDK invented', () => {
    expect(
      normalizeBinaryExtensions({ ...base, time: '2026-01-01T00:00:00.000Z' }, { headers: { 'Ce-Time': '2018-04-05T17:31:00Z' } }).time,
    ).toBe('2018-04-05T17:31:00Z');
    expect(normalizeBinaryExtensions({ ...base, time: '2026-01-01T00:00:00.000Z' }, { headers: { 'ce-id': 'a' } })).not.toHaveProperty(
      'time',
    );
  });

  it('binary mode through the cloudevents SDK gives the structured eventHash (header strings restored)', () => {
    for (const ev of [signed, signEvent(sampleEvent({ time: undefined }), signer, at(11))]) {
      const clean = JSON.parse(JSON.stringify(ev)) as CloudEvent;
      const msg = HTTP.binary(new SdkEvent(clean as never));
      const headers = Object.fromEntries(Object.entries(msg.headers).map(([k, v]) => [k, String(v)])); // as node:http delivers them
      // The SDK invents a time when an event has none; a sender without the SDK sends no ce-time.
      if (clean.time === undefined) delete headers['ce-time'];
      expect(headers['ce-cookwalaseq']).toBe('3');
      const received = HTTP.toEvent({ headers, body: msg.body }) as unknown as object;
      const n = normalizeBinaryExtensions(received, { headers });
      expect(readCloudEvent(n)).toMatchObject({ ok: true });
      expect(n.cookwalaseq).toBe(3);
      expect(eventHash(n)).toEqual(eventHash(clean));
      expect(verifyEventSignature(n, lookupOf(keyFor(signer, 'device', DEVICE))).ok).toBe(true);
    }
  });

  it('binary payloads through the SDK come back as the same data_base64', () => {
    const ev = {
      ...base,
      source: 'urn:x',
      time: '2026-01-01T00:00:00.000Z',
      datacontenttype: 'application/octet-stream',
      data_base64: 'AQID',
    };
    const msg = HTTP.binary(new SdkEvent(ev as never));
    const headers = Object.fromEntries(Object.entries(msg.headers).map(([k, v]) => [k, String(v)]));
    const n = normalizeBinaryExtensions(HTTP.toEvent({ headers, body: msg.body }) as unknown as object, { headers });
    expect(n).toEqual(ev);
    expect(eventHash(n)).toEqual(eventHash(ev as CloudEvent));
  });

  it('eventHash leaves out cookwalasig and null attributes, keeps data: null', () => {
    const ev = sampleEvent();
    expect(eventHash(signed)).toEqual(eventHash(ev));
    expect(eventHash({ ...ev, dataschema: null } as CloudEvent)).toEqual(eventHash(ev));
    const { data: _d, ...noData } = ev;
    expect(eventHash({ ...noData, data: null } as CloudEvent)).not.toEqual(eventHash(noData as CloudEvent));
    const { cookwalasig: _c, ...unsigned } = signed;
    expect(eventHash(signed)).toEqual(computeHash(unsigned as never));
    expect(eventHash({ ...ev, data: { t: 92 } })).not.toEqual(eventHash(ev));
  });

  it('eventHash refuses what would hash differently once normalized', () => {
    expect(eventHash({ ...sampleEvent(), data: Buffer.from([1]) })).toMatchObject({ ok: false, code: 'invalid_event' });
    expect(eventHash({ ...sampleEvent(), time: new Date() as unknown as string })).toMatchObject({ ok: false, code: 'invalid_event' });
    expect(eventHash({ ...sampleEvent(), specversion: '0.3' as '1.0' })).toMatchObject({ ok: false, code: 'invalid_event' });
    expect(eventHash([] as unknown as CloudEvent)).toMatchObject({ ok: false, code: 'invalid_event' });
    expect(eventHash({ ...sampleEvent(), data: { x: NaN } })).toMatchObject({ ok: false, code: 'noncanonical_number' });
  });
});

describe('eventHash writes the canonical text directly', () => {
  /** The filtered copy hashed by computeHash (what eventHash did before writing the text itself). */
  function viaCopy(ce: Record<string, unknown>): Result<string> {
    if (!ce || typeof ce !== 'object' || Array.isArray(ce)) return fail('invalid_event', 'not an object');
    const view: Record<string, unknown> = {};
    for (const k of Object.keys(ce)) {
      const v = ce[k];
      if (k === 'cookwalasig' || v === undefined) continue;
      if (k !== 'data' && v === null) continue;
      if (k !== 'data' && typeof v === 'object') return fail('invalid_event', 'object attribute');
      Object.defineProperty(view, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    if (view.specversion !== '1.0') return fail('invalid_event', 'specversion');
    return computeHash(view as never);
  }
  const text = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.string({ unit: 'binary', maxLength: 6 }),
    fc.constantFrom('', '"', '\\', '\u0001', '\u2028', '\ud800', '😀', '10', '__proto__'),
  );
  const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
  const event = fc
    .record({
      extra: fc.dictionary(fc.oneof(text, fc.constantFrom('10', '9', 'a1', 'zz')), scalar, { maxKeys: 4 }),
      data: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }),
      id: text,
      subject: fc.option(text, { nil: undefined }),
    })
    .map(({ extra, data, id, subject }) => {
      const ce: Record<string, unknown> = JSON.parse(JSON.stringify(extra));
      Object.assign(ce, { specversion: '1.0', id, source: 'urn:dev:1', type: 't', cookwalasig: 'AAAA' });
      if (subject !== undefined) ce.subject = subject;
      if (data !== undefined) ce.data = data;
      return ce;
    });

  it('property: the same hash, or the same refusal, as hashing the filtered copy', () => {
    fc.assert(
      fc.property(event, (ce) => {
        const want = viaCopy(ce);
        const got = eventHash(ce as CloudEvent);
        expect(got.ok).toBe(want.ok);
        if (want.ok) expect(got).toEqual(want);
        else if (!got.ok) expect(got.code).toBe(want.code);
      }),
      { numRuns: 1500 },
    );
  });

  it('fixed cases: integer-like and __proto__ names, null attributes, data null, -0 and escapes', () => {
    for (const t of [
      '{"specversion":"1.0","id":"a","source":"s","type":"t","10":"x","9":true,"__proto__":"p","data":null}',
      '{"specversion":"1.0","id":"a\\u0041","source":"s","type":"t","subject":null,"data":{"b":[1,-0,"\\u00e9"]}}',
      '{"specversion":"1.0","id":"a","source":"s","type":"t","x":-0,"data":"text"}',
    ]) {
      const ce = JSON.parse(t);
      expect(eventHash(ce)).toEqual(viaCopy(ce));
    }
    expect(eventHash({ id: 'a' } as never)).toMatchObject({ ok: false, code: 'invalid_event' });
  });
});

describe('cookwalasig', () => {
  const signer = signerFor('ES256', 'dev-2', 22);
  const sig = signHash('sha256:' + '1'.repeat(64), 'Event', signer, at(1));

  it('is base64url(JCS(Signature)) and decodes back', () => {
    const s = encodeCookwalasig(sig);
    expect(Buffer.from(s, 'base64url').toString('utf8')).toBe(
      JSON.stringify({ alg: sig.alg, kid: sig.kid, sig: sig.sig, signedAt: sig.signedAt }),
    );
    expect(decodeCookwalasig(s)).toEqual({ ok: true, value: sig });
  });

  it('refuses anything that is not exactly that', () => {
    const enc = (text: string) => toBase64url(utf8(text));
    expect(decodeCookwalasig(encodeCookwalasig(sig) + '=')).toMatchObject({ code: 'malformed_signature' });
    expect(decodeCookwalasig(toBase64url(Uint8Array.from([0xff, 0xfe])))).toMatchObject({ code: 'malformed_signature' });
    expect(decodeCookwalasig(enc('{not json'))).toMatchObject({ code: 'malformed_signature' });
    expect(decodeCookwalasig(enc(JSON.stringify(sig)))).toMatchObject({ code: 'malformed_signature' }); // members not in JCS order
    expect(decodeCookwalasig(enc('{"alg":"EdDSA", "kid":"k","sig":"AA","signedAt":"' + at(1) + '"}'))).toMatchObject({
      code: 'malformed_signature',
    });
    expect(decodeCookwalasig(encodeCookwalasig({ ...sig, extra: 1 } as never))).toMatchObject({ code: 'unknown_field' });
    expect(decodeCookwalasig(encodeCookwalasig({ ...sig, alg: 'none' } as never))).toMatchObject({ code: 'unsupported_alg' });
    expect(decodeCookwalasig(5 as unknown as string)).toMatchObject({ code: 'malformed_signature' });
  });

  /** The strict reading alone (what decodeCookwalasig did before its one-pass shortcut). */
  function strictReference(s: string): Result<Signature> {
    const b = fromBase64url(s);
    if (!b.ok) return fail('malformed_signature', 'cookwalasig is not base64url without padding');
    let text: string;
    try {
      text = fromUtf8(b.value);
    } catch {
      return fail('malformed_signature', 'cookwalasig is not UTF-8');
    }
    const json = parseJson(text);
    if (!json.ok)
      return json.code === 'duplicate_member'
        ? { ...json, detail: `cookwalasig: ${json.detail}` }
        : fail('malformed_signature', 'cookwalasig does not decode to JSON');
    const p = parseSignature(json.value);
    if (!p.ok) return p;
    const c = canonicalize(p.value);
    if (!c.ok || c.value !== text) return fail('malformed_signature', 'cookwalasig is not the JCS form of its Signature');
    return ok(p.value);
  }

  it("property: the one-pass reading gives the strict reading's value or code on near-miss texts", () => {
    const enc = (text: string) => toBase64url(utf8(text));
    const piece = fc.oneof(
      fc.constantFrom('EdDSA', 'ES256', 'none', sig.kid, sig.sig, sig.signedAt, at(2), '', 'k\u00e9', 'a"b', 'a\\b', '\u0001', '\ud800'),
      fc.string({ maxLength: 6 }),
    );
    const text = fc.oneof(
      // a well-formed signature, maybe with one member changed
      fc
        .record({ alg: piece, kid: piece, sig: piece, signedAt: piece })
        .map((o) => JSON.stringify({ alg: o.alg, kid: o.kid, sig: o.sig, signedAt: o.signedAt })),
      fc.constant(JSON.stringify({ alg: sig.alg, kid: sig.kid, sig: sig.sig, signedAt: sig.signedAt })),
      // the right text bent: whitespace, reordering, a repeated name, nesting, an extra member
      fc.constantFrom(
        `{"alg":"${sig.alg}","kid":"${sig.kid}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}"}`,
        `{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}","x-v-n":[1]}`,
        `{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}","x-v-n":{"a":1}}`,
        `{"alg":"${sig.alg}","kid":"k\\u0041","sig":"${sig.sig}","signedAt":"${sig.signedAt}"}`,
        `{"alg":"${sig.alg}","kid":"${sig.kid}","signedAt":"${sig.signedAt}","sig":"${sig.sig}"}`,
        ` {"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}"}`,
        `{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}"}x`,
        `[{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}"}]`,
        `{"alg":"${sig.alg}","kid":1,"sig":"${sig.sig}","signedAt":"${sig.signedAt}"}`,
        // texts that fool a scanner looking for the separators: a separator inside a value, a
        // second closing, a member cut short, an empty value, a name without its value
        `{"alg":"${sig.alg}","kid":"x","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}"}`,
        `{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}"}"}`,
        `{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}","x":"y"}`,
        `{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"}`,
        `{"alg":"${sig.alg}","kid":"","sig":"${sig.sig}","signedAt":"${sig.signedAt}"}`,
        `{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt"}`,
        `{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}\\"","signedAt":"${sig.signedAt}"}`,
      ),
    );
    fc.assert(
      fc.property(text, (t) => {
        const s = enc(t);
        expect(decodeCookwalasig(s)).toEqual(strictReference(s));
      }),
      { numRuns: 1000 },
    );
    // The usual text is taken by the shortcut and equals the strict value.
    const s = encodeCookwalasig(sig);
    expect(decodeCookwalasig(s)).toEqual(strictReference(s));
    expect(strictReference(s).ok).toBe(true);
  });
});

describe('signEvent and verifyEventSignature', () => {
  for (const alg of ['EdDSA', 'ES256'] as const) {
    describe(alg, () => {
      const signer = signerFor(alg, `dev-${alg}`, 23);
      const key = keyFor(signer, 'device', DEVICE, { validFrom: at(0), revokedAt: at(60_000) });
      const lookup = lookupOf(key);
      const ev = signEvent(sampleEvent(), signer, at(1_000));

      it('verifies and returns eventHash, signature and key', () => {
        const r = verifyEventSignature(ev, lookup);
        expect(r).toMatchObject({ ok: true, value: { eventHash: (eventHash(ev) as { value: string }).value, key, legacy: false } });
        expect(r.ok && r.value.signature).toEqual((decodeCookwalasig(ev.cookwalasig!) as { value: unknown }).value);
      });

      it('does not change the event it signs, and replaces an old cookwalasig', () => {
        const plain = sampleEvent();
        const copy = JSON.parse(JSON.stringify(plain));
        const again = signEvent(ev, signer, at(2_000));
        expect(plain).toEqual(copy);
        expect(again.cookwalasig).not.toBe(ev.cookwalasig);
        expect(verifyEventSignature(again, lookup).ok).toBe(true);
      });

      it('bad_signature: a changed event, a missing signature, a signature moved from another event', () => {
        expect(verifyEventSignature({ ...ev, data: { state: 'running', tempC: 250 } }, lookup)).toMatchObject({
          ok: false,
          code: 'bad_signature',
        });
        expect(verifyEventSignature({ ...ev, subject: 'exec-43' }, lookup)).toMatchObject({ ok: false, code: 'bad_signature' });
        const { cookwalasig: _s, ...unsigned } = ev;
        expect(verifyEventSignature(unsigned as CloudEvent, lookup)).toMatchObject({ ok: false, code: 'bad_signature' });
        const other = signEvent(sampleEvent({ id: 'ev-0002' }), signer, at(1_000));
        expect(verifyEventSignature({ ...ev, cookwalasig: other.cookwalasig }, lookup)).toMatchObject({ ok: false, code: 'bad_signature' });
      });

      it('unknown_key, key_revoked, key_not_valid_at, key_role_mismatch, source_mismatch', () => {
        expect(verifyEventSignature(ev, () => undefined)).toMatchObject({ ok: false, code: 'unknown_key' });
        expect(verifyEventSignature(signEvent(sampleEvent(), signer, at(60_000)), lookup)).toMatchObject({
          ok: false,
          code: 'key_revoked',
        });
        expect(verifyEventSignature(signEvent(sampleEvent(), signer, at(-1)), lookup)).toMatchObject({
          ok: false,
          code: 'key_not_valid_at',
        });
        expect(verifyEventSignature(ev, lookupOf({ ...key, role: 'witness' }))).toMatchObject({ ok: false, code: 'key_role_mismatch' });
        const elsewhere = signEvent(sampleEvent({ source: 'urn:cookwala:device:other' }), signer, at(1_000));
        expect(verifyEventSignature(elsewhere, lookup)).toMatchObject({ ok: false, code: 'source_mismatch' });
        expect(verifyEventSignature(elsewhere, lookup, { checkSource: false }).ok).toBe(true);
        expect(verifyEventSignature(ev, lookupOf({ ...key, role: 'sequencer' }), { role: 'sequencer' }).ok).toBe(true);
      });

      it('malformed_signature and invalid_event pass through', () => {
        expect(verifyEventSignature({ ...ev, cookwalasig: 'AAAA' }, lookup)).toMatchObject({ ok: false, code: 'malformed_signature' });
        expect(verifyEventSignature({ ...ev, data: Buffer.from([1]) }, lookup)).toMatchObject({ ok: false, code: 'invalid_event' });
      });

      it('a bare-hash (0.2.0) event signature is legacy_signature unless allowed', () => {
        const h = (eventHash(ev) as { value: string }).value;
        const bare = { alg, kid: signer.kid, signedAt: at(1_000), sig: toBase64url(signer.sign(utf8(h))) };
        const legacy = { ...ev, cookwalasig: encodeCookwalasig(bare) };
        expect(verifyEventSignature(legacy, lookup)).toMatchObject({ ok: false, code: 'legacy_signature' });
        expect(verifyEventSignature(legacy, lookup, { allowLegacy: true })).toMatchObject({ ok: true, value: { legacy: true } });
      });
    });
  }

  it('signEvent refuses a bad signedAt or an unhashable event (programmer errors)', () => {
    const s = signerFor('EdDSA', 'd', 1);
    expect(() => signEvent(sampleEvent(), s, '2026-11-30T10:00:00Z')).toThrow(TypeError);
    expect(() => signEvent({ ...sampleEvent(), data: Buffer.from([1]) }, s, at(1))).toThrow(TypeError);
  });
});

describe('flatText (the direct JCS of a flat data object inside eventHash)', () => {
  it('property: undefined, or the text of the canonicalize package itself', () => {
    const name = fc.oneof(
      fc.constantFrom(
        'step',
        'tempC',
        'medium',
        '__proto__',
        'constructor',
        '1a',
        '9',
        '',
        'a"b',
        'a\\b',
        '\u0001',
        '\ud800',
        'é',
        'B',
        'b',
      ),
      fc.string({ maxLength: 4 }),
    );
    const value = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.constantFrom('a"b', 'a\\b', '\u0001', '\ud800', '\u2028', 'é', -0, 1e21, 1e-7, NaN, Infinity, true, false, null, undefined),
      fc.double(),
      fc.integer(),
      fc.constant({ a: 1 }),
      fc.constant([1]),
    );
    const obj = fc.array(fc.tuple(name, value), { maxLength: 6 }).map((pairs) => {
      const o: Record<string, unknown> = {};
      for (const [k, v] of pairs) setMember(o, k, v);
      return o;
    });
    fc.assert(
      fc.property(fc.oneof(obj, value), (v) => {
        const t = flatText(v);
        if (t === undefined) return;
        const ref = canonicalizeSlow(v);
        expect(ref.ok && ref.value).toBe(t);
      }),
      { numRuns: 3000 },
    );
    expect(flatText({ step: 1, tempC: 92.5, medium: 'water' })).toBe('{"medium":"water","step":1,"tempC":92.5}');
    expect(flatText({ a: { b: 1 } })).toBeUndefined();
  });
});
