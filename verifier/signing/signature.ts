// verifier/signing/signature.ts: signing and verifying per RFC-0012 (Core 0.2 §5). The signed bytes are
// UTF-8(JCS({alg, hash, kid, kind?, signedAt})), built by signingHeaderBytes() alone, which both
// the signer and the verifier call: a signature therefore cannot move to another document, key
// id, algorithm, kind or time. Documents declared at coreVersion 0.2.0 were signed over the bare
// hash string; those verify only when the caller passes `allowLegacy`, and the result says so.

import { fail, ok, type Result } from '../errors.ts';
import { canonicalize, isPlainJsonString } from '../encoding/jcs.ts';
import { fromBase64url, isBase64url, isHashString, isTime, toBase64url, utf8 } from '../encoding/wire.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import { checkKeyValidAt, publicKeyBytes, type Alg, type KeyAlg, type KeyRecord, type KeyRole } from './keys.ts';
import { computeHash, isVendorMember, type JsonObject } from './document-hash.ts';
import type { Signature, SigningHeader } from './signature-types.ts';
import { checkEd25519Signature, verifyEd25519 } from '../crypto/ed25519-rules.ts';

export type { Signature, SigningHeader };

export const ALGS: readonly Alg[] = ['EdDSA', 'ES256'];

export function signingHeader(sig: Pick<Signature, 'alg' | 'kid' | 'signedAt'>, hash: string, kind?: string): SigningHeader {
  const h: SigningHeader = { alg: sig.alg, hash, kid: sig.kid, signedAt: sig.signedAt };
  if (kind !== undefined) h.kind = kind;
  return h;
}

/**
 * UTF-8(JCS(h)). The usual header (a plain object of exactly alg, hash, kid, signedAt and perhaps
 * kind, every one a string that needs no escape) is written directly in RFC 8785 member order;
 * anything else goes through canonicalize. Same bytes either way (signature.test.ts).
 * `stringsPlain`: the caller took every string of `h` from JSON text that isPlainJsonText accepted.
 */
export function signingHeaderBytes(h: SigningHeader, stringsPlain = false): Uint8Array {
  return utf8(signingHeaderText(h, stringsPlain));
}

/**
 * The text whose UTF-8 is signingHeaderBytes(h), for a caller that writes the bytes into a buffer
 * of its own (the signature pool). Throws as signingHeaderBytes does, for a header with no JCS form.
 */
export function signingHeaderText(h: SigningHeader, stringsPlain = false): string {
  const kind = h.kind;
  const plain = stringsPlain
    ? typeof h.alg === 'string' &&
      typeof h.hash === 'string' &&
      typeof h.kid === 'string' &&
      typeof h.signedAt === 'string' &&
      (kind === undefined || typeof kind === 'string')
    : isPlainJsonString(h.alg) &&
      isPlainJsonString(h.hash) &&
      isPlainJsonString(h.kid) &&
      isPlainJsonString(h.signedAt) &&
      (kind === undefined || isPlainJsonString(kind));
  if (Object.getPrototypeOf(h) === Object.prototype && Object.keys(h).length === (kind === undefined ? 4 : 5) && plain) {
    return kind === undefined
      ? `{"alg":"${h.alg}","hash":"${h.hash}","kid":"${h.kid}","signedAt":"${h.signedAt}"}`
      : `{"alg":"${h.alg}","hash":"${h.hash}","kid":"${h.kid}","kind":"${kind}","signedAt":"${h.signedAt}"}`;
  }
  const c = canonicalize(h);
  if (!c.ok) throw new TypeError(`${c.code}: ${c.detail}`);
  return c.value;
}

export interface Signer {
  readonly kid: string;
  readonly alg: Alg;
  readonly publicKey: Uint8Array;
  sign(msg: Uint8Array): Uint8Array;
}

export interface SecretKey {
  alg: Alg;
  kid: string;
  /** base64url: the 32-byte Ed25519 seed or P-256 scalar. */
  secretKey: string;
}

export function createSigner(k: SecretKey, backend: CryptoBackend = defaultBackend()): Signer {
  const secret = fromBase64url(k.secretKey);
  if (!secret.ok || secret.value.length !== 32) throw new TypeError('secretKey is 32 bytes of base64url');
  const s = secret.value;
  if (k.alg === 'EdDSA') return { kid: k.kid, alg: k.alg, publicKey: backend.ed25519PublicKey(s), sign: (m) => backend.ed25519Sign(s, m) };
  if (k.alg === 'ES256') return { kid: k.kid, alg: k.alg, publicKey: backend.p256PublicKey(s), sign: (m) => backend.p256Sign(s, m) };
  throw new TypeError(`unsupported alg ${String(k.alg)}`);
}

/** A fresh key; `seed` makes it deterministic (tests and vectors). P-256 seeds must be a valid scalar. */
export function generateSecretKey(alg: Alg, kid: string, backend: CryptoBackend = defaultBackend(), seed?: Uint8Array): SecretKey {
  const bytes = seed ?? backend.randomBytes(32);
  if (bytes.length !== 32) throw new TypeError('a seed is 32 bytes');
  return { alg, kid, secretKey: toBase64url(bytes) };
}

export function keyRecordOf(
  signer: Signer,
  fields: { owner: string; role: KeyRole; validFrom: string; validUntil?: string; revokedAt?: string },
): KeyRecord {
  const k: KeyRecord = {
    kind: 'KeyRecord',
    kid: signer.kid,
    alg: signer.alg,
    publicKey: toBase64url(signer.publicKey),
    owner: fields.owner,
    role: fields.role,
    validFrom: fields.validFrom,
  };
  if (fields.validUntil) k.validUntil = fields.validUntil;
  if (fields.revokedAt) k.revokedAt = fields.revokedAt;
  return k;
}

export function signHash(hash: string, kind: string | undefined, signer: Signer, signedAt: string): Signature {
  const base = { alg: signer.alg, kid: signer.kid, signedAt };
  const sig = signer.sign(signingHeaderBytes(signingHeader(base, hash, kind)));
  return { ...base, sig: toBase64url(sig) };
}

/** Hash a document and sign it: returns the document with `hash` and a single `signature`. */
export function signDocument<T extends JsonObject>(
  doc: T,
  signer: Signer,
  signedAt: string,
  backend?: CryptoBackend,
): T & { hash: string; signature: Signature } {
  const h = computeHash(doc, backend);
  if (!h.ok) throw new TypeError(`${h.code}: ${h.detail}`);
  const kind = typeof doc.kind === 'string' ? doc.kind : undefined;
  return { ...doc, hash: h.value, signature: signHash(h.value, kind, signer, signedAt) };
}

/** The verify entry point of every part; EdDSA goes through the one Ed25519 rule before the backend. */
export function verifyRaw(
  alg: KeyAlg,
  publicKey: Uint8Array,
  msg: Uint8Array,
  sig: Uint8Array,
  backend: CryptoBackend = defaultBackend(),
): boolean {
  if (alg === 'EdDSA') return verifyEd25519(backend, publicKey, msg, sig);
  if (alg === 'ES256') return backend.p256Verify(publicKey, msg, sig);
  return false;
}

export function parseSignature(x: unknown): Result<Signature> {
  const s = x as Signature;
  if (!s || typeof s !== 'object' || Array.isArray(s)) return fail('malformed_signature', 'a Signature is an object');
  for (const k of Object.keys(s))
    if (!['alg', 'kid', 'signedAt', 'sig'].includes(k) && !isVendorMember(k)) return fail('unknown_field', `Signature.${k}`);
  if (!ALGS.includes(s.alg)) return fail('unsupported_alg', `alg ${String(s.alg)}`);
  if (typeof s.kid !== 'string' || s.kid.length === 0) return fail('malformed_signature', 'kid');
  if (!isTime(s.signedAt)) return fail('malformed_signature', 'signedAt is not an RFC 3339 UTC time with milliseconds');
  if (!isBase64url(s.sig)) return fail('malformed_signature', 'sig is not base64url');
  return ok(s);
}

export interface VerifyOptions {
  backend?: CryptoBackend;
  /** Accept 0.2.0 bare-hash signatures (only for documents that declare coreVersion 0.2.0). */
  allowLegacy?: boolean;
  /** The role the key must have, when the context demands one. */
  role?: KeyRole;
  /**
   * The key was chosen by its bytes (a witness is its public key, witness-identity.ts): the
   * signature's kid is a label, still covered by the signature, but not compared with the record's.
   */
  keyByBytes?: boolean;
}

export interface Verified {
  kid: string;
  /** true when the signature was a 0.2.0 bare-hash signature, accepted only by request. */
  legacy: boolean;
}

/**
 * Verify a Signature over a document hash with a trusted KeyRecord: the kid and alg must match the
 * record, the key must be valid at signedAt, and the signature must cover the rebuilt header.
 */
export function verifyHashSignature(
  hash: string,
  kind: string | undefined,
  signature: unknown,
  key: KeyRecord,
  opts: VerifyOptions = {},
): Result<Verified> {
  const p = parseSignature(signature);
  if (!p.ok) return p;
  const s = p.value;
  if (!isHashString(hash)) return fail('invalid_hash', 'document hash');
  if (!opts.keyByBytes && s.kid !== key.kid) return fail('bad_signature', `signature kid ${s.kid} is not key ${key.kid}`);
  if (s.alg !== key.alg) return fail('bad_signature', `signature alg ${s.alg} is not the key's ${key.alg}`);
  if (opts.role && key.role !== opts.role) return fail('key_role_mismatch', `key ${key.kid} has role ${key.role}, need ${opts.role}`);
  const pub = publicKeyBytes(key);
  if (!pub.ok) return pub;
  const sig = fromBase64url(s.sig);
  if (!sig.ok) return fail('malformed_signature', 'sig');
  if (s.alg === 'EdDSA') {
    const strict = checkEd25519Signature(sig.value);
    if (!strict.ok) return fail('bad_signature', `signature by ${s.kid}: ${strict.detail}`);
  }
  const backend = opts.backend ?? defaultBackend();
  const good = verifyRaw(s.alg, pub.value, signingHeaderBytes(signingHeader(s, hash, kind)), sig.value, backend);
  let legacy = false;
  if (!good) {
    const bare = verifyRaw(s.alg, pub.value, utf8(hash), sig.value, backend);
    if (!bare) return fail('bad_signature', `signature by ${s.kid} does not verify`);
    if (!opts.allowLegacy)
      return fail('legacy_signature', `signature by ${s.kid} covers the bare hash (Core 0.2.0); pass --allow-legacy-signatures to accept`);
    legacy = true;
  }
  const valid = checkKeyValidAt(key, s.signedAt);
  if (!valid.ok) return valid;
  return ok({ kid: s.kid, legacy });
}

/** Look the key up by the signature's kid, then verify. */
export function verifyWithKeys(
  hash: string,
  kind: string | undefined,
  signature: unknown,
  lookup: (kid: string) => KeyRecord | undefined,
  opts: VerifyOptions = {},
): Result<Verified> {
  const p = parseSignature(signature);
  if (!p.ok) return p;
  const key = lookup(p.value.kid);
  if (!key) return fail('unknown_key', `no trusted key ${p.value.kid}`, { kid: p.value.kid });
  return verifyHashSignature(hash, kind, p.value, key, opts);
}

/** Verify a document's own `signature` member (single Signature) against its recomputed hash. */
export function verifyDocument(
  doc: JsonObject,
  lookup: (kid: string) => KeyRecord | undefined,
  opts: VerifyOptions = {},
): Result<Verified & { hash: string }> {
  const h = computeHash(doc, opts.backend);
  if (!h.ok) return h;
  if (doc.hash !== undefined && doc.hash !== h.value)
    return fail('hash_mismatch', `hash member ${String(doc.hash)} is not the document hash ${h.value}`);
  const kind = typeof doc.kind === 'string' ? doc.kind : undefined;
  const allowLegacy = opts.allowLegacy === true && doc.coreVersion === '0.2.0';
  const r = verifyWithKeys(h.value, kind, doc.signature, lookup, { ...opts, allowLegacy });
  if (!r.ok) return r;
  return ok({ ...r.value, hash: h.value });
}
