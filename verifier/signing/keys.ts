// verifier/signing/keys.ts: KeyRecords (Core 0.2 §5) and their validity rule: a signature counts only if
// validFrom <= signedAt, signedAt <= validUntil (when set) and signedAt < revokedAt (when set);
// at exactly revokedAt the key is already revoked. The key cache is the offline store of trusted
// records ({"kind":"KeyCache","keys":[…]}); reading it from a file is auditor's job.
// Every key passes publicKeyBytes(), which applies the one Ed25519 key rule (verifier/crypto/ed25519-rules.ts):
// a small-order, mixed-order or non-canonical EdDSA key is refused with weak_key wherever a
// KeyRecord is read (documents, policy, key cache, registration, bundles). Keys that passed it, and
// key record times that parsed, are remembered by their exact text in bounded maps (only passes:
// every refusal is decided again), so a verifier checking one log's key per request decodes it once.
// alg ML-DSA-44 (a 1312-byte key) is for witnesses known only by their C2SP ML-DSA-44
// cosignatures (a policy's foreign witness): such a record signs no JCS document.

import { fail, ok, type Result } from '../errors.ts';
import { fromBase64url, isTime, timeMs } from '../encoding/wire.ts';
import type { Signature } from './signature-types.ts';
import { checkEd25519PublicKey } from '../crypto/ed25519-rules.ts';
import { MLDSA44_PUBLIC_KEY_BYTES } from '../crypto/mldsa44.ts';

export const KEY_ROLES = ['sequencer', 'witness', 'device', 'operator', 'catalog'] as const;
export type KeyRole = (typeof KEY_ROLES)[number];
export type Alg = 'EdDSA' | 'ES256';
/** A KeyRecord's algorithm: a signing one, or ML-DSA-44 for a witness known only by its C2SP cosignatures. */
export type KeyAlg = Alg | 'ML-DSA-44';

export interface KeyRecord {
  kind: 'KeyRecord';
  kid: string;
  alg: KeyAlg;
  publicKey: string;
  owner: string;
  role: KeyRole;
  validFrom: string;
  validUntil?: string;
  revokedAt?: string;
  hash?: string;
  signature?: Signature;
  /** A witness's C2SP verifier key (cosignature/v1, type 0x04; docs/design.md §4, §7a). */
  vkey?: string;
  /** A witness's tlog-witness submission prefix (the sequencer POSTs `<url>/add-checkpoint`). */
  url?: string;
}

// The times of key records (few distinct strings, read on every signature) by their exact text:
// only strings that passed isTime are kept, with timeMs of them. Bounded like the key cache.
const KEY_TIMES_MAX = 65_536;
const keyTimes = new Map<string, number>();

/** timeMs of a key record's time, or undefined when it is not an RFC 3339 UTC time (isTime). */
function keyTimeMs(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined;
  let t = keyTimes.get(s);
  if (t === undefined) {
    if (!isTime(s)) return undefined;
    t = timeMs(s);
    if (keyTimes.size >= KEY_TIMES_MAX) keyTimes.delete(keyTimes.keys().next().value as string);
    keyTimes.set(s, t);
  }
  return t;
}

export function checkKeyValidAt(key: KeyRecord, signedAt: string): Result<true> {
  if (!isTime(signedAt)) return fail('invalid_document', `signedAt is not an RFC 3339 UTC time: ${signedAt}`);
  // Fail closed: a record whose times do not parse would otherwise compare as NaN and pass.
  const from = keyTimeMs(key.validFrom);
  if (from === undefined) return fail('invalid_document', `key ${key.kid} validFrom is not an RFC 3339 UTC time`);
  const until = key.validUntil === undefined ? undefined : keyTimeMs(key.validUntil);
  if (key.validUntil !== undefined && until === undefined)
    return fail('invalid_document', `key ${key.kid} validUntil is not an RFC 3339 UTC time`);
  const revoked = key.revokedAt === undefined ? undefined : keyTimeMs(key.revokedAt);
  if (key.revokedAt !== undefined && revoked === undefined)
    return fail('invalid_document', `key ${key.kid} revokedAt is not an RFC 3339 UTC time`);
  const t = timeMs(signedAt);
  if (revoked !== undefined && t >= revoked)
    return fail('key_revoked', `key ${key.kid} revoked at ${key.revokedAt}, signedAt ${signedAt}`, { kid: key.kid });
  if (t < from) return fail('key_not_valid_at', `key ${key.kid} valid from ${key.validFrom}, signedAt ${signedAt}`, { kid: key.kid });
  if (until !== undefined && t > until)
    return fail('key_not_valid_at', `key ${key.kid} valid until ${key.validUntil}, signedAt ${signedAt}`, { kid: key.kid });
  return ok(true);
}

// Keys that passed publicKeyBytes with the key rule, per alg, by their exact base64url text (a
// witness of 40,000 logs checks each log's key on every checkpoint: decoding it again each time
// was a measurable part of the request). Bounded: the oldest entry goes first; about 150 bytes an entry.
const PASSED_MAX = 65_536;
const PASSED_EDDSA = new Map<string, Uint8Array>();
const PASSED_ES256 = new Map<string, Uint8Array>();
const PASSED_MLDSA = new Map<string, Uint8Array>();
const passedOf = (alg: unknown): Map<string, Uint8Array> | undefined =>
  alg === 'EdDSA' ? PASSED_EDDSA : alg === 'ES256' ? PASSED_ES256 : alg === 'ML-DSA-44' ? PASSED_MLDSA : undefined;

/**
 * The raw public key bytes, checked for length (Ed25519: 32; P-256: 65 uncompressed) and, for
 * EdDSA, the key rule, unless `keyRule` is false: then the rule (about 1 ms a key: a scalar
 * multiplication) is left to the first signature checked with the key, which always runs it
 * (verifier/crypto/ed25519-rules.ts). A reader of many keys checked before (a witness's config
 * of 40,000 admitted logs at start-up) passes false.
 */
export function publicKeyBytes(key: Pick<KeyRecord, 'alg' | 'publicKey'>, keyRule = true): Result<Uint8Array> {
  // A key that passed (length and, for EdDSA, the key rule) before is found by its exact text; the
  // caller gets its own copy, as from a decode. Only passes are kept, so every refusal is decided afresh.
  const passed = keyRule && typeof key.publicKey === 'string' ? passedOf(key.alg)?.get(key.publicKey) : undefined;
  if (passed !== undefined) return ok(passed.slice());
  const b = fromBase64url(key.publicKey);
  if (!b.ok) return fail('invalid_document', 'publicKey is not base64url');
  const want = key.alg === 'EdDSA' ? 32 : key.alg === 'ES256' ? 65 : key.alg === 'ML-DSA-44' ? MLDSA44_PUBLIC_KEY_BYTES : -1;
  if (want < 0) return fail('unsupported_alg', `alg ${String(key.alg)}`);
  if (b.value.length !== want) return fail('invalid_document', `publicKey of ${key.alg} is ${want} bytes, got ${b.value.length}`);
  if (key.alg === 'EdDSA' && keyRule) {
    const w = checkEd25519PublicKey(b.value);
    if (!w.ok) return w;
  }
  if (keyRule) {
    const m = passedOf(key.alg)!;
    if (m.size >= PASSED_MAX) m.delete(m.keys().next().value as string);
    m.set(key.publicKey, b.value.slice());
  }
  return ok(b.value);
}

export function sameKey(a: Pick<KeyRecord, 'alg' | 'publicKey'>, b: Pick<KeyRecord, 'alg' | 'publicKey'>): boolean {
  return a.alg === b.alg && a.publicKey === b.publicKey;
}

export function validKeyRecordShape(k: KeyRecord, keyRule = true): Result<true> {
  if (!KEY_ROLES.includes(k.role)) return fail('invalid_document', `role ${String(k.role)}`);
  if (typeof k.owner !== 'string' || k.owner.length === 0) return fail('invalid_document', 'owner is a non-empty string');
  for (const f of ['validFrom', 'validUntil', 'revokedAt'] as const) {
    if ((f === 'validFrom' || k[f] !== undefined) && !isTime(k[f])) return fail('invalid_document', `${f} is not an RFC 3339 UTC time`);
  }
  if (k.validUntil !== undefined && timeMs(k.validUntil) < timeMs(k.validFrom))
    return fail('invalid_document', 'validUntil is before validFrom');
  // An ML-DSA-44 record names a witness by its C2SP cosignatures only (docs/design.md §7a): nothing
  // else signs with such a key here, so no other role may hold one.
  if (k.alg === 'ML-DSA-44' && k.role !== 'witness')
    return fail('unsupported_alg', `an ML-DSA-44 KeyRecord is a witness's C2SP key; ${k.kid} has role ${String(k.role)}`);
  const pk = publicKeyBytes(k, keyRule);
  return pk.ok ? ok(true) : pk;
}

export interface KeyCache {
  get(kid: string): KeyRecord | undefined;
  all(): KeyRecord[];
  add(k: KeyRecord): void;
  toJSON(): { kind: 'KeyCache'; keys: KeyRecord[] };
}

/** A key cache over records; a later record for the same kid replaces the earlier (e.g. a revocation). */
export function createKeyCache(records: KeyRecord[] = []): KeyCache {
  const byKid = new Map<string, KeyRecord>();
  const cache: KeyCache = {
    get: (kid) => byKid.get(kid),
    all: () => [...byKid.values()],
    add: (k) => void byKid.set(k.kid, k),
    toJSON: () => ({ kind: 'KeyCache', keys: [...byKid.values()] }),
  };
  for (const r of records) cache.add(r);
  return cache;
}

export function parseKeyCache(json: unknown): Result<KeyCache> {
  const o = json as { kind?: unknown; keys?: unknown };
  if (!o || typeof o !== 'object' || o.kind !== 'KeyCache' || !Array.isArray(o.keys))
    return fail('invalid_document', 'a key cache is {"kind":"KeyCache","keys":[…]}');
  for (const k of o.keys as KeyRecord[]) {
    if (!k || k.kind !== 'KeyRecord' || typeof k.kid !== 'string') return fail('invalid_document', 'a key cache holds KeyRecords');
    const v = validKeyRecordShape(k);
    if (!v.ok) return v;
  }
  return ok(createKeyCache(o.keys as KeyRecord[]));
}
