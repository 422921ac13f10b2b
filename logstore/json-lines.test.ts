// Lines written straight from stored bytes (json-lines.ts, canonical-json.ts) against the road they
// replace, kept here as the oracle: decode the record, then JSON.stringify (the entry line) or
// encodeLine(buildPayloadLine(...)) (the Payload line). Byte for byte, over generated entries of
// every stored form (binary events with unicode and escaped strings, JSON-form entries of other
// kinds and shapes) and payloads (canonical text, text as received in other spellings, binary
// data_base64), and over the canonicity check alone. fast-check prints the seed of a failure;
// FC_SEED replays it.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Entry } from '../verifier/documents/entry.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';
import { buildPayloadLine, encodeLine } from '../verifier/bundle/index.ts';
import { decodeEntry, encodeEntry } from './entry-codec.ts';
import { decodePayload, encodePayload } from './payload-codec.ts';
import { createLineWriter, LineBuffer } from './json-lines.ts';
import { isCanonicalJson } from './canonical-json.ts';

const RUNS = { numRuns: 400, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) };
const LOG = 'l.example/\u00e9"x';

const text = fc.string({ unit: 'grapheme', maxLength: 30 });
/** Any UTF-16 code units, lone surrogates and control characters included. */
const units = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 12 });
const anyText = fc.oneof(text, units, fc.constantFrom('', 'a"b\\c', 'tab\there', '\u2028\u0000\u001f\u007f', '\ud83d\ude00'));
const hashArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((h) => 'sha256:' + Buffer.from(h).toString('hex'));

const eventEntry = fc
  .record({
    seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
    source: anyText,
    id: anyText,
    type: anyText,
    kid: anyText,
    subject: fc.option(anyText, { nil: undefined }),
    cookwalaseq: fc.option(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), { nil: undefined }),
    ms: fc.integer({ min: 0, max: Date.parse('9999-12-31T23:59:59.999Z') }),
    signedMs: fc.integer({ min: 0, max: Date.parse('9999-12-31T23:59:59.999Z') }),
    alg: fc.constantFrom('EdDSA' as const, 'ES256' as const),
    sig: fc.uint8Array({ minLength: 0, maxLength: 80 }),
    prev: hashArb,
    eventHash: hashArb,
    hash: hashArb,
  })
  .map((r): Entry => {
    const ce: Entry['ce'] = { source: r.source, id: r.id, type: r.type };
    if (r.subject !== undefined) ce.subject = r.subject;
    if (r.cookwalaseq !== undefined) ce.cookwalaseq = r.cookwalaseq;
    // buildEntry's members in its order, the hash random (buildEntry refuses lone surrogates; the store must not rely on it).
    return {
      kind: 'Event',
      log: LOG,
      seq: r.seq,
      prev: r.prev,
      sequencedAt: new Date(r.ms).toISOString(),
      ce,
      eventHash: r.eventHash,
      eventSignature: {
        alg: r.alg,
        kid: r.kid,
        signedAt: new Date(r.signedMs).toISOString(),
        sig: Buffer.from(r.sig).toString('base64url'),
      },
      hash: r.hash,
    };
  });

/** Entries the binary form does not take: other kinds (erasure records, key records), extra members, other orders. */
const otherEntry = fc
  .tuple(eventEntry, fc.constantFrom('Erasure', 'KeyRecord', 'Event'), fc.jsonValue({ maxDepth: 3 }), fc.boolean())
  .map(([e, kind, extra, swap]): Entry => {
    const base = { ...e, kind, 'x-extra': extra } as unknown as Entry;
    return swap ? ({ ...base, ce: { id: e.ce.id, source: e.ce.source, type: e.ce.type } } as Entry) : base;
  });

const cloudEvent = fc
  .record({
    id: anyText,
    source: anyText,
    type: text,
    subject: fc.option(anyText, { nil: undefined }),
    body: fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((data) => ({ data })),
      // Short data stays in the JSON text; 48 bytes and more take the binary stored form.
      fc.uint8Array({ minLength: 0, maxLength: 60 }).map((b) => ({ data_base64: Buffer.from(b).toString('base64') })),
      fc.uint8Array({ minLength: 48, maxLength: 300, size: 'max' }).map((b) => ({ data_base64: Buffer.from(b).toString('base64') })),
      fc.constant({}),
    ),
    ext: fc.dictionary(fc.stringMatching(/^[a-z0-9]{1,8}$/), fc.oneof(anyText, fc.integer(), fc.boolean()), { maxKeys: 3 }),
  })
  .map((r) => {
    const ce: Record<string, unknown> = { specversion: '1.0', id: r.id, source: r.source, type: r.type };
    if (r.subject !== undefined) ce.subject = r.subject;
    Object.assign(ce, r.ext, r.body);
    return ce as unknown as CloudEvent;
  });

/** Other spellings of the same event, as a sequencer may have received and stored them. */
function respell(s: string, how: number): string {
  switch (how) {
    case 0:
      return JSON.stringify(JSON.parse(s), null, 1);
    case 1:
      return s.replace(/"([a-z])/, (_, c: string) => '"\\u00' + c.charCodeAt(0).toString(16)); // a \u escape opening a name or string
    case 2:
      return s.replace(/:(\d+)([,}])/, ':$1.0$2'); // 1 spelled 1.0
    case 3:
      return s.replace(/\//g, '\\/');
    default:
      return s;
  }
}

function linesOf(put: (w: LineBuffer) => void): string {
  const w = new LineBuffer();
  put(w);
  return w.take().toString('utf8');
}

describe('lines from stored bytes', () => {
  const writer = createLineWriter(LOG);

  it('an entry line is exactly JSON.stringify of the decoded entry, in every stored form', () => {
    let binary = 0;
    fc.assert(
      fc.property(fc.oneof(eventEntry, otherEntry), (e) => {
        const stored = encodeEntry(e);
        if (stored[0] === 0x01) binary++;
        const oracle = JSON.stringify(decodeEntry(stored, LOG, e.seq)) + '\n';
        expect(linesOf((w) => writer.entry(w, stored, e.seq))).toBe(oracle);
      }),
      RUNS,
    );
    expect(binary).toBeGreaterThan(50); // the generator reaches the binary form
  });

  it('a Payload line is exactly encodeLine(buildPayloadLine) of the decoded payload, whatever its stored spelling', () => {
    let copied = 0;
    let raw = 0;
    fc.assert(
      fc.property(cloudEvent, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 4 }), (ce, seq, how) => {
        const encoded = encodePayload(ce);
        // The stored text as received (append-plan payloadOf) when it is not the binary form.
        const stored = encoded[0] === 0x7b ? Buffer.from(respell(encoded.toString('utf8'), how), 'utf8') : encoded;
        if (stored[0] === 0x01) raw++;
        else if (isCanonicalJson(stored)) copied++;
        const oracle = encodeLine(buildPayloadLine(seq, decodePayload(stored) as unknown as Record<string, unknown>));
        expect(linesOf((w) => writer.payload(w, stored, seq))).toBe(oracle);
      }),
      RUNS,
    );
    expect([copied, raw].every((n) => n > 20)).toBe(true); // both copying roads are exercised
  });

  it('copies only texts that JSON.stringify(JSON.parse(text)) reproduces, and takes the canonical ones', () => {
    let copied = 0;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 4 }), (v, how) => {
        const t = respell(JSON.stringify(v), how);
        const b = Buffer.from(t, 'utf8');
        const canonical = isCanonicalJson(b);
        if (canonical) copied++;
        if (canonical) expect(JSON.stringify(JSON.parse(t))).toBe(t);
        // Every generated value's own stringify is taken unless a name starts with a digit (V8 reorders those).
        if (how === 4 && !/[{,]"\d/.test(t) && !/\\u[0-9a-f]{4}/.test(t)) expect(canonical).toBe(true);
      }),
      RUNS,
    );
    expect(copied).toBeGreaterThan(50);
  });

  it('refuses the spellings JSON.stringify does not write', () => {
    const no = ['{"a": 1}', '{"a":1.0}', '{"a":-0}', '{"a":1e3}', '{"\\u0061":1}', '{"a":"\\/"}', '{"a":"\\u001F"}', '{"a":"\\u0009"}'];
    const yes = ['{"a":1}', '{"a":-1.5}', '{"a":1e+21}', '{"a":"\\u001f\\t"}', '{"a":"é"}', '[]', '{}', '{"a":[true,false,null]}'];
    for (const t of no) expect([t, isCanonicalJson(Buffer.from(t))]).toEqual([t, false]);
    for (const t of yes) expect([t, isCanonicalJson(Buffer.from(t))]).toEqual([t, true]);
    expect(isCanonicalJson(Buffer.from([0x22, 0xff, 0x22]))).toBe(false); // not UTF-8
    expect(isCanonicalJson(Buffer.from('{"1":1,"b":2}'))).toBe(false); // an index name V8 would move
  });

  it('chunks: a page of lines comes out in Buffers of about 64 KiB, split only between lines', () => {
    const w = new LineBuffer();
    const e = encodeEntry(fc.sample(eventEntry, { numRuns: 1, seed: 1 })[0]);
    const chunks: Buffer[] = [];
    for (let seq = 1; seq <= 2000; seq++) {
      writer.entry(w, e, seq);
      const c = w.full();
      if (c) chunks.push(c);
    }
    chunks.push(w.take());
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) expect(c[c.length - 1]).toBe(0x0a);
    expect(chunks.slice(0, -1).every((c) => c.length >= 64 << 10)).toBe(true);
  });

  it('a damaged record is refused as the decoder refuses it, leaving no half line', () => {
    const stored = encodeEntry(fc.sample(eventEntry, { numRuns: 1, seed: 2 })[0]);
    const cut = stored.subarray(0, stored.length - 1);
    const w = new LineBuffer();
    w.ascii('kept\n');
    expect(() => writer.entry(w, cut, 3)).toThrow(/damaged/);
    expect(w.take().toString()).toBe('kept\n');
  });
});
