// verifier/documents/checkpoint.ts: signed checkpoints (docs/design.md §4, Core §5): {kind:"Checkpoint", log, seq,
// head, root, hash, signature:[…]}, `head` the hash of entry `seq` (the descriptor's at seq 0) and
// `root` the RFC 6962 root as `sha256:` hex. signature[0] is the sequencer's, the others are
// witness cosignatures over the same header {alg, hash, kid, kind:"Checkpoint", signedAt}.
// Invariant of verifyCheckpoint: a cosignature counts only from a policy witness key whose public
// key is not the sequencer's (keys compared, not kids), and one key counts once however many kids
// or copies it appears under; bad cosignatures are reported but fail the result only when the
// quorum is then not met. Whether head and root match the entries is the log verifier's job.
// The array may also hold C2SP signatures (checkpoint-c2sp.ts): the log's note-ed25519 signature
// and its ML-DSA-44 note-mldsa44 one (checkpoint-log-mldsa.ts; both kept last: addCosignature
// inserts cosignatures before them) and cosignature/v1 or ML-DSA-44 subtree/v1 ones. The log's
// ML-DSA-44 signature is checked when the policy names that key (`logMldsaVkey`) and skipped
// otherwise, as signed-note readers skip unknown keys. Which policy
// witness made a signature is decided by key, never by kid or key name (../signing/witness-identity.ts): a
// JCS cosignature by the witness whose key verifies it, a cosignature/v1 by the witness whose
// Ed25519 key gives its key ID, a subtree/v1 by the witness whose ML-DSA-44 vkey gives it. A policy witness counts once toward the quorum, by whichever of its
// signatures (JCS cosignature or cosignature/v1) verifies; the result names each form that verified.
// The usual checkpoint's hashed JCS text is written directly (checkpointHashedText), the same text
// computeHash would give; anything unusual goes through computeHash.

import { fail, ok, type Result } from '../errors.ts';
import { isHashString, isTime } from '../encoding/wire.ts';
import { computeHash, type JsonObject } from '../signing/document-hash.ts';
import { isPlainJsonString } from '../encoding/jcs.ts';
import { defaultBackend } from '../crypto/default.ts';
import { checkKeyValidAt, sameKey, type KeyRecord } from '../signing/keys.ts';
import { labelFirst, labelNamesOne, sameWitness, witnessDisplayName, witnessOfC2spKid } from '../signing/witness-identity.ts';
import { signHash, verifyHashSignature, type Signature, type Signer, type VerifyOptions } from '../signing/signature.ts';
import { isValidOrigin } from './log-descriptor.ts';
import { schemaValidator } from './schemas/validate.ts';
import type { WitnessPolicy } from './policy.ts';
import { MAX_SEQ } from './schemas/bundle.ts';
import { verifyCheckpointLogMldsa, type LogMldsaSigner } from './checkpoint-log-mldsa.ts';
import {
  isC2spCosignatureAlg,
  isLogNoteAlg,
  NOTE_ED25519,
  NOTE_MLDSA44,
  SUBTREE_V1,
  witnessCosignatureKey,
  signCheckpointNote,
  verifyCheckpointC2spCosignature,
  verifyCheckpointNoteSignature,
  type CheckpointSignature,
  type C2spSignature,
} from './checkpoint-c2sp.ts';

export type { CheckpointSignature, C2spSignature };

export const CHECKPOINT_KIND = 'Checkpoint';

export interface Checkpoint {
  kind: 'Checkpoint';
  log: string;
  seq: number;
  head: string;
  root: string;
  hash: string;
  /** signature[0]: the sequencer's JCS signature; then cosignatures; C2SP signatures (§7a) anywhere after [0]. */
  signature: CheckpointSignature[];
}

/** How a witness's signature on a checkpoint was made: a JCS-header cosignature, a C2SP cosignature/v1 or an ML-DSA-44 subtree/v1. */
export type CosignatureForm = 'jcs' | 'cosignature/v1' | 'subtree/v1';

export interface Cosigner {
  /** The policy witness's kid (its label in that policy). */
  kid: string;
  /** Its display name (../signing/witness-identity.ts witnessDisplayName), the same on every surface. */
  name: string;
  /** Each form whose signature verified (the witness still counts once). */
  forms: CosignatureForm[];
}

export interface RejectedCosignature {
  kid: string;
  code: string;
  detail: string;
}

export interface VerifiedCheckpoint {
  /** kids of the witnesses whose cosignatures counted, in checkpoint order */
  witnesses: string[];
  /** Their display names (../signing/witness-identity.ts), parallel to `witnesses`: what a person is shown. */
  names: string[];
  /** signedAt of each counted cosignature, parallel to `witnesses` (the witness's time of seeing it) */
  cosignedAt: string[];
  quorum: number;
  /** cosignatures that did not count, with the reason */
  rejected: RejectedCosignature[];
  /** the sequencer signature is a 0.2.0 bare-hash one (accepted only with allowLegacy) */
  legacy: boolean;
  /** Per policy witness that cosigned: the forms that verified. */
  cosigners: Cosigner[];
  /** The log's C2SP note signatures (Ed25519, and ML-DSA-44 when the policy names that key): all verified, none, or one bad (then also in `rejected`). */
  logNote: 'verified' | 'absent' | 'bad';
}

function hashOf(cp: Checkpoint): Result<string> {
  return computeHash(cp as unknown as JsonObject);
}

const CHECKPOINT_MEMBERS = ['kind', 'log', 'seq', 'head', 'root', 'hash', 'signature'] as const;

/**
 * The JCS text computeHash covers for the usual checkpoint (a plain object of exactly the seven
 * members, kind "Checkpoint", plain strings, a non-negative safe seq), written directly in RFC
 * 8785 member order (head, kind, log, root, seq); undefined for anything else, which goes through
 * computeHash. The same text either way (checkpoint.test.ts).
 */
export function checkpointHashedText(cp: Checkpoint): string | undefined {
  if (Object.getPrototypeOf(cp) !== Object.prototype || Object.keys(cp).length !== CHECKPOINT_MEMBERS.length) return undefined;
  for (const k of CHECKPOINT_MEMBERS) if (!Object.prototype.hasOwnProperty.call(cp, k)) return undefined;
  const { kind, log, seq, head, root } = cp;
  if (kind !== CHECKPOINT_KIND || !Number.isSafeInteger(seq) || seq < 0) return undefined;
  for (const v of [log, head, root]) if (!isPlainJsonString(v)) return undefined;
  return `{"head":"${head}","kind":"Checkpoint","log":"${log}","root":"${root}","seq":${seq}}`;
}

/** computeHash of a checkpoint, through checkpointHashedText when it applies. */
function checkpointHash(cp: Checkpoint, backend?: VerifyOptions['backend']): Result<string> {
  const text = checkpointHashedText(cp);
  if (text === undefined) return computeHash(cp as unknown as JsonObject, backend);
  return ok('sha256:' + (backend ?? defaultBackend()).sha256Hex(text));
}

/** A checkpoint signed by the sequencer. Bad arguments are programmer errors (TypeError). */
export function buildCheckpoint(f: { log: string; seq: number; head: string; root: string }, signer: Signer, signedAt: string): Checkpoint {
  if (!isValidOrigin(f.log)) throw new TypeError(`not a log origin: ${String(f.log)}`);
  if (!Number.isInteger(f.seq) || f.seq < 0 || f.seq > MAX_SEQ) throw new TypeError(`seq ${f.seq} is not a non-negative safe integer`);
  if (!isHashString(f.head) || !isHashString(f.root)) throw new TypeError('head and root are sha256:<hex> hash strings');
  if (!isTime(signedAt)) throw new TypeError('signedAt is an RFC 3339 UTC time with milliseconds');
  const body = { kind: 'Checkpoint' as const, log: f.log, seq: f.seq, head: f.head, root: f.root };
  const h = computeHash(body);
  if (!h.ok) throw new TypeError(`${h.code}: ${h.detail}`);
  return { ...body, hash: h.value, signature: [signHash(h.value, CHECKPOINT_KIND, signer, signedAt)] };
}

/**
 * The checkpoint with the log's C2SP note signature (docs/design.md §4) added last: Ed25519 by the
 * sequencer key over the tlog-checkpoint body, then, given `mldsa`, the log's ML-DSA-44 signature
 * (docs/design.md §7a) stamped with the second of signedAt. An ES256 sequencer has no note form: unchanged.
 */
export function withLogNoteSignature(cp: Checkpoint, signer: Signer, signedAt: string, mldsa?: LogMldsaSigner): Checkpoint {
  if (signer.alg !== 'EdDSA') return cp;
  const notes = [signCheckpointNote(cp, signer, signedAt), ...(mldsa ? [mldsa.sign(cp, Date.parse(signedAt))] : [])];
  const fresh = notes.filter((n) => !cp.signature.some((s) => s.kid === n.kid));
  return fresh.length ? { ...cp, signature: [...cp.signature, ...fresh] } : cp;
}

/** The witnesses' signatures of a checkpoint (JCS cosignatures, cosignature/v1, subtree/v1), without the log's own. */
export function witnessSignatures(cp: Pick<Checkpoint, 'signature'>): CheckpointSignature[] {
  return cp.signature.slice(1).filter((s) => !isLogNoteAlg(s.alg));
}

/** A witness cosignature over the recomputed hash (throws if the checkpoint's hash member is wrong). */
export function cosignCheckpoint(cp: Checkpoint, signer: Signer, signedAt: string): Signature {
  if (!isTime(signedAt)) throw new TypeError('signedAt is an RFC 3339 UTC time with milliseconds');
  const h = hashOf(cp);
  if (!h.ok || h.value !== cp.hash)
    throw new TypeError('the checkpoint hash member is not the hash of its contents; verify before cosigning');
  return signHash(h.value, CHECKPOINT_KIND, signer, signedAt);
}

/**
 * A witness cosignature over the hash verifyCheckpointSequencerSignature just recomputed and
 * matched to the checkpoint's `hash` member: the same signature as cosignCheckpoint without
 * canonicalising and hashing the checkpoint a second time (the witness's hot path).
 */
export function cosignVerifiedCheckpoint(verified: { hash: string }, signer: Signer, signedAt: string): Signature {
  if (!isTime(signedAt)) throw new TypeError('signedAt is an RFC 3339 UTC time with milliseconds');
  if (!isHashString(verified.hash)) throw new TypeError('not a verified checkpoint hash');
  return signHash(verified.hash, CHECKPOINT_KIND, signer, signedAt);
}

/**
 * Add a cosignature, one per kid: a new kid is appended; for a kid already present the later
 * signedAt wins (a witness refreshing its cosignature); the sequencer's signature[0] is never
 * replaced. Returns a new checkpoint; the argument is not changed.
 */
export function addCosignature(cp: Checkpoint, sig: CheckpointSignature): Checkpoint {
  const i = cp.signature.findIndex((s) => s.kid === sig.kid);
  if (i === 0) return cp;
  if (i < 0) {
    // The log's own note signatures stay last, so signature[1…] lists the witnesses first.
    const at = isLogNoteAlg(sig.alg) ? -1 : cp.signature.findIndex((s, j) => j > 0 && isLogNoteAlg(s.alg));
    if (at < 0) return { ...cp, signature: [...cp.signature, sig] };
    return { ...cp, signature: [...cp.signature.slice(0, at), sig, ...cp.signature.slice(at)] };
  }
  if (!(sig.signedAt > cp.signature[i].signedAt)) return cp;
  const signature = cp.signature.slice();
  signature[i] = sig;
  return { ...cp, signature };
}

/**
 * `cp` with the cosignatures of `other` added by addCosignature (one per kid, the later signedAt
 * wins), when both are the same document (same hash: same seq, head, root and x- members);
 * otherwise `cp` alone. cp's signature[0] (the sequencer's) stays, so concurrent late
 * cosignatures are never lost and signatures never move between different documents.
 */
export function mergeCosignatures(cp: Checkpoint, other: Checkpoint | undefined): Checkpoint {
  if (!other || other.hash !== cp.hash) return cp;
  return other.signature.slice(1).reduce(addCosignature, cp);
}

/** The hash member is the hash of the contents and signature[0] is by `sequencerKey` (role sequencer). */
export function verifyCheckpointSequencerSignature(
  cp: Checkpoint,
  sequencerKey: KeyRecord,
  opts: VerifyOptions = {},
): Result<{ hash: string; legacy: boolean }> {
  if (!Array.isArray(cp.signature) || cp.signature.length === 0)
    return fail('invalid_document', 'a checkpoint carries at least the sequencer signature', { path: '/signature' });
  const h = checkpointHash(cp, opts.backend);
  if (!h.ok) return h;
  if (h.value !== cp.hash)
    return fail('hash_mismatch', `checkpoint ${cp.seq}: hash ${String(cp.hash)} is not the hash of its contents ${h.value}`, {
      seq: cp.seq,
    });
  const r = verifyHashSignature(h.value, CHECKPOINT_KIND, cp.signature[0], sequencerKey, { ...opts, role: 'sequencer' });
  if (!r.ok) return r;
  return ok({ hash: h.value, legacy: r.value.legacy });
}

/**
 * Verify a checkpoint under a witness policy: strict shape, the policy's log, the sequencer's
 * signature[0], then each cosignature against the policy's witness keys (role witness, valid at its
 * signedAt). quorum_not_met (with `witnesses`, `quorum` and `rejected`) when fewer keys counted
 * than policy.quorum.
 */
export function verifyCheckpoint(cp: Checkpoint, policy: WitnessPolicy, opts: VerifyOptions = {}): Result<VerifiedCheckpoint> {
  const shape = schemaValidator().validate('Checkpoint', cp);
  if (!shape.ok) return shape;
  if (cp.log !== policy.log) return fail('log_mismatch', `checkpoint of ${cp.log}, the policy is for ${policy.log}`);
  const s = verifyCheckpointSequencerSignature(cp, policy.sequencer, opts);
  if (!s.ok) return s;
  const witnesses: string[] = [];
  const names: string[] = [];
  const cosignedAt: string[] = [];
  const rejected: RejectedCosignature[] = [];
  const cosigners: Array<Cosigner & { key: KeyRecord }> = [];
  let logNote: VerifiedCheckpoint['logNote'] = 'absent';
  const vopts: VerifyOptions = { backend: opts.backend, allowLegacy: opts.allowLegacy, role: 'witness' };
  // Which policy witness made a signature is decided by key (../signing/witness-identity.ts), never by kid.
  const counted: KeyRecord[] = [];
  for (const sig of cp.signature.slice(1)) {
    if (sig.alg === NOTE_ED25519) {
      const r = verifyCheckpointNoteSignature(cp, sig as C2spSignature, policy.sequencer, { backend: opts.backend });
      if (r.ok) {
        if (logNote === 'absent') logNote = 'verified';
      } else {
        logNote = 'bad';
        rejected.push({ kid: sig.kid, code: r.code, detail: r.detail });
      }
      continue;
    }
    if (sig.alg === NOTE_MLDSA44) {
      // Checked only against the key the policy names; another key's line is skipped (signed-note).
      if (policy.logMldsaVkey === undefined || !sig.kid.startsWith(`${cp.log}+`)) continue;
      const r = verifyCheckpointLogMldsa(cp, sig as C2spSignature, policy.logMldsaVkey, { backend: opts.backend });
      if (r.ok) {
        if (logNote === 'absent') logNote = 'verified';
      } else if (r.code !== 'unknown_key') {
        logNote = 'bad';
        rejected.push({ kid: sig.kid, code: r.code, detail: r.detail });
      }
      continue;
    }
    const c2sp = isC2spCosignatureAlg(sig.alg);
    const found = cosignerWithHash(s.value.hash, cp, sig, policy, vopts);
    if (!found.ok) {
      rejected.push({ kid: sig.kid, code: found.code, detail: found.detail });
      continue;
    }
    const w = found.value;
    const form: CosignatureForm = c2sp ? (sig.alg as 'cosignature/v1' | 'subtree/v1') : 'jcs';
    const seen = cosigners.find((c) => sameWitness(c.key, w));
    if (seen?.forms.includes(form)) continue; // one form of one key counts once
    if (seen) seen.forms.push(form);
    else cosigners.push({ key: w, kid: w.kid, name: witnessDisplayName(w), forms: [form] });
    if (counted.some((k) => sameWitness(k, w))) continue; // one witness (one key) counts once
    counted.push(w);
    witnesses.push(w.kid);
    names.push(witnessDisplayName(w));
    cosignedAt.push(sig.signedAt);
  }
  const quorum = policy.quorum ?? 1;
  if (witnesses.length < quorum) {
    const why = rejected.length ? `; rejected: ${rejected.map((x) => `${x.kid} (${x.code})`).join(', ')}` : '';
    return fail('quorum_not_met', `checkpoint ${cp.seq}: ${witnesses.length} witness cosignatures (quorum ${quorum})${why}`, {
      witnesses,
      names,
      quorum,
      rejected,
      seq: cp.seq,
    });
  }
  return ok({
    witnesses,
    names,
    cosignedAt,
    quorum,
    rejected,
    legacy: s.value.legacy,
    cosigners: cosigners.map(({ key: _k, ...c }) => c),
    logNote,
  });
}

/**
 * The policy witness that made a cosignature (JCS or cosignature/v1), found by key and checked:
 * the signature verifies over the checkpoint whose hash is `cp.hash` (the caller vouches for it:
 * its own checkpoint, or one verifyCheckpointSequencerSignature checked), the key is a witness's,
 * not the sequencer's, and valid at signedAt. What the publisher keeps and what the quorum counts.
 */
export function cosignerOf(cp: Checkpoint, sig: CheckpointSignature, policy: WitnessPolicy, opts: VerifyOptions = {}): Result<KeyRecord> {
  return cosignerWithHash(cp.hash, cp, sig, policy, { backend: opts.backend, allowLegacy: opts.allowLegacy, role: 'witness' });
}

function cosignerWithHash(
  hash: string,
  cp: Checkpoint,
  sig: CheckpointSignature,
  policy: WitnessPolicy,
  vopts: VerifyOptions,
): Result<KeyRecord> {
  const found = isC2spCosignatureAlg(sig.alg)
    ? c2spWitnessOf(cp, sig as C2spSignature, policy, vopts)
    : jcsWitnessOf(hash, sig as Signature, policy, vopts);
  if (!found.ok) return found;
  const w = found.value;
  if (sameKey(w, policy.sequencer) || sameWitness(w, policy.sequencer))
    return fail('key_role_mismatch', `${sig.kid} holds the sequencer's public key and cannot witness`);
  if (w.role !== 'witness') return fail('key_role_mismatch', `key ${w.kid} has role ${w.role}, need witness`);
  const valid = checkKeyValidAt(w, sig.signedAt);
  if (!valid.ok) return valid;
  return ok(w);
}

/**
 * The policy witness whose key verifies a JCS cosignature (the kid only orders the search). A
 * signature that verifies but whose key is not valid then is that witness's, refused for that.
 */
function jcsWitnessOf(hash: string, sig: Signature, policy: WitnessPolicy, vopts: VerifyOptions): Result<KeyRecord> {
  const candidates = labelFirst(
    policy.witnesses.filter((w) => w.alg === sig.alg),
    sig.kid,
  );
  for (const w of candidates) {
    const r = verifyHashSignature(hash, CHECKPOINT_KIND, sig, w, { ...vopts, role: undefined, keyByBytes: true });
    if (r.ok) return ok(w);
    if (r.code === 'malformed_signature' || r.code === 'unsupported_alg' || r.code === 'invalid_hash') return r;
    if (r.code !== 'bad_signature') return fail(r.code, r.detail);
  }
  // The label only chooses the words: a signature under a policy witness's kid that no key verifies is bad, any other unknown.
  if (labelNamesOne(policy.witnesses, sig.kid))
    return fail('bad_signature', `cosignature ${sig.kid} verifies with no witness key of the policy`);
  return fail('unknown_key', `${sig.kid} is not a witness of the policy (no witness key verifies it)`);
}

/** The policy witness a cosignature/v1 or subtree/v1 is by (its key ID under its name matches the witness's key), verified. */
function c2spWitnessOf(cp: Checkpoint, sig: C2spSignature, policy: WitnessPolicy, opts: VerifyOptions): Result<KeyRecord> {
  const w =
    sig.alg === SUBTREE_V1
      ? policy.witnesses.find((k) => {
          const v = witnessCosignatureKey(k);
          return v.ok && v.value !== undefined && `${v.value.name}+${v.value.keyId}` === sig.kid;
        })
      : witnessOfC2spKid(policy.witnesses, sig.kid);
  if (!w) return fail('unknown_key', `${sig.kid} is not a witness of the policy (no witness vkey has this name and key ID)`);
  const r = verifyCheckpointC2spCosignature(cp, { ...sig }, w, { backend: opts.backend });
  if (!r.ok && (r.code === 'key_not_valid_at' || r.code === 'key_revoked')) return ok(w); // its validity is judged by the caller
  return r.ok ? ok(w) : r;
}
