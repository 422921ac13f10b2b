// verifier/documents/checkpoint-c2sp.ts: the C2SP form of a Cookwala checkpoint (docs/design.md §4, §7a;
// c2sp.org signed-note, tlog-checkpoint, tlog-cosignature, tlog-witness at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9). The body is origin = `log`, size = `seq` in decimal,
// root = base64 of the 32 root bytes, no extension lines. A checkpoint's signature array may hold,
// besides the JCS signatures, the log's note signature `{alg:"note-ed25519", kid:"<origin>+<key
// id>", signedAt, sig}` (64-byte Ed25519 over the body; signedAt is when the sequencer signed, not
// covered) and witness cosignatures `{alg:"cosignature/v1", kid:"<witness name>+<key id>",
// signedAt (the cosigned POSIX second, so `.000Z`), sig (the 64-byte Ed25519 signature)}`. Both
// render to note signature lines and back without loss, so a checkpoint renders to a signed note.
// It leaves out ML-DSA cosignatures (type 0x06) and extension lines (our log writes none).
// Invariant: every C2SP signature is verified over bytes rebuilt from `log`, `seq` and `root`
// (never from a note someone handed over), with the one Ed25519 rule (verifier/crypto/ed25519-rules.ts).

import { fail, ok, type Result } from '../errors.ts';
import { concatBytes, formatTime, fromBase64url, isTime, parseHash, timeMs, toBase64url, utf8, fromHex } from '../encoding/wire.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import { verifyEd25519 } from '../crypto/ed25519-rules.ts';
import { formatCheckpointBody } from '../note/checkpoint.ts';
import { cosignatureMessage, encodeCosignature, parseCosignature } from '../note/cosignature.ts';
import { formatVerifierKey, noteKeyId, parseVerifierKey, SIG_COSIGNATURE_V1, SIG_ED25519, type VerifierKey } from '../note/keys.ts';
import { parseNote } from '../note/signed.ts';
import { toBase64Std } from '../note/base64.ts';
import { checkKeyValidAt, publicKeyBytes, type KeyRecord } from './keys.ts';
import type { Signature, Signer } from './signature.ts';
import { witnessDisplayName, witnessEd25519Key, witnessOfC2spKid } from './witness-identity.ts';

export const NOTE_ED25519 = 'note-ed25519';
export const COSIGNATURE_V1 = 'cosignature/v1';
export type C2spAlg = typeof NOTE_ED25519 | typeof COSIGNATURE_V1;

/** A C2SP signature inside a checkpoint's signature array. */
export interface C2spSignature {
  alg: C2spAlg;
  kid: string;
  signedAt: string;
  sig: string;
}

export type CheckpointSignature = Signature | C2spSignature;

/** The fields of a checkpoint the C2SP form is rebuilt from. */
export interface CheckpointFields {
  log: string;
  seq: number;
  root: string;
}

export function isC2spSignature(s: { alg: string }): s is C2spSignature {
  return s.alg === NOTE_ED25519 || s.alg === COSIGNATURE_V1;
}

/** The tlog-checkpoint body of a checkpoint: origin, decimal size, base64 root (no extensions). */
export function checkpointNoteBody(cp: CheckpointFields): Result<string> {
  const root = parseHash(cp.root);
  if (!root.ok || root.value.length !== 32)
    return fail('invalid_hash', `checkpoint root ${String(cp.root).slice(0, 80)} is not sha256:<64 hex>`);
  try {
    return ok(formatCheckpointBody({ origin: cp.log, size: cp.seq, rootHash: root.value, extensions: [] }));
  } catch (e) {
    return fail('malformed_note', `checkpoint cannot be a note: ${(e as Error).message}`);
  }
}

/** The log's C2SP verifier key: key name = origin, Ed25519 (type 0x01), the sequencer's key. */
export function logVkey(origin: string, publicKey: Uint8Array): string {
  return formatVerifierKey(origin, SIG_ED25519, publicKey);
}

/**
 * The log's vkey from the sequencer's KeyRecord (EdDSA only). keyRule false: the key is only
 * formatted, its Ed25519 rule left to the note verifier made from the vkey (keys.ts publicKeyBytes).
 */
export function logVkeyOf(origin: string, sequencer: Pick<KeyRecord, 'alg' | 'publicKey'>, keyRule = true): Result<string> {
  if (sequencer.alg !== 'EdDSA') return fail('unsupported_alg', `a C2SP log key is Ed25519; the sequencer key is ${sequencer.alg}`);
  const pub = publicKeyBytes(sequencer, keyRule);
  if (!pub.ok) return pub;
  return ok(logVkey(origin, pub.value));
}

/** The log's note signature over the checkpoint body, made with the sequencer's Ed25519 signer. */
export function signCheckpointNote(cp: CheckpointFields, signer: Signer, signedAt: string): C2spSignature {
  if (signer.alg !== 'EdDSA') throw new TypeError('a C2SP note signature needs an Ed25519 (EdDSA) sequencer key');
  if (!isTime(signedAt)) throw new TypeError('signedAt is an RFC 3339 UTC time with milliseconds');
  const body = checkpointNoteBody(cp);
  if (!body.ok) throw new TypeError(`${body.code}: ${body.detail}`);
  const keyId = noteKeyId(cp.log, SIG_ED25519, signer.publicKey);
  return { alg: NOTE_ED25519, kid: `${cp.log}+${keyId}`, signedAt, sig: toBase64url(signer.sign(utf8(body.value))) };
}

/** Check the log's note signature with the sequencer's KeyRecord (kid, Ed25519 over the rebuilt body, key validity). */
export function verifyCheckpointNoteSignature(
  cp: CheckpointFields,
  sig: C2spSignature,
  sequencer: KeyRecord,
  opts: { backend?: CryptoBackend } = {},
): Result<true> {
  if (sig.alg !== NOTE_ED25519) return fail('bad_signature', `${sig.kid}: not a note-ed25519 signature`);
  const vkey = logVkeyOf(cp.log, sequencer);
  if (!vkey.ok) return vkey;
  const key = parseVerifierKey(vkey.value);
  if (!key.ok) return key;
  if (sig.kid !== `${key.value.name}+${key.value.keyId}`)
    return fail('unknown_key', `note signature ${sig.kid} is not by the log key ${key.value.name}+${key.value.keyId}`);
  return verifyEd25519Over(cp, sig, key.value.publicKey, undefined, sequencer, opts.backend);
}

/** A witness's cosignature/v1 verifier key from its policy KeyRecord (`vkey`, type 0x04). */
export function witnessCosignatureKey(w: Pick<KeyRecord, 'kid' | 'vkey'>): Result<VerifierKey | undefined> {
  if (w.vkey === undefined) return ok(undefined);
  const k = parseVerifierKey(w.vkey);
  if (!k.ok) return k;
  if (k.value.type !== SIG_COSIGNATURE_V1)
    return fail(
      'unsupported_alg',
      `witness ${w.kid}: vkey type 0x${k.value.type.toString(16).padStart(2, '0')} is not cosignature/v1 (0x04)`,
    );
  return k;
}

/**
 * Check a cosignature/v1 by witness `w`, found by key (witness-identity.ts): the signature's key ID
 * must be the one its name gives with the witness's Ed25519 key (the vkey's, else its EdDSA
 * KeyRecord key: our witnesses sign both forms with one key), whatever name the policy spells;
 * then whole-second signedAt, Ed25519 over the cosignature message, key validity.
 */
export function verifyCheckpointC2spCosignature(
  cp: CheckpointFields,
  sig: C2spSignature,
  w: KeyRecord,
  opts: { backend?: CryptoBackend } = {},
): Result<true> {
  if (sig.alg !== COSIGNATURE_V1) return fail('bad_signature', `${sig.kid}: not a cosignature/v1`);
  const key = witnessCosignatureKey(w);
  if (!key.ok) return key;
  const pub = witnessEd25519Key(w);
  if (!pub) return fail('unknown_key', `witness ${w.kid} has no Ed25519 key to check a cosignature/v1 with`);
  if (witnessOfC2spKid([w], sig.kid) === undefined)
    return fail('unknown_key', `cosignature ${sig.kid} is not by the key of witness ${witnessDisplayName(w)}`);
  if (!isTime(sig.signedAt) || timeMs(sig.signedAt) % 1000 !== 0)
    return fail('malformed_signature', `cosignature/v1 signedAt ${String(sig.signedAt)} is not a whole second`);
  return verifyEd25519Over(cp, sig, pub, timeMs(sig.signedAt) / 1000, w, opts.backend);
}

function verifyEd25519Over(
  cp: CheckpointFields,
  sig: C2spSignature,
  pub: Uint8Array,
  timestamp: number | undefined,
  key: KeyRecord,
  backend?: CryptoBackend,
): Result<true> {
  const body = checkpointNoteBody(cp);
  if (!body.ok) return body;
  const raw = fromBase64url(sig.sig);
  if (!raw.ok || raw.value.length !== 64) return fail('malformed_signature', `${sig.kid}: sig is not 64 bytes of base64url`);
  if (timestamp !== undefined && timestamp <= 0) return fail('malformed_signature', `${sig.kid}: a cosignature/v1 timestamp is never zero`);
  const msg = timestamp === undefined ? utf8(body.value) : cosignatureMessage(body.value, timestamp);
  if (!verifyEd25519(backend ?? defaultBackend(), pub, msg, raw.value))
    return fail('bad_signature', `${sig.alg} signature by ${sig.kid} does not verify`);
  const valid = checkKeyValidAt(key, sig.signedAt);
  if (!valid.ok) return valid;
  return ok(true);
}

function keyIdBytes(kid: string): Result<{ name: string; id: Uint8Array }> {
  const p = kid.lastIndexOf('+');
  const id = p < 0 ? undefined : fromHex(kid.slice(p + 1));
  if (!id || !id.ok || id.value.length !== 4 || p === 0)
    return fail('malformed_signature', `C2SP kid ${kid.slice(0, 80)} is not <name>+<8 hex>`);
  return ok({ name: kid.slice(0, p), id: id.value });
}

/** The signed-note line (`— <name> <base64>` with its newline) of a C2SP signature. */
export function noteSignatureLine(sig: C2spSignature): Result<string> {
  const k = keyIdBytes(sig.kid);
  if (!k.ok) return k;
  const raw = fromBase64url(sig.sig);
  if (!raw.ok || raw.value.length !== 64) return fail('malformed_signature', `${sig.kid}: sig is not 64 bytes`);
  let payload = raw.value;
  if (sig.alg === COSIGNATURE_V1) {
    if (!isTime(sig.signedAt) || timeMs(sig.signedAt) % 1000 !== 0)
      return fail('malformed_signature', `${sig.kid}: signedAt is not a whole second`);
    payload = encodeCosignature({ timestamp: timeMs(sig.signedAt) / 1000, signature: raw.value });
  }
  return ok(`\u2014 ${k.value.name} ${toBase64Std(concatBytes(k.value.id, payload))}\n`);
}

/**
 * A note signature (as parseNote gives it) of a known type as a checkpoint C2SP signature: Ed25519
 * (0x01) becomes note-ed25519 stamped `signedAt`, cosignature/v1 (0x04) takes its own timestamp.
 */
export function c2spSignatureFromNote(
  s: { name: string; keyId: string; sig: Uint8Array },
  type: number,
  signedAt: string,
): Result<C2spSignature> {
  const kid = `${s.name}+${s.keyId}`;
  if (type === SIG_ED25519) {
    if (s.sig.length !== 64) return fail('malformed_signature', `${kid}: an Ed25519 note signature is 64 bytes`);
    return ok({ alg: NOTE_ED25519, kid, signedAt, sig: toBase64url(s.sig) });
  }
  if (type === SIG_COSIGNATURE_V1) {
    const c = parseCosignature(s.sig);
    if (!c.ok) return c;
    if (c.value.timestamp === 0) return fail('malformed_signature', `${kid}: a cosignature/v1 timestamp is never zero`);
    const ms = c.value.timestamp * 1000;
    if (!Number.isSafeInteger(ms) || ms > 253402300799000)
      return fail('malformed_signature', `${kid}: cosignature time ${c.value.timestamp} is beyond year 9999`);
    return ok({ alg: COSIGNATURE_V1, kid, signedAt: formatTime(ms), sig: toBase64url(c.value.signature) });
  }
  return fail('unsupported_alg', `${kid}: note signature type 0x${type.toString(16)} has no checkpoint form`);
}

/**
 * The checkpoint as a tlog-checkpoint signed note carrying every C2SP signature it holds (the
 * log's note signature first, then cosignature/v1 lines in array order; JCS signatures have no
 * note form). No C2SP signature: 'unknown_key' (a note needs at least one).
 */
export function checkpointToNote(
  cp: CheckpointFields & { signature: ReadonlyArray<{ alg: string; kid: string; signedAt: string; sig: string }> },
): Result<string> {
  const body = checkpointNoteBody(cp);
  if (!body.ok) return body;
  const c2sp = cp.signature.filter(isC2spSignature);
  const ordered = [...c2sp.filter((s) => s.alg === NOTE_ED25519), ...c2sp.filter((s) => s.alg === COSIGNATURE_V1)];
  if (ordered.length === 0) return fail('unknown_key', `checkpoint ${cp.seq} carries no C2SP signature`);
  const lines: string[] = [];
  for (const s of ordered) {
    const l = noteSignatureLine(s);
    if (!l.ok) return l;
    if (!lines.includes(l.value)) lines.push(l.value);
  }
  return ok(`${body.value}\n${lines.join('')}`);
}

/**
 * The cosignature/v1 signatures by `vkeys` in a tlog-witness add-checkpoint reply (signature lines
 * only), as checkpoint signatures; lines from other keys are ignored (tlog-witness: the client
 * MUST ignore unknown keys). Each returned one is checked with verifyCheckpointC2spCosignature by
 * the caller against its policy KeyRecord.
 */
export function cosignaturesFromWitnessReply(cp: CheckpointFields, reply: string, vkeys: readonly VerifierKey[]): Result<C2spSignature[]> {
  const body = checkpointNoteBody(cp);
  if (!body.ok) return body;
  const note = parseNote(`${body.value}\n${reply}`);
  if (!note.ok) return note;
  const out: C2spSignature[] = [];
  for (const s of note.value.signatures) {
    const k = vkeys.find((v) => v.name === s.name && v.keyId === s.keyId);
    if (!k || k.type !== SIG_COSIGNATURE_V1) continue;
    const c = c2spSignatureFromNote(s, k.type, '1970-01-01T00:00:00.000Z');
    if (!c.ok) return c;
    out.push(c.value);
  }
  return ok(out);
}
