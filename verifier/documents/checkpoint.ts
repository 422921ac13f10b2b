// verifier/documents/checkpoint.ts: signed checkpoints (DESIGN §4, Core §5): {kind:"Checkpoint", log, seq,
// head, root, hash, signature:[…]}, `head` the hash of entry `seq` (the descriptor's at seq 0) and
// `root` the RFC 6962 root as `sha256:` hex. signature[0] is the sequencer's, the others are
// witness cosignatures over the same header {alg, hash, kid, kind:"Checkpoint", signedAt}.
// Invariant of verifyCheckpoint: a cosignature counts only from a policy witness key whose public
// key is not the sequencer's (keys compared, not kids), and one key counts once however many kids
// or copies it appears under; bad cosignatures are reported but fail the result only when the
// quorum is then not met. Whether head and root match the entries is the log verifier's job.

import { fail, ok, type Result } from '../errors.ts';
import { isHashString, isTime } from '../encoding/wire.ts';
import { computeHash, type JsonObject } from './document-hash.ts';
import { sameKey, type KeyRecord } from './keys.ts';
import { signHash, verifyHashSignature, type Signature, type Signer, type VerifyOptions } from './signature.ts';
import { isValidOrigin } from './log-descriptor.ts';
import { schemaValidator } from './schemas/validate.ts';
import type { WitnessPolicy } from './policy.ts';
import { MAX_SEQ } from './schemas/bundle.ts';

export const CHECKPOINT_KIND = 'Checkpoint';

export interface Checkpoint {
  kind: 'Checkpoint';
  log: string;
  seq: number;
  head: string;
  root: string;
  hash: string;
  signature: Signature[];
}

export interface RejectedCosignature {
  kid: string;
  code: string;
  detail: string;
}

export interface VerifiedCheckpoint {
  /** kids of the witnesses whose cosignatures counted, in checkpoint order */
  witnesses: string[];
  /** signedAt of each counted cosignature, parallel to `witnesses` (the witness's time of seeing it) */
  cosignedAt: string[];
  quorum: number;
  /** cosignatures that did not count, with the reason */
  rejected: RejectedCosignature[];
  /** the sequencer signature is a 0.2.0 bare-hash one (accepted only with allowLegacy) */
  legacy: boolean;
}

function hashOf(cp: Checkpoint): Result<string> {
  return computeHash(cp as unknown as JsonObject);
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

/** A witness cosignature over the recomputed hash (throws if the checkpoint's hash member is wrong). */
export function cosignCheckpoint(cp: Checkpoint, signer: Signer, signedAt: string): Signature {
  if (!isTime(signedAt)) throw new TypeError('signedAt is an RFC 3339 UTC time with milliseconds');
  const h = hashOf(cp);
  if (!h.ok || h.value !== cp.hash) throw new TypeError('the checkpoint hash member is not the hash of its contents; verify before cosigning');
  return signHash(h.value, CHECKPOINT_KIND, signer, signedAt);
}

/**
 * Add a cosignature, one per kid: a new kid is appended; for a kid already present the later
 * signedAt wins (a witness refreshing its cosignature); the sequencer's signature[0] is never
 * replaced. Returns a new checkpoint; the argument is not changed.
 */
export function addCosignature(cp: Checkpoint, sig: Signature): Checkpoint {
  const i = cp.signature.findIndex((s) => s.kid === sig.kid);
  if (i === 0) return cp;
  if (i < 0) return { ...cp, signature: [...cp.signature, sig] };
  if (!(sig.signedAt > cp.signature[i].signedAt)) return cp;
  const signature = cp.signature.slice();
  signature[i] = sig;
  return { ...cp, signature };
}

/** The hash member is the hash of the contents and signature[0] is by `sequencerKey` (role sequencer). */
export function verifyCheckpointSequencerSignature(cp: Checkpoint, sequencerKey: KeyRecord, opts: VerifyOptions = {}): Result<{ hash: string; legacy: boolean }> {
  if (!Array.isArray(cp.signature) || cp.signature.length === 0) return fail('invalid_document', 'a checkpoint carries at least the sequencer signature', { path: '/signature' });
  const h = computeHash(cp as unknown as JsonObject, opts.backend);
  if (!h.ok) return h;
  if (h.value !== cp.hash) return fail('hash_mismatch', `checkpoint ${cp.seq}: hash ${String(cp.hash)} is not the hash of its contents ${h.value}`, { seq: cp.seq });
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
  const counted: KeyRecord[] = [];
  const witnesses: string[] = [];
  const cosignedAt: string[] = [];
  const rejected: RejectedCosignature[] = [];
  const vopts: VerifyOptions = { backend: opts.backend, allowLegacy: opts.allowLegacy, role: 'witness' };
  for (const sig of cp.signature.slice(1)) {
    const w = policy.witnesses.find((k) => k.kid === sig.kid);
    if (!w) {
      rejected.push({ kid: sig.kid, code: 'unknown_key', detail: `${sig.kid} is not a witness of the policy` });
      continue;
    }
    if (sameKey(w, policy.sequencer)) {
      rejected.push({ kid: sig.kid, code: 'key_role_mismatch', detail: `${sig.kid} holds the sequencer's public key and cannot witness` });
      continue;
    }
    if (counted.some((k) => sameKey(k, w))) continue; // one key counts once
    const r = verifyHashSignature(s.value.hash, CHECKPOINT_KIND, sig, w, vopts);
    if (!r.ok) {
      rejected.push({ kid: sig.kid, code: r.code, detail: r.detail });
      continue;
    }
    counted.push(w);
    witnesses.push(sig.kid);
    cosignedAt.push(sig.signedAt);
  }
  const quorum = policy.quorum ?? 1;
  if (witnesses.length < quorum) {
    const why = rejected.length ? `; rejected: ${rejected.map((x) => `${x.kid} (${x.code})`).join(', ')}` : '';
    return fail('quorum_not_met', `checkpoint ${cp.seq}: ${witnesses.length} of ${quorum} witness cosignatures${why}`, { witnesses, quorum, rejected, seq: cp.seq });
  }
  return ok({ witnesses, cosignedAt, quorum, rejected, legacy: s.value.legacy });
}
