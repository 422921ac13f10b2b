// verifier/jcs.ts: RFC 8785 JSON Canonicalization Scheme, through the `canonicalize` package
// (proven on the cyberphone vectors in conformance/). Values RFC 8785 cannot express (NaN,
// Infinity) and values that are not JSON (undefined at the top, functions, bigint) are refused
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
    return fail('noncanonical_number', (e as Error).message);
  }
}

/** JCS as UTF-8 bytes; throws on a value with no canonical form (a programmer error here). */
export function canonicalBytes(value: unknown): Uint8Array {
  const r = canonicalize(value);
  if (!r.ok) throw new TypeError(`${r.code}: ${r.detail}`);
  return utf8(r.value);
}
