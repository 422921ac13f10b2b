// verifier/documents/checkpoint-log-mldsa.ts: the log's own ML-DSA-44 signature on its checkpoint
// (docs/design.md §4, §7a; c2sp.org/tlog-cosignature type 0x06 `subtree/v1` and tlog-checkpoint at C2SP
// commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9), as Sunlight signs its checkpoints: the key name is
// the log's origin, the signed message is the subtree/v1 struct with cosigner name = origin, a
// non-zero POSIX-second timestamp, start 0, end = seq and the root; the note line is key ID || u64
// timestamp || 2420-byte signature. In a checkpoint's signature array it is `{alg:"note-mldsa44",
// kid:"<origin>+<key id>", signedAt (the signed second, so `.000Z`), sig (base64url of the 2420
// bytes)}`, beside the Ed25519 `note-ed25519` (which stays first in the note: witness-network
// lists admit only Ed25519 log keys). A policy names this key in `logMldsaVkey` (policy.ts).
// It leaves out key rotation and sign-subtree. Invariant: the signed bytes come from
// ../c2sp/note/subtree.ts subtreeMessage, rebuilt from `log`, `seq` and `root`, never from a note
// someone handed over; a timestamp is never 0.

import { fail, ok, type Result } from '../errors.ts';
import { formatTime, fromBase64url, isTime, parseHash, timeMs, toBase64url } from '../encoding/wire.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import { MLDSA44_SIGNATURE_BYTES } from '../crypto/mldsa44.ts';
import { formatVerifierKey, noteKeyId, parseVerifierKey, SIG_MLDSA44, type VerifierKey } from '../c2sp/note/keys.ts';
import { subtreeMessage, subtreeNamesFit } from '../c2sp/note/subtree.ts';
import { logVkeyOf, NOTE_MLDSA44, type C2spSignature, type CheckpointFields } from './checkpoint-c2sp.ts';
import type { WitnessPolicy } from './policy.ts';

/** The log's ML-DSA-44 verifier key: key name = origin, type 0x06. */
export function logMldsaVkey(origin: string, publicKey: Uint8Array): string {
  return formatVerifierKey(origin, SIG_MLDSA44, publicKey);
}

export interface LogMldsaSigner {
  /** The 1312-byte ML-DSA-44 public key (every log of the sequencer signs with it, each under its origin). */
  readonly publicKey: Uint8Array;
  vkey(origin: string): string;
  /** The log's note-mldsa44 signature over the checkpoint, stamped with the POSIX second of nowMs (at least 1). */
  sign(cp: CheckpointFields, nowMs: number): C2spSignature;
}

/** A signer from the 32-byte FIPS 204 seed. Bad arguments are programmer errors (TypeError). */
export function createLogMldsaSigner(seed: Uint8Array, backend: CryptoBackend = defaultBackend()): LogMldsaSigner {
  if (seed.length !== 32) throw new TypeError('an ML-DSA-44 seed is 32 bytes');
  const key = Uint8Array.from(seed);
  const publicKey = backend.mldsa44PublicKey(key);
  return {
    publicKey,
    vkey: (origin) => logMldsaVkey(origin, publicKey),
    sign(cp, nowMs) {
      const root = parseHash(cp.root);
      if (!root.ok || root.value.length !== 32) throw new TypeError('checkpoint root is sha256:<64 hex>');
      if (!subtreeNamesFit(cp.log, cp.log)) throw new TypeError('a log origin for ML-DSA-44 is 1 to 255 bytes');
      const timestamp = Math.max(1, Math.floor(nowMs / 1000));
      const msg = subtreeMessage({ cosignerName: cp.log, timestamp, origin: cp.log, start: 0, end: cp.seq, hash: root.value });
      return {
        alg: NOTE_MLDSA44,
        kid: `${cp.log}+${noteKeyId(cp.log, SIG_MLDSA44, publicKey)}`,
        signedAt: formatTime(timestamp * 1000),
        sig: toBase64url(backend.mldsa44Sign(key, msg)),
      };
    },
  };
}

/** The policy's log ML-DSA-44 vkey, checked: type 0x06 and key name = the log's origin. */
export function readLogMldsaVkey(origin: string, vkey: string): Result<VerifierKey> {
  const k = parseVerifierKey(vkey);
  if (!k.ok) return k;
  if (k.value.type !== SIG_MLDSA44)
    return fail('unsupported_alg', `the log's ML-DSA-44 vkey is of type 0x06, not 0x${k.value.type.toString(16).padStart(2, '0')}`);
  if (k.value.name !== origin) return fail('log_mismatch', `the log's ML-DSA-44 vkey is named ${k.value.name}, the log is ${origin}`);
  if (!k.value.supported) return fail('unsupported_alg', `${origin}: an origin over 255 bytes cannot sign with ML-DSA-44`);
  return k;
}

/** Check a note-mldsa44 signature with the log's ML-DSA-44 vkey, over the message rebuilt from log, seq and root. */
export function verifyCheckpointLogMldsa(
  cp: CheckpointFields,
  sig: C2spSignature,
  vkey: string,
  opts: { backend?: CryptoBackend } = {},
): Result<true> {
  if (sig.alg !== NOTE_MLDSA44) return fail('bad_signature', `${sig.kid}: not a note-mldsa44 signature`);
  const key = readLogMldsaVkey(cp.log, vkey);
  if (!key.ok) return key;
  if (sig.kid !== `${key.value.name}+${key.value.keyId}`)
    return fail('unknown_key', `note signature ${sig.kid} is not by the log's ML-DSA-44 key ${key.value.name}+${key.value.keyId}`);
  if (!isTime(sig.signedAt) || timeMs(sig.signedAt) % 1000 !== 0 || timeMs(sig.signedAt) <= 0)
    return fail('malformed_signature', `note-mldsa44 signedAt ${String(sig.signedAt)} is not a whole, non-zero second`);
  const root = parseHash(cp.root);
  if (!root.ok || root.value.length !== 32) return fail('invalid_hash', `checkpoint root ${String(cp.root).slice(0, 80)}`);
  const raw = fromBase64url(sig.sig);
  if (!raw.ok || raw.value.length !== MLDSA44_SIGNATURE_BYTES)
    return fail('malformed_signature', `${sig.kid}: sig is not ${MLDSA44_SIGNATURE_BYTES} bytes of base64url`);
  const msg = subtreeMessage({
    cosignerName: cp.log,
    timestamp: timeMs(sig.signedAt) / 1000,
    origin: cp.log,
    start: 0,
    end: cp.seq,
    hash: root.value,
  });
  if (!(opts.backend ?? defaultBackend()).mldsa44Verify(key.value.publicKey, msg, raw.value))
    return fail('bad_signature', `note-mldsa44 signature by ${sig.kid} does not verify`);
  return ok(true);
}

/**
 * The log's keys a policy names, as vkeys and their `<name>+<key ID>`: the sequencer's Ed25519 key
 * and, when given, `logMldsaVkey`. A note is the log's when a line of either verifies (tlog-policy:
 * any listed log key); readers give both to the note verifier, so a failing line of either refuses it.
 */
export function policyLogKeys(
  policy: Pick<WitnessPolicy, 'log' | 'sequencer' | 'logMldsaVkey'>,
): Result<{ vkeys: string[]; ids: string[] }> {
  const ed = logVkeyOf(policy.log, policy.sequencer);
  if (!ed.ok) return ed;
  const vkeys = [ed.value, ...(policy.logMldsaVkey === undefined ? [] : [policy.logMldsaVkey])];
  const ids: string[] = [];
  for (const v of vkeys) {
    const k = parseVerifierKey(v);
    if (!k.ok) return k;
    ids.push(`${k.value.name}+${k.value.keyId}`);
  }
  return ok({ vkeys, ids });
}
