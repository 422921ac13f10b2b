// verifier/cloudevent/format.ts: the value formats that CloudEvents 1.0 attributes use (spec.md
// "Type System", json-format.md §2, §3.1): RFC 3339 timestamps (any offset, optional fraction, as
// CloudEvents allows; Cookwala's own documents are stricter, see verifier/encoding/wire.ts isTime), RFC 3986
// URI-references and absolute URIs, RFC 2046 media types with the JSON test of json-format §3.1
// (subtype `json` or a `+json` suffix), and RFC 4648 §4 base64 with padding for `data_base64`.
// Checks are syntactic and strict: a value outside the grammar is refused, never repaired.
// The usual timestamp, Cookwala's own spelling (UTC with milliseconds: isTime of
// verifier/encoding/wire.ts, with the same date rules), is accepted by that check first, without
// a match array.
// Left out: IRIs (non-ASCII must be percent-encoded), and IP-literal host syntax inside `[...]`.

import { fromBase64url, isTime, toBase64Std } from '../encoding/wire.ts';

const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** RFC 3339 §5.6 date-time; seconds may be 60 (a leap second), as the grammar allows. */
export function isRfc3339(s: unknown): s is string {
  if (typeof s !== 'string') return false;
  if (isTime(s)) return true; // a subset of the grammar below, with the same date and clock bounds
  const m = RFC3339_RE.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return false;
  if (h > 23 || mi > 59 || se > 60) return false;
  if (m[7] !== undefined && (Number(m[8]) > 23 || Number(m[9]) > 59)) return false;
  return true;
}

// RFC 3986 characters: unreserved, reserved (gen-delims and sub-delims) and percent-encodings.
const URI_CHARS_RE = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const SCHEME_RE = /^[A-Za-z][A-Za-z0-9+.-]*$/;

function schemeOf(s: string): string | undefined | null {
  const colon = s.indexOf(':');
  const delim = s.search(/[/?#]/);
  if (colon < 0 || (delim >= 0 && delim < colon)) return undefined; // a relative reference
  const scheme = s.slice(0, colon);
  return SCHEME_RE.test(scheme) ? scheme : null; // null: a colon in the first segment, not a scheme
}

/** RFC 3986 §4.1 URI-reference (what `source` is). */
export function isUriReference(s: unknown): s is string {
  if (typeof s !== 'string' || !URI_CHARS_RE.test(s)) return false;
  if (s.indexOf('#') !== s.lastIndexOf('#')) return false;
  return schemeOf(s) !== null;
}

/** RFC 3986 §3 URI, i.e. with a scheme (what `dataschema` is). */
export function isAbsoluteUri(s: unknown): s is string {
  return isUriReference(s) && typeof schemeOf(s) === 'string';
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[^"\\\\\\r\\n]|\\\\[^\\r\\n])*"';
const MEDIA_TYPE_RE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED}))*$`);

/** RFC 2046 / RFC 9110 §8.3.1 media type: type "/" subtype *( OWS ";" OWS parameter ). */
export function isMediaType(s: unknown): s is string {
  return typeof s === 'string' && MEDIA_TYPE_RE.test(s);
}

/** json-format §3.1: JSON content is a media subtype `json` or one ending in `+json`. */
export function isJsonMediaType(s: string): boolean {
  if (s === 'application/json') return true; // the usual value, without the parse below
  const essence = s.split(';', 1)[0].trim().toLowerCase();
  const subtype = essence.slice(essence.indexOf('/') + 1);
  return subtype === 'json' || subtype.endsWith('+json');
}

const BASE64_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** RFC 4648 §4 base64 with padding and zero trailing bits (one spelling per byte string). */
export function fromBase64(s: unknown): Uint8Array | undefined {
  if (typeof s !== 'string' || !BASE64_RE.test(s)) return undefined;
  const r = fromBase64url(s.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
  return r.ok ? r.value : undefined;
}

/** Standard padded base64 (data_base64): the one encoder of verifier/encoding/wire.ts. */
export const toBase64 = toBase64Std;
