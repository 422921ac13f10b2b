// verifier/cloudevent/read.ts: CloudEvents 1.0 in the JSON event format (json-format.md) as Cookwala
// carries them (docs/design.md §4, §5): strict reading, the binary-mode type restoration, the event hash
// and the device signature in the `cookwalasig` extension = base64url(JCS(Signature)) over the
// header {alg, hash: eventHash, kid, kind: "Event", signedAt}.
// The event hash is the Core §5 document hash of the JSON-format event without `cookwalasig`, where
// an attribute whose value is JSON null is left out (json-format §3: null means "not set", and
// binary mode cannot carry it), so structured and binary deliveries hash alike. `data: null` is a
// payload, not an attribute, and stays. The reader checks syntax only: which key may sign for which
// source is verifyEventSignature's job. Left out: batch parsing (an array of these, read one by
// one by the caller) and the 0.3 attributes.

import { fail, ok, type Result } from '../errors.ts';
import { setMember } from '../encoding/own-member.ts';
import { parseJson } from '../encoding/strict-json.ts';
import { canonicalize, isPlainJsonString } from '../encoding/jcs.ts';
import { isBase64url, isTime, textToBase64url, utf8OfBase64url } from '../encoding/wire.ts';
import { computeHash, type JsonObject } from '../signing/document-hash.ts';
import { defaultBackend } from '../crypto/default.ts';
import { parseSignature, signHash, verifyHashSignature, type Signature, type Signer, type VerifyOptions } from '../signing/signature.ts';
import type { KeyRecord } from '../signing/keys.ts';
import { fromBase64, isAbsoluteUri, isJsonMediaType, isMediaType, isRfc3339, isUriReference, toBase64 } from './format.ts';

export type CloudEvent = Record<string, unknown> & {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject?: string;
  cookwalaseq?: number;
  cookwalasig?: string;
  data?: unknown;
  data_base64?: string;
  datacontenttype?: string;
};

/** The kind that event signatures carry in their signing header. */
export const EVENT_KIND = 'Event';
/** CloudEvents Integer is signed 32-bit; cookwalaseq is its non-negative half. */
export const MAX_COOKWALASEQ = 2147483647;

/** A CloudEvents attribute name (spec.md Naming Conventions, at most 20 characters). */
export const ATTRIBUTE_NAME_RE = /^[a-z0-9]{1,20}$/;
const REQUIRED = ['specversion', 'id', 'source', 'type'] as const;

const bad = (detail: string) => fail('invalid_event', detail);

function isObject(x: unknown): x is Record<string, unknown> {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

function isInt(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}

/** One attribute's value against the CloudEvents type of that attribute (spec.md Type System). */
function checkAttribute(name: string, v: unknown): string | undefined {
  switch (name) {
    case 'specversion':
      return v === '1.0' ? undefined : `specversion is "1.0", not ${JSON.stringify(v)}`;
    case 'id':
    case 'type':
    case 'subject':
      return typeof v === 'string' && v.length > 0 ? undefined : `${name} is a non-empty string`;
    case 'source':
      return typeof v === 'string' && v.length > 0 && isUriReference(v) ? undefined : 'source is a non-empty URI-reference';
    case 'time':
      return isRfc3339(v) ? undefined : 'time is an RFC 3339 timestamp';
    case 'datacontenttype':
      return isMediaType(v) ? undefined : 'datacontenttype is an RFC 2046 media type';
    case 'dataschema':
      return isAbsoluteUri(v) ? undefined : 'dataschema is a non-empty absolute URI';
    case 'cookwalaseq':
      return isInt(v, 0, MAX_COOKWALASEQ) ? undefined : `cookwalaseq is an integer from 0 to ${MAX_COOKWALASEQ}`;
    case 'cookwalasig':
      return typeof v === 'string' && v.length > 0 && isBase64url(v) ? undefined : 'cookwalasig is base64url without padding';
    default:
      // Extensions: String, Boolean or Integer in the JSON format (URI, Timestamp, Binary travel as strings).
      if (typeof v === 'string' || typeof v === 'boolean' || isInt(v, -2147483648, 2147483647)) return undefined;
      return `extension ${name} is a string, a boolean or a 32-bit integer`;
  }
}

/**
 * Read a CloudEvent in the JSON format strictly: the four required attributes, attribute names of
 * 1 to 20 lower-case letters or digits, each attribute's type, `data` and `data_base64` never both,
 * `data_base64` canonical RFC 4648 base64, non-JSON `data` a string. Returns the same object.
 */
export function readCloudEvent(json: unknown): Result<CloudEvent> {
  if (!isObject(json)) return bad('a CloudEvent in the JSON format is a JSON object');
  for (const r of REQUIRED) if (json[r] === undefined || json[r] === null) return bad(`${r} is required`);
  for (const name of Object.keys(json)) {
    if (name === 'data' || name === 'data_base64') continue;
    if (!ATTRIBUTE_NAME_RE.test(name))
      return bad(`attribute name ${JSON.stringify(name.slice(0, 40))} is not 1 to 20 lower-case letters or digits`);
    const v = json[name];
    if (v === null) continue; // an optional attribute set to null is not set (json-format §3)
    const why = checkAttribute(name, v);
    if (why) return bad(why);
  }
  const hasData = Object.prototype.hasOwnProperty.call(json, 'data');
  if (hasData && Object.prototype.hasOwnProperty.call(json, 'data_base64')) return bad('data and data_base64 are mutually exclusive');
  if (json.data_base64 !== undefined && json.data_base64 !== null && !fromBase64(json.data_base64))
    return bad('data_base64 is RFC 4648 base64 with padding');
  const ct = json.datacontenttype;
  if (hasData && json.data !== null && typeof ct === 'string' && !isJsonMediaType(ct) && typeof json.data !== 'string') {
    return bad(`data of non-JSON content type ${ct} is a string (json-format §3.1)`);
  }
  return ok(json as CloudEvent);
}

function header(headers: Record<string, unknown>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name) continue;
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  }
  return undefined;
}

function binaryBytes(v: unknown): Uint8Array | undefined {
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (v instanceof Uint32Array) return Uint8Array.from(v); // the cloudevents SDK's base64 decoding
  if (v instanceof Uint8Array) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  return undefined;
}

/**
 * Turn an event received in binary mode (e.g. the cloudevents SDK's HTTP.toEvent result, or any
 * object of attributes) into the plain JSON-format object that readCloudEvent and eventHash take:
 * `cookwalaseq` back to an Integer when its string is a canonical decimal (else left as a string,
 * for readCloudEvent to refuse), every other extension stays a string, binary `data` becomes
 * `data_base64`, unset (undefined) members go, a Date `time` becomes its ISO string. Pass the
 * request `headers` to take `time` verbatim from `ce-time`, and to drop the `time` that the SDK
 * invents when the header is absent (otherwise the hash would not match the device's).
 */
export function normalizeBinaryExtensions(ce: object, opts: { headers?: Record<string, unknown> } = {}): CloudEvent {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(ce)) if (v !== undefined) setMember(out, k, v);
  if (out.time instanceof Date) out.time = Number.isFinite(out.time.getTime()) ? out.time.toISOString() : String(out.time);
  if (opts.headers) {
    const t = header(opts.headers, 'ce-time');
    if (t === undefined) delete out.time;
    else out.time = t;
  }
  const bytes = binaryBytes(out.data);
  if (bytes) {
    // The SDK keeps binary data in `data` (and sometimes a copy in data_base64): one member stays.
    out.data_base64 = toBase64(bytes);
    delete out.data;
  }
  const seq = out.cookwalaseq;
  if (typeof seq === 'string' && /^(?:0|[1-9][0-9]{0,9})$/.test(seq) && Number(seq) <= MAX_COOKWALASEQ) out.cookwalaseq = Number(seq);
  return out as CloudEvent;
}

/**
 * The event hash (docs/design.md §4): the document hash of the JSON-format event without `cookwalasig`
 * and without attributes set to null. Binary `data` or an object-valued attribute is refused:
 * normalize first (normalizeBinaryExtensions), so one event has one hash. The canonical text is
 * written directly from the event (no filtered copy): the top-level members in sorted order, a
 * string as itself in quotes when it needs no escape, `data` through canonicalize; on anything
 * less plain (an escape, a non-finite number, a `data` with no fast form) the filtered copy is
 * canonicalized instead, so the bytes, and every refusal, are those of computeHash(view).
 * `stringsPlain`: the caller read `ce` from JSON text that isPlainJsonText accepted, so no string
 * in it needs the per-string check (the same text is written either way).
 */
export function eventHash(ce: CloudEvent, stringsPlain = false): Result<string> {
  if (!isObject(ce)) return bad('a CloudEvent is a JSON object');
  const names: string[] = [];
  let specversion = false;
  for (const k of Object.keys(ce)) {
    const v = ce[k];
    if (k === 'cookwalasig' || v === undefined) continue;
    if (k === 'data') {
      if (binaryBytes(v)) return bad('binary data is carried as data_base64 in the JSON format');
    } else if (v === null) continue;
    else if (typeof v === 'object') return bad(`attribute ${k} has an object value`);
    if (k === 'specversion') specversion = true;
    names.push(k);
  }
  if (!specversion || ce.specversion !== '1.0') return bad('specversion is "1.0"');
  sortNames(names);
  const text = directText(ce, names, stringsPlain);
  if (text !== undefined) return ok('sha256:' + defaultBackend().sha256Hex(text));
  const view: JsonObject = {};
  for (const k of names) setMember(view, k, ce[k]);
  return computeHash(view);
}

/**
 * Sorts member names in place by UTF-16 code units, as Array.prototype.sort does without a
 * comparator (RFC 8785 §3.2.3). Insertion sort: an event has about ten names, and the built-in
 * sort allocates a work array per call (measured: about 1 KB per event hash, a third of its garbage).
 */
function sortNames(a: string[]): void {
  for (let i = 1; i < a.length; i++) {
    const x = a[i];
    let j = i - 1;
    for (; j >= 0 && a[j] > x; j--) a[j + 1] = a[j];
    a[j + 1] = x;
  }
}

/**
 * JCS of the usual `data`: a plain object whose members are strings needing no escape, finite
 * numbers, booleans or null, under names that need no escape and do not start with a digit (V8
 * would enumerate those first). Undefined for anything else, which canonicalize then decides; the
 * text is the one canonicalize gives (read.test.ts compares them on random values).
 */
export function flatText(v: unknown, stringsPlain = false): string | undefined {
  if (v === null || typeof v !== 'object' || Object.getPrototypeOf(v) !== Object.prototype) return undefined;
  const keys = Object.keys(v);
  sortNames(keys);
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const c = k.charCodeAt(0);
    if ((c >= 48 && c <= 57) || (!stringsPlain && !isPlainJsonString(k))) return undefined;
    const x = (v as Record<string, unknown>)[k];
    let part: string;
    if (typeof x === 'string') {
      if (!stringsPlain && !isPlainJsonString(x)) return undefined;
      part = '"' + x + '"';
    } else if (typeof x === 'number') {
      if (!Number.isFinite(x)) return undefined;
      part = String(x); // a finite number: the same text as JSON.stringify (-0 too)
    } else if (typeof x === 'boolean') part = x ? 'true' : 'false';
    else if (x === null) part = 'null';
    else return undefined;
    text += (i === 0 ? '"' : ',"') + k + '":' + part;
  }
  return text + '}';
}

/** JCS of the named members of `ce` (names sorted), or undefined when not sure (see eventHash). */
function directText(ce: CloudEvent, names: readonly string[], stringsPlain: boolean): string | undefined {
  let text = '{';
  for (let i = 0; i < names.length; i++) {
    const k = names[i];
    const v = ce[k];
    if (!stringsPlain && !isPlainJsonString(k)) return undefined;
    // Appended piece by piece to one text (no intermediate part strings).
    text += i === 0 ? '"' + k + '":' : ',"' + k + '":';
    if (typeof v === 'string') {
      if (!stringsPlain && !isPlainJsonString(v)) return undefined;
      text += '"' + v + '"';
    } else if (typeof v === 'boolean') text += v ? 'true' : 'false';
    else if (typeof v === 'number') {
      if (!Number.isFinite(v)) return undefined;
      text += String(v);
    } else if (v === null) text += 'null';
    else {
      const flat = flatText(v, stringsPlain);
      if (flat !== undefined) text += flat;
      else {
        const c = canonicalize(v);
        if (!c.ok) return undefined;
        text += c.value;
      }
    }
  }
  return text + '}';
}

/** `stringsPlain`: the caller read `sig` from JSON text that isPlainJsonText accepted. */
export function encodeCookwalasig(sig: Signature, stringsPlain = false): string {
  // The usual Signature (exactly alg, kid, sig and signedAt, each a plain string) is written
  // directly in RFC 8785 member order; any other goes through canonicalize. Same text either way
  // (verifier/bundle/parts.test.ts).
  const plain = stringsPlain
    ? typeof sig.alg === 'string' && typeof sig.kid === 'string' && typeof sig.sig === 'string' && typeof sig.signedAt === 'string'
    : isPlainJsonString(sig.alg) && isPlainJsonString(sig.kid) && isPlainJsonString(sig.sig) && isPlainJsonString(sig.signedAt);
  if (Object.getPrototypeOf(sig) === Object.prototype && Object.keys(sig).length === 4 && plain)
    return textToBase64url(`{"alg":"${sig.alg}","kid":"${sig.kid}","sig":"${sig.sig}","signedAt":"${sig.signedAt}"}`);
  const c = canonicalize(sig);
  if (!c.ok) throw new TypeError(`${c.code}: ${c.detail}`);
  return textToBase64url(c.value);
}

const SIG_OPEN = '{"alg":"';
const SIG_KID = '","kid":"';
const SIG_SIG = '","sig":"';
const SIG_SIGNED_AT = '","signedAt":"';

/** The string between `from` and the next quote, when `text` continues there with `next`; else undefined. */
function between(text: string, from: number, next: string): string | undefined {
  const q = text.indexOf('"', from);
  if (q < 0 || !text.startsWith(next, q)) return undefined;
  return text.slice(from, q);
}

/**
 * The usual cookwalasig in one pass: text that is literally
 * {"alg":"…","kid":"…","sig":"…","signedAt":"…"} with four strings that hold no quote, backslash,
 * control character or lone surrogate, which is exactly the JCS form of that object (so no name
 * repeats and JSON.parse would read those four strings). Its value is taken only when it is a
 * valid Signature; anything else goes to the strict path below, which names the fault. Same value
 * and same verdict as the strict path (read.test.ts compares both on random texts).
 */
function usualSignature(text: string): Signature | undefined {
  if (text.length > 1024 || !text.startsWith(SIG_OPEN) || !text.endsWith('"}')) return undefined;
  let at = SIG_OPEN.length;
  const alg = between(text, at, SIG_KID);
  if (alg === undefined) return undefined;
  at += alg.length + SIG_KID.length;
  const kid = between(text, at, SIG_SIG);
  if (kid === undefined) return undefined;
  at += kid.length + SIG_SIG.length;
  const sig = between(text, at, SIG_SIGNED_AT);
  if (sig === undefined) return undefined;
  at += sig.length + SIG_SIGNED_AT.length;
  const signedAt = between(text, at, '"}');
  if (signedAt === undefined || at + signedAt.length + 2 !== text.length) return undefined;
  if (!isPlainJsonString(alg) || !isPlainJsonString(kid) || !isPlainJsonString(sig) || !isPlainJsonString(signedAt)) return undefined;
  const p = parseSignature({ alg, kid, sig, signedAt });
  return p.ok ? p.value : undefined;
}

/** Strict: base64url of UTF-8 of exactly the JCS form of a valid Signature object. */
export function decodeCookwalasig(s: string): Result<Signature> {
  if (typeof s !== 'string') return fail('malformed_signature', 'cookwalasig is a string');
  if (!isBase64url(s)) return fail('malformed_signature', 'cookwalasig is not base64url without padding');
  const t = utf8OfBase64url(s);
  if (!t.ok) return fail('malformed_signature', 'cookwalasig is not UTF-8');
  const text = t.value;
  const usual = usualSignature(text);
  if (usual) return ok(usual);
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

/** Sign an event as a device does: returns a copy carrying `cookwalasig` (any old one replaced). */
export function signEvent(ce: CloudEvent, signer: Signer, signedAt: string): CloudEvent {
  if (!isTime(signedAt)) throw new TypeError('signedAt is an RFC 3339 UTC time with milliseconds');
  const h = eventHash(ce);
  if (!h.ok) throw new TypeError(`${h.code}: ${h.detail}`);
  return { ...ce, cookwalasig: encodeCookwalasig(signHash(h.value, EVENT_KIND, signer, signedAt)) };
}

export type EventVerifyOptions = VerifyOptions & {
  /** Require key.owner === the event source (default true); sequencer-made entries turn it off. */
  checkSource?: boolean;
};

export interface VerifiedEvent {
  eventHash: string;
  signature: Signature;
  key: KeyRecord;
  legacy: boolean;
}

/**
 * The shared core of event and entry signature checks: look the kid up (unknown_key), verify over
 * {alg, hash: eventHash, kid, kind: "Event", signedAt} with role `device` unless opts.role says
 * otherwise (bad_signature, key_role_mismatch, key_revoked, key_not_valid_at), then the owner rule
 * (source_mismatch).
 */
export function verifyEventHashSignature(
  hash: string,
  signature: unknown,
  source: string,
  lookup: (kid: string) => KeyRecord | undefined,
  opts: EventVerifyOptions = {},
): Result<VerifiedEvent> {
  const p = parseSignature(signature);
  if (!p.ok) return p;
  const key = lookup(p.value.kid);
  if (!key) return fail('unknown_key', `no trusted key ${p.value.kid}`, { kid: p.value.kid });
  const { checkSource, ...vopts } = opts;
  const r = verifyHashSignature(hash, EVENT_KIND, p.value, key, { ...vopts, role: opts.role ?? 'device' });
  if (!r.ok) return r;
  if (checkSource !== false && key.owner !== source)
    return fail('source_mismatch', `key ${key.kid} belongs to ${key.owner}, the event source is ${source}`, { kid: key.kid });
  return ok({ eventHash: hash, signature: p.value, key, legacy: r.value.legacy });
}

/** Verify an event's own `cookwalasig` against its recomputed event hash. */
export function verifyEventSignature(
  ce: CloudEvent,
  lookup: (kid: string) => KeyRecord | undefined,
  opts: EventVerifyOptions = {},
): Result<VerifiedEvent> {
  if (ce.cookwalasig === undefined || ce.cookwalasig === null) return fail('bad_signature', 'the event carries no cookwalasig');
  const sig = decodeCookwalasig(ce.cookwalasig);
  if (!sig.ok) return sig;
  const h = eventHash(ce);
  if (!h.ok) return h;
  return verifyEventHashSignature(h.value, sig.value, ce.source, lookup, opts);
}
