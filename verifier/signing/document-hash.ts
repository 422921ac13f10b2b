// verifier/signing/document-hash.ts: the document hash of Cookwala Core 0.2 §5: `sha256:` + hex(SHA-256(UTF-8(
// JCS(doc without its top-level `hash` and `signature` members)))). For a CloudEvent (a document
// with `specversion`) the signature member is the extension `cookwalasig`, and `hash`/`signature`
// are ordinary extensions that stay covered. Only top-level members are removed: a nested `hash`
// is content. One function for signer and verifier, so both hash the same bytes.

import { canonicalize } from '../encoding/jcs.ts';
import { fail, ok, type Result } from '../errors.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import { hasMember, setMember } from '../encoding/own-member.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonObject = { [k: string]: Json };

/**
 * The `x-<vendor>-…` members that strict readers ignore (Core §2, §9): `x-`, a vendor name of
 * letters, digits and dots, a dash, then at least one character. They stay covered by hashes.
 */
export const VENDOR_MEMBER_PATTERN = '^x-[A-Za-z0-9.]+-.';
const VENDOR_MEMBER_RE = new RegExp(VENDOR_MEMBER_PATTERN);
export function isVendorMember(name: string): boolean {
  return VENDOR_MEMBER_RE.test(name);
}

export function isCloudEvent(doc: object): boolean {
  return hasMember(doc, 'specversion');
}

/** The members covered by the hash: everything but the top-level hash and signature members. */
export function hashedView(doc: JsonObject): JsonObject {
  const ce = isCloudEvent(doc);
  // Most documents on the hot path (entries being built, events without a signature) have
  // nothing to drop: canonicalize them as they are instead of copying.
  if (ce ? !hasMember(doc, 'cookwalasig') : !hasMember(doc, 'hash') && !hasMember(doc, 'signature')) return doc;
  const out: JsonObject = {};
  for (const k of Object.keys(doc)) {
    if (ce ? k === 'cookwalasig' : k === 'hash' || k === 'signature') continue;
    setMember(out, k, doc[k]); // not out[k] = …, which would drop a `__proto__` member
  }
  return out;
}

export function computeHash(doc: JsonObject, backend: CryptoBackend = defaultBackend()): Result<string> {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return fail('invalid_document', 'a document is a JSON object');
  const c = canonicalize(hashedView(doc));
  if (!c.ok) return c;
  return ok('sha256:' + backend.sha256Hex(c.value));
}

/** The hash, for documents already known to be canonicalizable (throws otherwise). */
export function documentHash(doc: JsonObject, backend?: CryptoBackend): string {
  const r = computeHash(doc, backend);
  if (!r.ok) throw new TypeError(`${r.code}: ${r.detail}`);
  return r.value;
}

/** SHA-256 of arbitrary JSON's canonical form, as a hash string (used for disclosures, payload lines). */
export function jsonHash(value: unknown, backend: CryptoBackend = defaultBackend()): Result<string> {
  const c = canonicalize(value);
  if (!c.ok) return c;
  return ok('sha256:' + backend.sha256Hex(c.value));
}
