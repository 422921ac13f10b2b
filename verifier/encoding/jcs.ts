// verifier/encoding/jcs.ts: RFC 8785 JSON Canonicalization Scheme, through the `canonicalize` package
// (proven on the cyberphone vectors in conformance/), with a fast path for plain parsed JSON: a
// copy with sorted members serialized by one native JSON.stringify, whose string and number forms
// are the ones RFC 8785 §3.2.2 prescribes. Anything the fast path is not sure of (integer-like
// member names, which V8 enumerates numerically; a `\u` escape, which may be a lone surrogate;
// undefined, boxed or class values; a non-finite number; deep nesting) goes to the package, so the
// output is the package's byte for byte (jcs.test.ts checks both on random values). Values RFC
// 8785 cannot express (NaN, Infinity: noncanonical_number) and values that are not JSON (undefined
// at the top, functions, bigint, lone surrogates: invalid_document) are refused with a result,
// never serialized as something else; so is a value nested past the call stack (the package
// recurses: invalid_document), which parsed input, cut at 64 levels, never reaches. Every member
// name is copied as an ordinary own member (`__proto__`, `constructor`, `toString` included:
// docs/design.md §3, I-JSON), so the canonical form never drops, renames or reorders a member; jcs.test.ts
// checks that on an arbitrary that always carries those names.

import canonicalizeLib from 'canonicalize';
import { utf8 } from './wire.ts';
import { fail, ok, type Result } from '../errors.ts';
import { setMember } from './own-member.ts';

const canonicalizeFn = canonicalizeLib as unknown as (v: unknown) => string | undefined;

const PLAIN = Object.prototype;
const NOT_PLAIN = Symbol('not plain JSON');

/** Characters JSON.stringify (and so JCS) would escape, and lone-surrogate halves, which JCS refuses. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A string JCS writes as itself between two quotes (no quote, backslash, control character or
 * surrogate half): the direct encoders of the hot paths copy only such strings, and hand anything
 * else to canonicalize.
 */
export function isPlainJsonString(x: unknown): x is string {
  return typeof x === 'string' && !NEEDS_ESCAPE.test(x);
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * True when every string JSON.parse reads from this JSON text, member names included, is one
 * isPlainJsonString accepts: the text has no backslash (a quote, a backslash or a control
 * character inside a JSON string is always written escaped; raw control characters are not JSON)
 * and no surrogate code unit. One scan of a line then stands for the per-string checks of the
 * direct encoders (their `stringsPlain` argument), which give the same text either way.
 */
export function isPlainJsonText(text: string): boolean {
  return text.indexOf('\\') < 0 && !SURROGATE.test(text);
}

/** A copy of v with every object's members in UTF-16 code unit order; throws NOT_PLAIN when unsure. */
function sortedCopy(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) throw NOT_PLAIN;
      return v;
    case 'object': {
      if (v === null) return v;
      if (Array.isArray(v)) {
        const out = new Array<unknown>(v.length);
        for (let i = 0; i < v.length; i++) out[i] = sortedCopy(v[i]);
        return out;
      }
      if (Object.getPrototypeOf(v) !== PLAIN) throw NOT_PLAIN;
      const keys = Object.keys(v).sort();
      const out: Record<string, unknown> = {};
      for (const k of keys) {
        const c = k.charCodeAt(0);
        if (c >= 48 && c <= 57) throw NOT_PLAIN; // '0'..'9': V8 would enumerate it first
        // Not `out[k] = …`: for `__proto__` that sets the prototype and the member vanishes.
        setMember(out, k, sortedCopy((v as Record<string, unknown>)[k]));
      }
      return out;
    }
    default:
      throw NOT_PLAIN;
  }
}

function fastCanonical(value: unknown): string | undefined {
  try {
    const s = JSON.stringify(sortedCopy(value));
    return s.includes('\\u') ? undefined : s;
  } catch {
    return undefined; // NOT_PLAIN, or a RangeError on deep nesting: the package decides
  }
}

export function canonicalize(value: unknown): Result<string> {
  const fast = fastCanonical(value);
  if (fast !== undefined) return ok(fast);
  return canonicalizeSlow(value);
}

/** The package alone (exported for the tests that compare both paths). */
export function canonicalizeSlow(value: unknown): Result<string> {
  try {
    const s = canonicalizeFn(value);
    if (typeof s !== 'string') return fail('invalid_document', 'value has no JSON form');
    return ok(s);
  } catch (e) {
    const msg = (e as Error).message;
    // canonicalize throws for NaN/Infinity (no RFC 8785 number form) and for lone surrogates,
    // BigInt and the like (not JSON at all): only the first are number problems.
    return fail(/NaN|Infinity/.test(msg) ? 'noncanonical_number' : 'invalid_document', msg);
  }
}

/** JCS as UTF-8 bytes; throws on a value with no canonical form (a programmer error here). */
export function canonicalBytes(value: unknown): Uint8Array {
  const r = canonicalize(value);
  if (!r.ok) throw new TypeError(`${r.code}: ${r.detail}`);
  return utf8(r.value);
}
