// verifier/signing/witness-identity.ts: a witness is its public key (docs/design.md §4). The one
// place that says whether two witness records are the same witness, which policy witness made a
// signature, and the one name a witness is shown by on every surface (policy show, checkpoint,
// GET …/witnesses, the explorer, metrics, log lines, verify reports).
// Identity: the record's keys, as raw bytes with their algorithm: the KeyRecord's `publicKey`
// (EdDSA, ES256 or ML-DSA-44) and the key of its C2SP `vkey` (cosignature/v1 Ed25519, or subtree/v1
// ML-DSA-44). Two records are the
// same witness when they share a key. `kid`, the C2SP key name, `owner` and `url` are labels and
// never decide: a policy converted from tlog-policy text, a witness card and a checkpoint may each
// spell them differently. A record whose EdDSA `publicKey` and `vkey` hold different keys is two
// witnesses in one record and is refused (readWitnessPolicy, through witnessKeyAgreement).
// Display name: `<C2SP key name, else owner> (<wit-fingerprint>)`, the fingerprint being `wit-` and
// the first 8 base64url characters of SHA-256 of the identity key, as our witnesses derive their
// kid (witness/server/data-dir.ts), so it is the same for every record of the same key.
// Leaves out: verifying signatures (../documents/checkpoint.ts, ../documents/checkpoint-c2sp.ts do, by the keys found here).
// Invariant: nothing here compares a kid.

import { fail, ok, type Result } from '../errors.ts';
import { sha256 } from '../crypto/default.ts';
import { fromBase64url, toBase64url } from '../encoding/wire.ts';
import { noteKeyId, parseVerifierKey, SIG_COSIGNATURE_V1, SIG_MLDSA44 } from '../c2sp/note/keys.ts';
import type { KeyRecord } from './keys.ts';

/** What identifies a witness; the rest of a KeyRecord is labels. */
export type WitnessRecord = Pick<KeyRecord, 'alg' | 'publicKey'> & Partial<Pick<KeyRecord, 'vkey' | 'owner' | 'kid'>>;

/** One key of a witness: its algorithm and raw public key bytes (base64url, for comparison). */
export interface WitnessKey {
  alg: 'EdDSA' | 'ES256' | 'ML-DSA-44';
  raw: string;
}

/** The C2SP vkey's key (Ed25519 or ML-DSA-44) and name, or undefined when absent or unreadable (the policy refuses those). */
function vkeyOf(w: WitnessRecord): { name: string; raw: string; alg: 'EdDSA' | 'ML-DSA-44' } | undefined {
  if (typeof w.vkey !== 'string') return undefined;
  const k = parseVerifierKey(w.vkey, false);
  if (!k.ok || (k.value.type !== SIG_COSIGNATURE_V1 && k.value.type !== SIG_MLDSA44)) return undefined;
  return { name: k.value.name, raw: toBase64url(k.value.publicKey), alg: k.value.type === SIG_MLDSA44 ? 'ML-DSA-44' : 'EdDSA' };
}

/** The record's own key in canonical base64url (the text may be spelled with padding or not). */
function recordKey(w: WitnessRecord): WitnessKey | undefined {
  if (w.alg !== 'EdDSA' && w.alg !== 'ES256' && w.alg !== 'ML-DSA-44') return undefined;
  const b = fromBase64url(w.publicKey);
  return b.ok ? { alg: w.alg, raw: toBase64url(b.value) } : undefined;
}

/** Every key of a witness record: its KeyRecord key and, when it differs, its vkey's Ed25519 key. */
export function witnessKeys(w: WitnessRecord): WitnessKey[] {
  const out: WitnessKey[] = [];
  const own = recordKey(w);
  if (own) out.push(own);
  const v = vkeyOf(w);
  if (v && !out.some((k) => k.alg === v.alg && k.raw === v.raw)) out.push({ alg: v.alg, raw: v.raw });
  return out;
}

/** The Ed25519 key a witness signs cosignature/v1 with: its vkey's key, else its EdDSA KeyRecord key. */
export function witnessEd25519Key(w: WitnessRecord): Uint8Array | undefined {
  const v = vkeyOf(w);
  const raw = (v?.alg === 'EdDSA' ? v.raw : undefined) ?? (w.alg === 'EdDSA' ? recordKey(w)?.raw : undefined);
  if (raw === undefined) return undefined;
  const b = fromBase64url(raw);
  return b.ok ? b.value : undefined;
}

/** Whether two witness records are the same witness: they share a public key. Labels never decide. */
export function sameWitness(a: WitnessRecord, b: WitnessRecord): boolean {
  const kb = witnessKeys(b);
  return witnessKeys(a).some((x) => kb.some((y) => x.alg === y.alg && x.raw === y.raw));
}

/** The record of `list` that is the same witness as `w`, if any. */
export function findWitness<T extends WitnessRecord>(list: readonly T[], w: WitnessRecord): T | undefined {
  return list.find((x) => sameWitness(x, w));
}

/** A record whose EdDSA key and vkey are both given must hold one key (else it is two witnesses). */
export function witnessKeyAgreement(w: WitnessRecord): Result<true> {
  const v = vkeyOf(w);
  const own = recordKey(w);
  if (!v || !own || own.alg !== v.alg || own.raw === v.raw) return ok(true);
  return fail('invalid_document', `witness ${w.kid ?? ''}: its vkey holds another key than its publicKey (one witness, one key)`);
}

/** `wit-` + the first 8 base64url characters of SHA-256 of the witness's identity key. */
export function witnessFingerprint(w: WitnessRecord): string {
  const k = witnessKeys(w)[0];
  const b = k ? fromBase64url(k.raw) : undefined;
  return b && b.ok ? `wit-${toBase64url(sha256(b.value)).slice(0, 8)}` : 'wit-?';
}

/** The one name a witness is shown by: its C2SP key name (else owner) and its key fingerprint. */
export function witnessDisplayName(w: WitnessRecord): string {
  const fp = witnessFingerprint(w);
  const name = vkeyOf(w)?.name ?? (typeof w.owner === 'string' && w.owner !== '' ? w.owner : undefined);
  return name === undefined || name === fp ? fp : `${name} (${fp})`;
}

/**
 * The policy witness a cosignature/v1 named `<name>+<key id>` can be by, found by key: the witness
 * whose Ed25519 key gives that key ID under that name (C2SP key IDs bind name and key). The name is
 * whatever the witness signs as; the policy's own spelling of it does not matter.
 */
export function witnessOfC2spKid<T extends WitnessRecord>(list: readonly T[], c2spKid: string): T | undefined {
  const p = c2spKid.lastIndexOf('+');
  if (p <= 0) return undefined;
  const name = c2spKid.slice(0, p);
  const id = c2spKid.slice(p + 1).toLowerCase();
  return list.find((w) => {
    const k = witnessEd25519Key(w);
    return k !== undefined && noteKeyId(name, SIG_COSIGNATURE_V1, k) === id;
  });
}

/**
 * The records in the order to try a JCS cosignature's key against: the one whose kid is the
 * signature's label first (usually the signer, so one verification), then the others. The label
 * orders the search and never ends it: the witness is the record whose key verifies.
 */
export function labelFirst<T extends WitnessRecord>(list: readonly T[], label: string): T[] {
  const first = list.filter((w) => w.kid === label);
  return first.length === 0 ? list.slice() : [...first, ...list.filter((w) => w.kid !== label)];
}

/** Whether a label names a record of the list: only to choose the words of a refusal, never to count. */
export function labelNamesOne(list: readonly WitnessRecord[], label: string): boolean {
  return list.some((w) => w.kid === label);
}
