// verifier/encoding/wire.ts: the wire encodings of docs/design.md §3. Hash strings are `sha256:` + 64 lowercase
// hex; binary values (keys, signatures, salts) are base64url without padding; times are RFC 3339
// UTC with `Z` and exactly three fraction digits. Decoders are strict: a value that would not
// re-encode to the same string is refused, so one value has exactly one spelling on the wire.
// Also the standard base64 encoder (padded, for C2SP text), with a portable path for browsers.

import { fail, ok, type Result } from '../errors.ts';

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64URL_RE = /^[A-Za-z0-9_-]*$/;
const B64URL_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < B64URL.length; i++) B64URL_VALUE[B64URL.charCodeAt(i)] = i;
const HEX_RE = /^(?:[0-9a-f]{2})*$/;
const TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type BufferLike = { from(a: Uint8Array | string, enc?: string): Uint8Array & { toString(enc: string): string } };
// Buffer is used when present (Node) for speed; the loop below is the portable path.
const NodeBuffer = (globalThis as { Buffer?: BufferLike }).Buffer;

/** The bytes as a Buffer-backed view for Node's native encoders (a view, never a copy of an ArrayBuffer). */
function nativeView(bytes: Uint8Array): Uint8Array & { toString(enc: string): string } {
  return NodeBuffer!.from(bytes.buffer instanceof ArrayBuffer ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes);
}

/** The portable encoder (browsers): `alphabet` of 64 characters, `=` padding when `pad`. */
function base64Portable(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += alphabet[n >> 18] + alphabet[(n >> 12) & 63] + alphabet[(n >> 6) & 63] + alphabet[n & 63];
  }
  if (i < bytes.length) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8);
    out += alphabet[n >> 18] + alphabet[(n >> 12) & 63];
    if (i + 1 < bytes.length) out += alphabet[(n >> 6) & 63] + (pad ? '=' : '');
    else if (pad) out += '==';
  }
  return out;
}

export function toBase64url(bytes: Uint8Array): string {
  return NodeBuffer ? nativeView(bytes).toString('base64url') : base64Portable(bytes, B64URL, false);
}

const B64STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** Standard base64 alphabet values for char codes 0..127; -1 elsewhere (`=` included). Read-only. */
export const B64STD_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < B64STD.length; i++) B64STD_VALUE[B64STD.charCodeAt(i)] = i;

/**
 * Standard base64 with `=` padding (RFC 4648 §4; C2SP notes and vkeys, CloudEvents data_base64).
 * Under Node through Buffer in one native pass; elsewhere toBase64StdPortable, which gives the
 * same text (wire.test.ts).
 */
export function toBase64Std(bytes: Uint8Array): string {
  return NodeBuffer ? nativeView(bytes).toString('base64') : toBase64StdPortable(bytes);
}

/** toBase64Std without Buffer (browsers): the path every runtime can take. */
export function toBase64StdPortable(bytes: Uint8Array): string {
  return base64Portable(bytes, B64STD, true);
}

/** The url alphabet and a length base64 can have (a lone 4n+1 character cannot be). */
const base64urlShape = (s: unknown): s is string => typeof s === 'string' && B64URL_RE.test(s) && s.length % 4 !== 1;

/** Canonical means the unused low bits of the last character are zero (RFC 4648 §3.5). */
function canonicalTail(s: string): boolean {
  const rem = s.length % 4;
  return rem === 0 || (B64URL_VALUE[s.charCodeAt(s.length - 1)] & (rem === 2 ? 0x0f : 0x03)) === 0;
}

/** Is s canonical base64url without padding (what fromBase64url accepts), checked without decoding? */
export function isBase64url(s: unknown): boolean {
  return base64urlShape(s) && canonicalTail(s);
}

/** Strict base64url: url alphabet, no padding, canonical trailing bits. */
export function fromBase64url(s: string): Result<Uint8Array> {
  if (!base64urlShape(s)) return fail('bad_request', 'not base64url without padding');
  if (!canonicalTail(s)) return fail('bad_request', 'non-canonical base64url');
  let bytes: Uint8Array;
  if (NodeBuffer) bytes = new Uint8Array(NodeBuffer.from(s, 'base64url'));
  else {
    const out: number[] = [];
    let acc = 0;
    let bits = 0;
    for (const c of s) {
      acc = (acc << 6) | B64URL_VALUE[c.charCodeAt(0)];
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out.push((acc >> bits) & 0xff);
      }
    }
    bytes = Uint8Array.from(out);
  }
  return ok(bytes);
}

const b64urlAt = (x: string, i: number): number => {
  const c = x.charCodeAt(i);
  return c < 128 ? B64URL_VALUE[c] : -1;
};

/**
 * Decodes `s` into `into` at `at` when it is the canonical unpadded base64url text of exactly `n`
 * bytes (what fromBase64url accepts, of that length); false (bytes there unspecified) for anything
 * else. One pass and no buffer per value: for callers that lay the bytes into a record of their
 * own (logstore/entry-codec.ts; logstore/codecs.test.ts holds it to Buffer's decode and re-encode).
 */
export function writeBase64urlBytes(s: string, into: Uint8Array, at: number, n: number): boolean {
  const len = s.length;
  if (len !== Math.ceil((4 * n) / 3) || at < 0 || at + n > into.length) return false;
  let i = 0;
  let j = at;
  for (; i + 4 <= len; i += 4) {
    const q = (b64urlAt(s, i) << 18) | (b64urlAt(s, i + 1) << 12) | (b64urlAt(s, i + 2) << 6) | b64urlAt(s, i + 3);
    if (q < 0) return false; // a -1 sets the sign bit whatever it is or-ed with
    into[j++] = q >>> 16;
    into[j++] = (q >>> 8) & 0xff;
    into[j++] = q & 0xff;
  }
  const rest = len - i;
  if (rest === 2) {
    const q = (b64urlAt(s, i) << 6) | b64urlAt(s, i + 1);
    if (q < 0 || (q & 0x0f) !== 0) return false;
    into[j++] = q >>> 4;
  } else if (rest === 3) {
    const q = (b64urlAt(s, i) << 12) | (b64urlAt(s, i + 1) << 6) | b64urlAt(s, i + 2);
    if (q < 0 || (q & 0x03) !== 0) return false;
    into[j++] = q >>> 10;
    into[j++] = (q >>> 2) & 0xff;
  }
  return j - at === n;
}

/**
 * The bytes of a standard base64 string that verifier/c2sp/note/base64.ts fromBase64Std already found
 * strict (padded, canonical): under Node in one native pass, elsewhere through the base64url
 * decoder. Throws on a string it was not meant to see (a programmer error).
 */
export function decodeCheckedBase64Std(s: string): Uint8Array {
  return NodeBuffer ? new Uint8Array(NodeBuffer.from(s, 'base64')) : decodeCheckedBase64StdPortable(s);
}

/** decodeCheckedBase64Std without Buffer (browsers): through the base64url decoder. */
export function decodeCheckedBase64StdPortable(s: string): Uint8Array {
  const r = fromBase64url(s.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
  if (!r.ok) throw new TypeError('decodeCheckedBase64Std: not strict standard base64');
  return r.value;
}

const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * The text of the UTF-8 bytes that s spells in base64url: fromBase64url then decodeUtf8, with
 * their verdicts (bad_request and their details). Under Node, bytes that are all ASCII (the usual
 * cookwalasig) become text in one native pass, skipping the byte copy and the UTF-8 decoder:
 * for ASCII the two decodings agree.
 */
export function utf8OfBase64url(s: string): Result<string> {
  if (!NodeBuffer || !base64urlShape(s) || !canonicalTail(s)) {
    const b = fromBase64url(s);
    return b.ok ? decodeUtf8(b.value) : b;
  }
  const b = NodeBuffer.from(s, 'base64url');
  const text = b.toString('latin1');
  return NON_ASCII.test(text) ? decodeUtf8(b) : ok(text);
}

export function toHex(bytes: Uint8Array): string {
  if (NodeBuffer)
    return NodeBuffer.from(
      bytes.buffer instanceof ArrayBuffer ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes,
    ).toString('hex');
  let s = '';
  for (const b of bytes) s += (b < 16 ? '0' : '') + b.toString(16);
  return s;
}

export function fromHex(s: string): Result<Uint8Array> {
  if (typeof s !== 'string' || !HEX_RE.test(s)) return fail('bad_request', 'not lowercase hex');
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return ok(out);
}

/** Hex digit values for char codes 0..127: 0-9 and a-f only (lowercase, as a hash string has), -1 elsewhere. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;
const hexDigit = (c: number): number => (c < 128 ? HEX_VALUE[c] : -1);

/**
 * The 32 bytes of `sha256:` + 64 lowercase hex, or undefined for anything else: one pass over the
 * characters, no regular expression and no second decode (a witness request or a log-store batch
 * reads dozens of these). Accepts exactly /^sha256:[0-9a-f]{64}$/ (wire.test.ts).
 */
function hashBytesOf(s: unknown): Uint8Array | undefined {
  const out = new Uint8Array(32);
  return writeHashBytes(s, out, 0) ? out : undefined;
}

/**
 * Writes the 32 bytes of `sha256:` + 64 lowercase hex into `into` at `at`; false (bytes there
 * unspecified) for anything else. The decoder of hashBytesOf, for callers that lay the bytes into
 * a record of their own (logstore/entry-codec.ts) without a buffer per hash.
 */
export function writeHashBytes(s: unknown, into: Uint8Array, at: number): boolean {
  if (typeof s !== 'string' || s.length !== 71 || !s.startsWith('sha256:') || at < 0 || at + 32 > into.length) return false;
  for (let i = 0; i < 32; i++) {
    const hi = hexDigit(s.charCodeAt(7 + 2 * i));
    const lo = hexDigit(s.charCodeAt(8 + 2 * i));
    if ((hi | lo) < 0) return false;
    into[at + i] = (hi << 4) | lo;
  }
  return true;
}

export function isHashString(s: unknown): s is string {
  if (typeof s !== 'string' || s.length !== 71 || !s.startsWith('sha256:')) return false;
  for (let i = 7; i < 71; i++) if (hexDigit(s.charCodeAt(i)) < 0) return false;
  return true;
}

/** `sha256:`+hex of 32 bytes. */
export function formatHash(digest: Uint8Array): string {
  if (digest.length !== 32) throw new TypeError('a SHA-256 digest is 32 bytes');
  return 'sha256:' + toHex(digest);
}

export function parseHash(s: unknown): Result<Uint8Array> {
  const b = hashBytesOf(s);
  return b ? ok(b) : fail('invalid_hash', `not sha256:<64 hex>: ${String(s).slice(0, 80)}`);
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const num = (s: string, a: number, b: number) => {
  let n = 0;
  for (let i = a; i < b; i++) n = n * 10 + (s.charCodeAt(i) - 48);
  return n;
};

/** RFC 3339 UTC with milliseconds, as toISOString() spells it (checked field by field: hot path). */
export function isTime(s: unknown): s is string {
  if (typeof s !== 'string' || s.length !== 24 || !TIME_RE.test(s)) return false;
  const y = num(s, 0, 4);
  const mo = num(s, 5, 7);
  const d = num(s, 8, 10);
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (d > (mo === 2 && leap ? 29 : DAYS[mo - 1])) return false;
  return num(s, 11, 13) < 24 && num(s, 14, 16) < 60 && num(s, 17, 19) < 60;
}

/** RFC 3339 UTC with milliseconds, the one time spelling on the wire. */
export function formatTime(ms: number | Date): string {
  return new Date(typeof ms === 'number' ? ms : ms.getTime()).toISOString();
}

export function timeMs(s: string): number {
  return Date.parse(s);
}

const enc = new TextEncoder();
// fatal: invalid UTF-8 throws instead of becoming U+FFFD; ignoreBOM: a leading U+FEFF is kept as a
// character instead of being silently dropped, so decoding never shortens what was received.
const dec = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/**
 * UTF-8 of s (a lone surrogate becomes U+FFFD, as TextEncoder does). Under Node through Buffer,
 * about six times faster than TextEncoder on short strings, returned as a plain Uint8Array view
 * (so slice() copies, as on any Uint8Array); its ArrayBuffer may be Node's shared pool, so
 * readers use byteOffset/byteLength and nothing transfers it.
 */
export function utf8(s: string): Uint8Array {
  if (!NodeBuffer) return enc.encode(s);
  const b = NodeBuffer.from(s, 'utf8');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
/** base64url (no padding) of the UTF-8 of text; one native pass under Node. */
export function textToBase64url(text: string): string {
  return NodeBuffer ? NodeBuffer.from(text, 'utf8').toString('base64url') : toBase64url(utf8(text));
}
/**
 * The text of UTF-8 bytes, exactly: a leading U+FEFF stays in the string, and invalid UTF-8
 * (overlong forms, surrogates, truncated sequences) throws a TypeError (decodeUtf8 returns a
 * Result instead). So utf8(fromUtf8(b)) equals b whenever it returns. It is for reading and
 * display: a signature is checked over the bytes received, never over bytes re-encoded from this.
 */
export function fromUtf8(b: Uint8Array): string {
  return dec.decode(b);
}

/** fromUtf8 as a Result: 'bad_request' for invalid UTF-8 (callers re-code it in context). */
export function decodeUtf8(b: Uint8Array): Result<string> {
  try {
    return ok(dec.decode(b));
  } catch {
    return fail('bad_request', 'not valid UTF-8');
  }
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i] ^ b[i];
  return d === 0;
}
