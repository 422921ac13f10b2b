// verifier/jcs.ts: RFC 8785 JSON Canonicalization Scheme, through the `canonicalize` package
// (proven on the cyberphone vectors in conformance/). Values RFC 8785 cannot express (NaN,
// Infinity: noncanonical_number) and values that are not JSON (undefined at the top, functions,
// bigint, lone surrogates: invalid_document) are refused
// with a result, never serialized as something else.

import canonicalizeLib from 'canonicalize';
import { utf8 } from './encoding.ts';
import { fail, ok, type Result } from './errors.ts';

const canonicalizeFn = canonicalizeLib as unknown as (v: unknown) => string | undefined;

export function canonicalize(value: unknown): Result<string> {
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
