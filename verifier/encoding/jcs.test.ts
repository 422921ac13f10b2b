// RFC 8785 (JCS) through verifier/encoding/jcs.ts: the cyberphone reference pairs byte for byte (from
// conformance/vectors/jcs or $COOKWALA_VECTORS/jcs, never skipped), ECMAScript number serialization, refusal of values JCS
// cannot express, and properties: JCS of parsed random JSON re-parses to an equal value, and
// canonicalizing twice is stable. Without loss (docs/design.md §3): on documents that always carry
// `__proto__`, `constructor`, `toString`, integer-like, non-BMP and empty names, the fast path,
// the `canonicalize` package and an independent serializer written here agree byte for byte, and
// the canonical form re-parses to the same own members; fixed regressions beside them.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import canonicalizeLib from 'canonicalize';
import { canonicalBytes, canonicalize, canonicalizeSlow } from './jcs.ts';
import { documentHash, jsonHash, type JsonObject } from '../signing/document-hash.ts';
import {
  FAST_PATH_KEYS,
  jsonDocument,
  jsonDocumentWith,
  jsonTree,
  renderJson,
  sameJson,
  SPECIAL_KEYS,
  valueOf,
} from '../../testkit/json-arbitraries.ts';
import { topicDir } from '../../conformance/vectors-dir.ts';

const JCS = topicDir('jcs');

function doubleFromHex(hex: string): number {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setBigUint64(0, BigInt('0x' + hex));
  return dv.getFloat64(0);
}

describe(`JCS vectors in ${JCS}`, () => {
  it('reproduces every reference output byte for byte (and its hex form)', () => {
    const names = readdirSync(join(JCS, 'input')).filter((n) => n.endsWith('.json'));
    expect(names.length).toBeGreaterThan(0);
    for (const n of names) {
      const input = JSON.parse(readFileSync(join(JCS, 'input', n), 'utf8'));
      const want = readFileSync(join(JCS, 'output', n));
      const got = canonicalBytes(input);
      expect(Buffer.from(got).equals(want), n).toBe(true);
      const hexFile = join(JCS, 'outhex', n.replace(/\.json$/, '.txt'));
      if (existsSync(hexFile)) {
        const hex = readFileSync(hexFile, 'utf8').trim().split(/\s+/).join('');
        expect(Buffer.from(got).toString('hex'), n).toBe(hex);
      }
    }
  });

  it('serializes numbers as ECMAScript does (es6-numbers-*.txt)', () => {
    const files = readdirSync(JCS).filter((n) => /^es6-numbers-.*\.txt$/.test(n));
    expect(files.length).toBeGreaterThan(0);
    let n = 0;
    for (const f of files) {
      for (const line of readFileSync(join(JCS, f), 'utf8').split('\n')) {
        if (!line) continue;
        const [hex, want] = line.split(',');
        const r = canonicalize(doubleFromHex(hex));
        expect(r, line).toEqual({ ok: true, value: want });
        n++;
      }
    }
    expect(n).toBeGreaterThanOrEqual(1000);
  });

  it('number-samples.json: expected strings, and failure where expected is null', () => {
    const cases = JSON.parse(readFileSync(join(JCS, 'number-samples.json'), 'utf8')).cases as {
      ieeeHex: string;
      expected: string | null;
    }[];
    for (const c of cases) {
      const r = canonicalize(doubleFromHex(c.ieeeHex));
      if (c.expected === null) expect(r.ok, c.ieeeHex).toBe(false);
      else expect(r, c.ieeeHex).toEqual({ ok: true, value: c.expected });
    }
  });
});

describe('canonicalize', () => {
  it('sorts members by UTF-16 code units and drops insignificant whitespace', () => {
    expect(canonicalize({ b: 1, a: [true, null, 'x'], '\u20ac': 0, '\ud83d\ude00': 1, é: 2 })).toEqual({
      ok: true,
      value: '{"a":[true,null,"x"],"b":1,"é":2,"€":0,"😀":1}',
    });
  });

  it('writes numbers in their shortest ECMAScript form', () => {
    expect(canonicalize([1e21, 1e-7, -0, 0.1, 100, 5e-324])).toEqual({ ok: true, value: '[1e+21,1e-7,0,0.1,100,5e-324]' });
  });

  it('refuses NaN and Infinity with noncanonical_number', () => {
    for (const v of [NaN, Infinity, -Infinity, { a: [NaN] }])
      expect(canonicalize(v)).toMatchObject({ ok: false, code: 'noncanonical_number' });
  });

  it('refuses a top-level value with no JSON form', () => {
    expect(canonicalize(undefined)).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(canonicalize(() => 1)).toMatchObject({ ok: false, code: 'invalid_document' });
  });

  it('refuses lone surrogates (I-JSON), so two strings never share bytes', () => {
    expect(canonicalize({ a: '\ud800' }).ok).toBe(false);
    expect(canonicalize('x\udfff').ok).toBe(false);
  });

  it('canonicalBytes is the UTF-8 of the canonical string and throws where canonicalize fails', () => {
    expect(Buffer.from(canonicalBytes({ é: 1 })).toString('hex')).toBe(Buffer.from('{"é":1}', 'utf8').toString('hex'));
    expect(() => canonicalBytes({ a: NaN })).toThrow(TypeError);
  });
});

describe('JCS properties', () => {
  it('JCS of parsed random JSON re-parses to an equal value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        const parsed = JSON.parse(JSON.stringify(v));
        const c = canonicalize(parsed);
        expect(c.ok).toBe(true);
        if (c.ok) expect(JSON.parse(c.value)).toEqual(parsed);
      }),
      { numRuns: 500 },
    );
  });

  it('canonicalizing twice is stable and member order does not matter', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        const parsed = JSON.parse(JSON.stringify(v));
        const once = canonicalize(parsed);
        if (!once.ok) throw new Error(once.detail);
        expect(canonicalize(JSON.parse(once.value))).toEqual(once);
        const reversed = JSON.parse(
          JSON.stringify(parsed, (_k, x) =>
            x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).reverse()) : x,
          ),
        );
        expect(canonicalize(reversed)).toEqual(once);
      }),
      { numRuns: 500 },
    );
  });

  it('distinct parsed values have distinct canonical forms', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (a, b) => {
        const pa = JSON.parse(JSON.stringify(a));
        const pb = JSON.parse(JSON.stringify(b));
        const ca = canonicalize(pa);
        const cb = canonicalize(pb);
        if (!ca.ok || !cb.ok) throw new Error('not canonicalizable');
        expect(ca.value === cb.value).toBe(isDeepStrictEqual(pa, pb));
      }),
      { numRuns: 300 },
    );
  });
});

describe('canonicalize refusals name the right code', () => {
  it('NaN and Infinity are noncanonical_number; lone surrogates and BigInt are invalid_document', () => {
    for (const v of [NaN, Infinity, -Infinity]) expect((canonicalize(v) as { code?: string }).code).toBe('noncanonical_number');
    for (const v of ['\ud800', { a: 1n }]) expect((canonicalize(v) as { code?: string }).code).toBe('invalid_document');
  });
});

describe('the fast path and the package agree', () => {
  const same = (v: unknown): void => {
    expect(canonicalize(v)).toEqual(canonicalizeSlow(v));
  };
  it('on random JSON, with lone surrogates, control characters and integer-like member names', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom('10', '9', '01', '-1', 'a\\ud800', '\u0001', '\u2028', ''),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ maxDepth: 4 }, text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 5 }),
      object: fc.dictionary(text, tie('value'), { maxKeys: 6 }),
    })).value;
    fc.assert(fc.property(json, same), { numRuns: 2000 });
  });
  it('on values that are not plain JSON', () => {
    fc.assert(fc.property(fc.anything({ withBoxedValues: true, withNullPrototype: true, withSparseArray: true, withBigInt: true }), same), {
      numRuns: 1000,
    });
    for (const v of [
      { a: undefined, b: 1 },
      { toJSON: () => 1 },
      [undefined],
      new Date(0),
      { b: Object.create(null) },
      { x: -0 },
      [1e21, 1e-7, 5e-324],
    ])
      same(v);
    let deep: unknown = 1;
    for (let i = 0; i < 20000; i++) deep = [deep];
    same(deep);
    expect((canonicalize(deep) as { code?: string }).code).toBe('invalid_document');
  });
});

/** RFC 8785 §3.2.2.2 string form, written from the RFC (not JSON.stringify). */
function refString(s: string): string {
  const short: Record<number, string> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (Object.prototype.hasOwnProperty.call(short, c)) out += short[c];
    else if (c < 0x20) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += s[i];
  }
  return out + '"';
}

/** An independent RFC 8785 serializer for JSON values: own members by UTF-16 code units. */
function refJcs(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Object.is(v, -0) ? '0' : String(v); // ECMAScript Number::toString
  if (typeof v === 'string') return refString(v);
  if (Array.isArray(v)) return '[' + v.map(refJcs).join(',') + ']';
  const names = Object.getOwnPropertyNames(v).sort();
  return '{' + names.map((k) => refString(k) + ':' + refJcs(Object.getOwnPropertyDescriptor(v, k)!.value)).join(',') + '}';
}

const lib = canonicalizeLib as unknown as (v: unknown) => string;

describe('canonical form without loss (no member dropped, renamed or reordered)', () => {
  const check = (v: unknown): void => {
    const want = refJcs(v);
    expect(lib(v)).toBe(want); // the package itself keeps every name
    expect(canonicalize(v)).toEqual({ ok: true, value: want });
    expect(canonicalizeSlow(v)).toEqual({ ok: true, value: want });
    expect(sameJson(JSON.parse(want), v)).toBe(true);
  };

  it('fixed regressions: __proto__ members are hashed, not swallowed by the prototype setter', () => {
    check(JSON.parse('{"__proto__":[]}'));
    expect(canonicalize(JSON.parse('{"__proto__":[]}'))).toEqual({ ok: true, value: '{"__proto__":[]}' });
    const injected = JSON.parse('{"a":1,"__proto__":{"x":1}}');
    check(injected);
    expect(canonicalize(injected)).toEqual({ ok: true, value: '{"__proto__":{"x":1},"a":1}' });
    expect(jsonHash(injected)).not.toEqual(jsonHash({ a: 1 }));
    expect(documentHash(injected as JsonObject)).not.toBe(documentHash({ a: 1 }));
    // hashedView copies a document that has a hash member: the copy must keep __proto__ too.
    const withHash = JSON.parse('{"a":1,"hash":"sha256:00","__proto__":{"x":1}}');
    expect(documentHash(withHash as JsonObject)).toBe(documentHash(injected as JsonObject));
    for (const t of [
      '{"__proto__":null}',
      '{"__proto__":{"__proto__":{"toString":1}}}',
      '[{"__proto__":1,"constructor":{"prototype":2}}]',
      '{"b":{"__proto__":"x"},"a":[{"__proto__":0}]}',
    ])
      check(JSON.parse(t));
  });

  it('every special name on its own and all together (fast path and package)', () => {
    for (const k of SPECIAL_KEYS) {
      check(JSON.parse(`{${JSON.stringify(k)}:1}`));
      check(JSON.parse(`{"z":{${JSON.stringify(k)}:[1,{${JSON.stringify(k)}:null}]},"a":0}`));
    }
    check(Object.fromEntries(SPECIAL_KEYS.map((k, i) => [k, i])));
  });

  it('property: on documents that always carry the special names, the three serializers agree', () => {
    fc.assert(
      fc.property(jsonDocument, fc.boolean(), (doc, viaText) => {
        const v = viaText ? JSON.parse(renderJson(doc)) : valueOf(doc);
        check(v);
        const c = canonicalize(v);
        if (c.ok) for (const k of SPECIAL_KEYS) expect(Object.prototype.hasOwnProperty.call(JSON.parse(c.value), k), k).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('property: the same on documents that always carry every special name the fast path takes', () => {
    fc.assert(
      fc.property(jsonDocumentWith(FAST_PATH_KEYS, true), (doc) => {
        const v = JSON.parse(renderJson(doc));
        check(v);
        for (const k of FAST_PATH_KEYS) expect(Object.prototype.hasOwnProperty.call(JSON.parse(refJcs(v)), k), k).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('property: nested documents (any tree with the special names) keep every member', () => {
    fc.assert(
      fc.property(jsonTree, (t) => check(JSON.parse(renderJson(t)))),
      { numRuns: 1000 },
    );
  });
});
