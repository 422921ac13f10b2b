// verifier/encoding/strict-json.ts: the I-JSON reader. Fixed cases for each refusal (duplicate_member with
// its JSON Pointer, too_deep at the bound, body_too_large, bad_json first), `__proto__` kept as an
// own ordinary member; properties on documents that always carry the special names: without
// duplicates it returns exactly what JSON.parse returns, in any spelling; with one injected
// duplicate (plain or \u-escaped) it refuses and names the right path. parseJsonArrayElements:
// each element's text of an array of objects parses to that element again, in any spelling, and
// every other value has no spans; the refusals are parseJson's.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, parseJson, parseJsonArrayElements } from './strict-json.ts';
import { injectDuplicate, jsonDocument, jsonTree, renderJson, sameJson, SPECIAL_KEYS, valueOf } from '../../testkit/json-arbitraries.ts';

const code = (r: { ok: boolean; code?: string }) => (r.ok ? 'ok' : r.code);

describe('parseJson: refusals', () => {
  it('refuses a repeated member name with duplicate_member and the JSON Pointer of the second', () => {
    const cases: Array<[string, string]> = [
      ['{"a":1,"a":2}', '/a'],
      ['{"a":1,"\\u0061":2}', '/a'],
      ['{"a":{"b":1},"c":[{"b":2,"b":3}]}', '/c/0/b'],
      ['{"__proto__":1,"__proto__":2}', '/__proto__'],
      ['{"__proto__":{},"\\u005f_proto__":[]}', '/__proto__'],
      ['[1,{"x":[0,{"y":1,"y":2}]}]', '/1/x/1/y'],
      ['{"k":{},"k2":{},"k":3}', '/k'],
      ['{"a/b~c":1,"a/b~c":1}', '/a~1b~0c'],
      ['{"":1,"":1}', '/'],
      ['{"\\ud83d\\ude00":1,"😀":2}', '/😀'],
      ['{ "x" : 1 ,\n\t"x" : 1 }', '/x'],
    ];
    for (const [text, path] of cases) {
      expect(parseJson(text), text).toMatchObject({ ok: false, code: 'duplicate_member', path });
      expect(() => JSON.parse(text)).not.toThrow(); // JSON.parse alone would have let the last one win
    }
  });

  it('does not mistake names that only look alike, or quotes inside strings, for duplicates', () => {
    for (const text of [
      '{"a":"x\\"a\\":1","b":1}',
      '{"a\\\\":1,"a":2}',
      '{"a":{"a":{"a":1}}}',
      '[{"a":1},{"a":1}]',
      '{"1":1,"01":2,"1.0":3}',
      '{"A":1,"a":2}',
      '{"e\\u0301":1,"\\u00e9":2}',
    ]) {
      expect(parseJson(text), text).toEqual({ ok: true, value: JSON.parse(text) });
    }
  });

  it('refuses nesting deeper than the bound with too_deep (64 by default), before parsing', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(parseJson(nest(64)).ok).toBe(true);
    expect(parseJson(nest(65))).toMatchObject({ ok: false, code: 'too_deep', maxDepth: 64, offset: 64 });
    expect(parseJson('{"a":'.repeat(3) + '1' + '}'.repeat(3), { maxDepth: 3 }).ok).toBe(true);
    expect(code(parseJson('{"a":'.repeat(4) + '1' + '}'.repeat(4), { maxDepth: 3 }))).toBe('too_deep');
    expect(code(parseJson('"[[[[["', { maxDepth: 1 }))).toBe('ok'); // brackets inside a string are text
    // 8 MiB of '[' (valid depth-wise nothing, and invalid JSON): refused at once, never parsed.
    const t0 = performance.now();
    expect(code(parseJson('['.repeat(8 << 20)))).toBe('too_deep');
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('refuses text longer than maxLength with body_too_large (16 Mi code units by default)', () => {
    expect(parseJson('[1,2,3]', { maxLength: 7 }).ok).toBe(true);
    expect(parseJson('[1,2,3] ', { maxLength: 7 })).toMatchObject({ ok: false, code: 'body_too_large', maxLength: 7 });
    expect(code(parseJson(' '.repeat((16 << 20) + 1)))).toBe('body_too_large');
  });

  it('refuses more than 2^18 objects and arrays, or 2^20 values, with too_many_values, before parsing', () => {
    // 16.5 MB of `[{},{},…]` took JSON.parse a gigabyte; it is under the length bound, so the count refuses it.
    const objects = '[' + '{},'.repeat(5_500_000) + '{}]';
    const r = parseJson(objects);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.code).toBe('too_many_values');
    const zeros = '[' + '0,'.repeat(1 << 20) + '0]';
    expect(parseJson(zeros)).toMatchObject({ ok: false, code: 'too_many_values' });
    // at the bounds, accepted
    expect(parseJson('[' + '{},'.repeat((1 << 18) - 2) + '{}]').ok).toBe(true);
    expect(parseJson('[' + '0,'.repeat((1 << 20) - 3) + '0]').ok).toBe(true);
    expect(parseJson('[[0,0],[0]]', { maxValues: 5 })).toMatchObject({ ok: false, code: 'too_many_values' });
    expect(parseJson('[[0,0],[0]]', { maxValues: 6 }).ok).toBe(true);
    expect(parseJson('[[],[],[]]', { maxContainers: 3 })).toMatchObject({ ok: false, code: 'too_many_values' });
    expect(parseJson('["[{,,,,,,}]"]', { maxValues: 2, maxContainers: 1 }).ok).toBe(true);
  });
  it('names bad_json before a duplicate, and refuses what is not text', () => {
    expect(code(parseJson('{"a":1,"a":2'))).toBe('bad_json');
    expect(code(parseJson('{"a":1,"a":2}}'))).toBe('bad_json');
    expect(code(parseJson(''))).toBe('bad_json');
    expect(code(parseJson('"unterminated'))).toBe('bad_json');
    expect(code(parseJson('{"a\\x":1}'))).toBe('bad_json');
    expect(code(parseJson(undefined as unknown as string))).toBe('bad_json');
  });

  it('keeps __proto__ as an own ordinary member and never touches the prototype', () => {
    const r = parseJson('{"a":1,"__proto__":{"x":1},"constructor":2,"toString":3}');
    if (!r.ok) throw new Error(r.detail);
    const v = r.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['a', '__proto__', 'constructor', 'toString']);
    expect(Object.getOwnPropertyDescriptor(v, '__proto__')?.value).toEqual({ x: 1 });
    expect((v as { x?: unknown }).x).toBeUndefined();
  });
});

describe('parseJson: properties over documents that always carry the special names', () => {
  const style = fc.record({ space: fc.constantFrom('', ' ', '\n\t '), escapeNames: fc.boolean() });

  it('agrees with JSON.parse on text without duplicates, in any spelling', () => {
    fc.assert(
      fc.property(jsonDocument, style, (doc, st) => {
        const text = renderJson(doc, st);
        const r = parseJson(text);
        if (!r.ok) throw new Error(`${r.code}: ${r.detail}`);
        expect(sameJson(r.value, JSON.parse(text))).toBe(true);
        expect(sameJson(r.value, valueOf(doc))).toBe(true);
        for (const k of SPECIAL_KEYS) expect(Object.prototype.hasOwnProperty.call(r.value, k), k).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with JSON.parse on any random JSON value (fc.jsonValue)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (v) => {
        const text = JSON.stringify(v);
        expect(parseJson(text)).toEqual({ ok: true, value: JSON.parse(text) });
      }),
      { numRuns: 500 },
    );
  });

  it('refuses one injected duplicate, plain or escaped, and names its path', () => {
    fc.assert(
      fc.property(jsonDocument, fc.nat(), jsonTree, fc.boolean(), (doc, which, value, escaped) => {
        const d = injectDuplicate(doc, which, value, escaped);
        if (!d) throw new Error('a document always has members');
        expect(() => JSON.parse(d.text)).not.toThrow();
        expect(parseJson(d.text)).toMatchObject({ ok: false, code: 'duplicate_member', path: d.path });
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseJson: the member count is only a filter', () => {
  it('counts own members only: an enumerable member on Object.prototype hides no duplicate', () => {
    Object.defineProperty(Object.prototype, 'polluted', { value: 1, enumerable: true, configurable: true, writable: true });
    try {
      expect(parseJson('{"a":{"b":1}}')).toEqual({ ok: true, value: { a: { b: 1 } } });
      expect(parseJson('{"a":1,"a":1}')).toMatchObject({ ok: false, code: 'duplicate_member', path: '/a' });
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
  });
});

describe('parseJsonArrayElements: the text of each element of an array of objects', () => {
  const style = fc.record({ space: fc.constantFrom('', ' ', '\n\t '), escapeNames: fc.boolean() });

  it('gives spans whose text JSON.parse reads as that element again, in any spelling', () => {
    fc.assert(
      fc.property(fc.array(jsonDocument, { maxLength: 6 }), style, (docs, st) => {
        const text = renderJson(docs, st);
        const r = parseJsonArrayElements(text);
        if (!r.ok) throw new Error(`${r.code}: ${r.detail}`);
        expect(sameJson(r.value.value, JSON.parse(text))).toBe(true);
        const spans = r.value.spans!;
        expect(spans).toHaveLength(docs.length);
        spans.forEach(([s, e], i) => {
          expect(text[s]).toBe('{');
          expect(text[e - 1]).toBe('}');
          expect(sameJson(JSON.parse(text.slice(s, e)), (r.value.value as unknown[])[i])).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('has no spans for anything but an array of objects, and refuses as parseJson does', () => {
    for (const text of ['{"a":[{"b":1}]}', '[{"a":1},2]', '[[{"a":1}]]', '[{"a":1},[]]', '"x"', '[]']) {
      const r = parseJsonArrayElements(text);
      expect(r.ok, text).toBe(true);
      expect(r.ok && r.value.spans, text).toEqual(text === '[]' ? [] : undefined);
    }
    expect(parseJsonArrayElements(' [ {"a":"}]{"} , {"b":[{}]} ] ')).toEqual({
      ok: true,
      value: {
        value: [{ a: '}]{' }, { b: [{}] }],
        spans: [
          [3, 14],
          [17, 27],
        ],
      },
    });
    for (const text of ['[{"a":1,"a":2}]', '[{"a":1}', '[' + '{"a":'.repeat(70) + '1' + '}'.repeat(70) + ']'])
      expect(parseJsonArrayElements(text)).toEqual(parseJson(text));
  });
});
