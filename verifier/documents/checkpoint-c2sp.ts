// verifier/documents/checkpoint-c2sp.ts: the C2SP form of a Cookwala checkpoint (docs/design.md §4, §7a;
// c2sp.org signed-note, tlog-checkpoint, tlog-cosignature, tlog-witness at C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9). The body is origin = `log`, size = `seq` in decimal,
// root = base64 of the 32 root bytes, no extension lines. A checkpoint's signature array may hold,
// besides the JCS signatures, the log's note signature `{alg:"note-ed25519", kid:"<origin>+<key
// id>", signedAt, sig}` (64-byte Ed25519 over the body; signedAt is when the sequencer signed, not
// covered) and witness cosignatures `{alg:"cosignature/v1", kid:"<witness name>+<key id>",
// signedAt (the cosigned POSIX second, so `.000Z`), sig (the 64-byte Ed25519 signature)}`. Both
// render to note signature lines and back without loss, so a checkpoint renders to a signed note.
// A witness whose vkey is ML-DSA-44 (type 0x06) cosigns as `{alg:"subtree/v1", kid, signedAt (the
// cosigned POSIX second), sig (the 2420-byte ML-DSA-44 signature over the tlog-cosignature
// subtree/v1 message: witness key name, timestamp, origin, start 0, end = seq, root)}`; the alg
// is the label of the signed message, as cosignature/v1's is (docs/design.md §7a).
// The log's own ML-DSA-44 signature is `{alg:"note-mldsa44", kid:"<origin>+<key id>", signedAt, sig}`
// (checkpoint-log-mldsa.ts signs and verifies it); in the note it follows the Ed25519 line.
// It leaves out extension lines (our log writes none).
// Invariant: every C2SP signature is verified over bytes rebuilt from `log`, `seq` and `root`
// (never from a note someone handed over), with the one Ed25519 rule (verifier/crypto/ed25519-rules.ts).

import { fail, ok, type Result } from '../errors.ts';
import { concatBytes, formatTime, fromBase64url, isTime, parseHash, timeMs, toBase64url, utf8, fromHex } from '../encoding/wire.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import { verifyEd25519 } from '../crypto/ed25519-rules.ts';
import { formatCheckpointBody } from '../c2sp/note/checkpoint.ts';
import { cosignatureMessage, encodeCosignature, parseCosignature } from '../c2sp/note/cosignature.ts';
import {
  formatVerifierKey,
  isCosignatureType,
  noteKeyId,
  parseVerifierKey,
  SIG_ED25519,
  SIG_MLDSA44,
  type VerifierKey,
} from '../c2sp/note/keys.ts';
import { encodeMldsaCosignature, parseMldsaCosignature, subtreeMessage, subtreeNamesFit } from '../c2sp/note/subtree.ts';
import { MLDSA44_SIGNATURE_BYTES } from '../crypto/mldsa44.ts';
import { parseNote } from '../c2sp/note/signed.ts';
import { toBase64Std } from '../c2sp/note/base64.ts';
import { checkKeyValidAt, publicKeyBytes, type KeyRecord } from '../signing/keys.ts';
import type { Signature, Signer } from '../signing/signature.ts';
import { witnessDisplayName, witnessEd25519Key, witnessOfC2spKid } from '../signing/witness-identity.ts';

export const NOTE_ED25519 = 'note-ed25519';
export const COSIGNATURE_V1 = 'cosignature/v1';
/** An ML-DSA-44 cosignature (type 0x06) in a checkpoint's signature array. */
export const SUBTREE_V1 = 'subtree/v1';
/** The log's own ML-DSA-44 signature (type 0x06, key name = origin; checkpoint-log-mldsa.ts). */
export const NOTE_MLDSA44 = 'note-mldsa44';
export type C2spAlg = typeof NOTE_ED25519 | typeof NOTE_MLDSA44 | typeof COSIGNATURE_V1 | typeof SUBTREE_V1;
/** Whether the alg is one of the log's own C2SP signatures (never a cosignature). */
export const isLogNoteAlg = (alg: string): boolean => alg === NOTE_ED25519 || alg === NOTE_MLDSA44;
/** The timestamped C2SP forms: their signedAt is the signed POSIX second. */
const isTimestampedAlg = (alg: string): boolean => alg === COSIGNATURE_V1 || alg === SUBTREE_V1 || alg === NOTE_MLDSA44;

/** The alg of a witness's C2SP cosignature by a vkey of this type. */
const cosignatureAlgOf = (type: number): C2spAlg => (type === SIG_MLDSA44 ? SUBTREE_V1 : COSIGNATURE_V1);
/** Whether the alg is a witness's C2SP cosignature (cosignature/v1 or subtree/v1). */
export const isC2spCosignatureAlg = (alg: string): boolean => alg === COSIGNATURE_V1 || alg === SUBTREE_V1;
const sigBytesOf = (alg: string): number => (alg === SUBTREE_V1 || alg === NOTE_MLDSA44 ? MLDSA44_SIGNATURE_BYTES : 64);

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
  return s.alg === NOTE_ED25519 || s.alg === NOTE_MLDSA44 || s.alg === COSIGNATURE_V1 || s.alg === SUBTREE_V1;
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
 * formatted, its Ed25519 rule left to the note verifier made from the vkey (../signing/keys.ts publicKeyBytes).
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

/**
 * A witness's C2SP verifier key from its policy KeyRecord (`vkey`, cosignature/v1 0x04 or ML-DSA-44
 * 0x06). An ML-DSA-44 KeyRecord has no other key: its vkey is required and holds the same key.
 */
export function witnessCosignatureKey(
  w: Pick<KeyRecord, 'kid' | 'vkey'> & Partial<Pick<KeyRecord, 'alg' | 'publicKey'>>,
): Result<VerifierKey | undefined> {
  if (w.vkey === undefined) {
    if (w.alg === 'ML-DSA-44') return fail('invalid_document', `witness ${w.kid}: an ML-DSA-44 KeyRecord needs its vkey (type 0x06)`);
    return ok(undefined);
  }
  const k = parseVerifierKey(w.vkey);
  if (!k.ok) return k;
  if (!isCosignatureType(k.value.type))
    return fail(
      'unsupported_alg',
      `witness ${w.kid}: vkey type 0x${k.value.type.toString(16).padStart(2, '0')} is not cosignature/v1 (0x04) or ML-DSA-44 (0x06)`,
    );
  if (w.alg === 'ML-DSA-44' && (k.value.type !== SIG_MLDSA44 || toBase64url(k.value.publicKey) !== w.publicKey))
    return fail('invalid_document', `witness ${w.kid}: an ML-DSA-44 KeyRecord's vkey is of type 0x06 and holds its publicKey`);
  return k;
}

/**
 * Check a cosignature/v1 by witness `w`, found by key (../signing/witness-identity.ts): the signature's key ID
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
  if (!isC2spCosignatureAlg(sig.alg)) return fail('bad_signature', `${sig.kid}: not a cosignature/v1 or subtree/v1`);
  const key = witnessCosignatureKey(w);
  if (!key.ok) return key;
  if (sig.alg === SUBTREE_V1) {
    if (!key.value) return fail('unknown_key', `witness ${witnessDisplayName(w)} has no vkey`);
    if (sig.kid !== `${key.value.name}+${key.value.keyId}`)
      return fail('unknown_key', `cosignature ${sig.kid} is not by ${key.value.name}+${key.value.keyId}`);
    if (cosignatureAlgOf(key.value.type) !== sig.alg)
      return fail('bad_signature', `${sig.kid}: a ${sig.alg} signature by a key of type 0x0${key.value.type}`);
    if (!isTime(sig.signedAt) || timeMs(sig.signedAt) % 1000 !== 0)
      return fail('malformed_signature', `${sig.alg} signedAt ${String(sig.signedAt)} is not a whole second`);
    return verifyMldsaOver(cp, sig, key.value, w, opts.backend);
  }
  const pub = witnessEd25519Key(w);
  if (!pub) return fail('unknown_key', `witness ${w.kid} has no Ed25519 key to check a cosignature/v1 with`);
  if (witnessOfC2spKid([w], sig.kid) === undefined)
    return fail('unknown_key', `cosignature ${sig.kid} is not by the key of witness ${witnessDisplayName(w)}`);
  if (!isTime(sig.signedAt) || timeMs(sig.signedAt) % 1000 !== 0)
    return fail('malformed_signature', `cosignature/v1 signedAt ${String(sig.signedAt)} is not a whole second`);
  return verifyEd25519Over(cp, sig, pub, timeMs(sig.signedAt) / 1000, w, opts.backend);
}

/** An ML-DSA-44 cosignature over the subtree/v1 message rebuilt from log, seq and root. */
function verifyMldsaOver(cp: CheckpointFields, sig: C2spSignature, key: VerifierKey, w: KeyRecord, backend?: CryptoBackend): Result<true> {
  const root = parseHash(cp.root);
  if (!root.ok || root.value.length !== 32) return fail('invalid_hash', `checkpoint root ${String(cp.root).slice(0, 80)}`);
  const raw = fromBase64url(sig.sig);
  if (!raw.ok || raw.value.length !== MLDSA44_SIGNATURE_BYTES)
    return fail('malformed_signature', `${sig.kid}: sig is not ${MLDSA44_SIGNATURE_BYTES} bytes of base64url`);
  const timestamp = timeMs(sig.signedAt) / 1000;
  if (timestamp <= 0) return fail('malformed_signature', `${sig.kid}: a cosignature timestamp is never zero`);
  if (!subtreeNamesFit(key.name, cp.log)) return fail('malformed_signature', `${sig.kid}: name or origin over 255 bytes`);
  const msg = subtreeMessage({ cosignerName: key.name, timestamp, origin: cp.log, start: 0, end: cp.seq, hash: root.value });
  if (!(backend ?? defaultBackend()).mldsa44Verify(key.publicKey, msg, raw.value))
    return fail('bad_signature', `${sig.alg} signature by ${sig.kid} does not verify`);
  const valid = checkKeyValidAt(w, sig.signedAt);
  if (!valid.ok) return valid;
  return ok(true);
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
  const want = sigBytesOf(sig.alg);
  if (!raw.ok || raw.value.length !== want) return fail('malformed_signature', `${sig.kid}: sig is not ${want} bytes`);
  let payload = raw.value;
  if (isTimestampedAlg(sig.alg)) {
    if (!isTime(sig.signedAt) || timeMs(sig.signedAt) % 1000 !== 0)
      return fail('malformed_signature', `${sig.kid}: signedAt is not a whole second`);
    const c = { timestamp: timeMs(sig.signedAt) / 1000, signature: raw.value };
    payload = sig.alg === COSIGNATURE_V1 ? encodeCosignature(c) : encodeMldsaCosignature(c);
  }
  return ok(`\u2014 ${k.value.name} ${toBase64Std(concatBytes(k.value.id, payload))}\n`);
}

/**
 * A note signature (as parseNote gives it) of a known type as a checkpoint C2SP signature: Ed25519
 * (0x01) becomes note-ed25519 stamped `signedAt`, cosignature/v1 (0x04) takes its own timestamp;
 * ML-DSA-44 (0x06) becomes subtree/v1, or note-mldsa44 when `byLog` (the log's own key).
 */
export function c2spSignatureFromNote(
  s: { name: string; keyId: string; sig: Uint8Array },
  type: number,
  signedAt: string,
  byLog = false,
): Result<C2spSignature> {
  const kid = `${s.name}+${s.keyId}`;
  if (type === SIG_ED25519) {
    if (s.sig.length !== 64) return fail('malformed_signature', `${kid}: an Ed25519 note signature is 64 bytes`);
    return ok({ alg: NOTE_ED25519, kid, signedAt, sig: toBase64url(s.sig) });
  }
  if (isCosignatureType(type)) {
    const c = type === SIG_MLDSA44 ? parseMldsaCosignature(s.sig) : parseCosignature(s.sig);
    if (!c.ok) return c;
    if (c.value.timestamp === 0) return fail('malformed_signature', `${kid}: a cosignature timestamp is never zero`);
    const ms = c.value.timestamp * 1000;
    if (!Number.isSafeInteger(ms) || ms > 253402300799000)
      return fail('malformed_signature', `${kid}: cosignature time ${c.value.timestamp} is beyond year 9999`);
    const alg = byLog && type === SIG_MLDSA44 ? NOTE_MLDSA44 : cosignatureAlgOf(type);
    return ok({ alg, kid, signedAt: formatTime(ms), sig: toBase64url(c.value.signature) });
  }
  return fail('unsupported_alg', `${kid}: note signature type 0x${type.toString(16)} has no checkpoint form`);
}

/**
 * The checkpoint as a tlog-checkpoint signed note carrying every C2SP signature it holds (the
 * log's Ed25519 note signature first, then its ML-DSA-44 one, then cosignature/v1 and subtree/v1
 * lines in array order; JCS signatures have no
 * note form). No C2SP signature: 'unknown_key' (a note needs at least one).
 */
export function checkpointToNote(
  cp: CheckpointFields & { signature: ReadonlyArray<{ alg: string; kid: string; signedAt: string; sig: string }> },
): Result<string> {
  const body = checkpointNoteBody(cp);
  if (!body.ok) return body;
  const c2sp = cp.signature.filter(isC2spSignature);
  const ordered = [
    ...c2sp.filter((s) => s.alg === NOTE_ED25519),
    ...c2sp.filter((s) => s.alg === NOTE_MLDSA44),
    ...c2sp.filter((s) => s.alg === COSIGNATURE_V1),
    ...c2sp.filter((s) => s.alg === SUBTREE_V1),
  ];
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
 * The cosignature/v1 and ML-DSA-44 signatures by `vkeys` in a tlog-witness add-checkpoint reply (signature lines
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
    if (!k || !isCosignatureType(k.type)) continue;
    const c = c2spSignatureFromNote(s, k.type, '1970-01-01T00:00:00.000Z');
    if (!c.ok) return c;
    out.push(c.value);
  }
  return ok(out);
}
