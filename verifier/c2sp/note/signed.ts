// verifier/c2sp/note/signed.ts: C2SP signed-note (https://c2sp.org/signed-note) for interop with the
// transparency-log ecosystem (sumdb, Sigsum, tlog-witness): a note is UTF-8 text ending in newline,
// a blank line, then lines "— <key name> <base64(4-byte key ID || signature)>". The text is split
// from the signatures at the LAST blank line. Verification (verifyNote) follows the spec: signatures
// whose (name, key ID) match no known key are ignored (identical ones reported once); every
// signature from a known key is verified, and one that fails rejects the note ('bad_signature');
// a note with no verified known-key signature is rejected ('unknown_key'); parse errors are
// 'malformed_note'. Limits: 100 signatures, 1 MiB. It leaves out Cookwala's own JSON checkpoints (docs/design.md §4).
// Invariant: a signature is verified over the bytes received, sliced from the note up to and
// including the text's final newline (a leading U+FEFF and any non-ASCII included), never over
// bytes re-encoded from decoded text; the signer signs the UTF-8 of the text it is given, which is
// the same bytes. Base64 is strict, so a note has one spelling. verifyParsedNote verifies a note the
// caller parsed already (no second parse) and accepts only what parseNote returned, read from
// parseNote's own record of it, so the same invariant holds.

import { defaultBackend, type CryptoBackend } from '../../crypto/default.ts';
import { concatBytes, decodeUtf8, toHex, utf8 } from '../../encoding/wire.ts';
import { fail, ok, type Result } from '../../errors.ts';
import { fromBase64Std, toBase64Std } from './base64.ts';
import { parseCheckpointBody, type CheckpointBody } from './checkpoint.ts';
import { parseCosignature } from './cosignature.ts';
import { createNoteVerifier, isCosignatureType, SIG_COSIGNATURE_V1, type NoteSigner, type NoteVerifier } from './keys.ts';
import { parseMldsaCosignature } from './subtree.ts';
import { isValidKeyName, MAX_NOTE_BYTES, MAX_SIGNATURES, textProblem } from './text.ts';

export interface NoteSignature {
  name: string;
  /** 8 lowercase hex digits. */
  keyId: string;
  /** The signature bytes after the 4-byte key ID. */
  sig: Uint8Array;
  /** The signature line as written, without the em dash prefix and the newline. */
  line: string;
}

export interface ParsedNote {
  /** The signed text, including its final newline (for reading; a leading U+FEFF is kept). */
  text: string;
  /** The exact bytes the signatures cover: the note's bytes up to and including that newline. */
  textBytes: Uint8Array;
  signatures: NoteSignature[];
}

export interface VerifiedSignature {
  name: string;
  keyId: string;
  type: number;
  /** For cosignature/v1 and ML-DSA-44 (0x06) signatures: the POSIX seconds the cosigner stamped. */
  timestamp?: number;
}

export interface VerifiedNote {
  text: string;
  /** The exact bytes every verified signature covers. */
  textBytes: Uint8Array;
  /** One entry per known key that signed (in note order). */
  verified: VerifiedSignature[];
  /** Signatures from keys the caller did not give (identical lines once). */
  unverified: NoteSignature[];
}

const PREFIX = '\u2014 ';

function malformed(detail: string): Result<never> {
  return fail('malformed_note', detail);
}

/** The index of the last "\n\n" in `b`, or -1. */
function lastBlankLine(b: Uint8Array): number {
  for (let i = b.length - 2; i >= 0; i--) if (b[i] === 0x0a && b[i + 1] === 0x0a) return i;
  return -1;
}

/**
 * What parseNote returned, by the object it returned: verifyParsedNote reads these, not the
 * object's members, so the bytes it checks are the ones sliced from the note received.
 */
const PARSED = new WeakMap<ParsedNote, ParsedNote>();

export function parseNote(note: string | Uint8Array): Result<ParsedNote> {
  const r = parseNoteOnce(note);
  if (r.ok) PARSED.set(r.value, { ...r.value, signatures: r.value.signatures.slice() });
  return r;
}

function parseNoteOnce(note: string | Uint8Array): Result<ParsedNote> {
  let s: string;
  let bytes: Uint8Array;
  if (note instanceof Uint8Array) {
    if (note.length > MAX_NOTE_BYTES) return malformed(`a note of ${note.length} bytes exceeds ${MAX_NOTE_BYTES}`);
    const d = decodeUtf8(note);
    if (!d.ok) return malformed('not valid UTF-8');
    s = d.value;
    bytes = note;
  } else if (typeof note === 'string') {
    s = note;
    if (s.length > MAX_NOTE_BYTES) return malformed(`a note of ${s.length} characters exceeds ${MAX_NOTE_BYTES} bytes`);
    // textProblem (below) refuses lone surrogates, so these are the only bytes this string can mean.
    bytes = utf8(s);
    if (bytes.length > MAX_NOTE_BYTES) return malformed(`a note over ${MAX_NOTE_BYTES} bytes`);
  } else {
    return malformed('a note is text or bytes');
  }
  const problem = textProblem(s);
  if (problem) return malformed(problem);
  const split = s.lastIndexOf('\n\n');
  if (split < 0) return malformed('no blank line between the text and the signatures');
  // 0x0A occurs in UTF-8 only as U+000A, so the last blank line in the bytes is the same one.
  const byteSplit = lastBlankLine(bytes);
  const text = s.slice(0, split + 1);
  const textBytes = bytes.slice(0, byteSplit + 1);
  const block = s.slice(split + 2);
  if (block === '') return malformed('no signature lines');
  if (!block.endsWith('\n')) return malformed('the last signature line does not end in a newline');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_SIGNATURES) return malformed(`${lines.length} signatures; at most ${MAX_SIGNATURES} are accepted`);
  const signatures: NoteSignature[] = [];
  for (const [i, raw] of lines.entries()) {
    if (!raw.startsWith(PREFIX)) return malformed(`signature line ${i + 1} does not start with an em dash and a space`);
    const line = raw.slice(PREFIX.length);
    const sp = line.indexOf(' ');
    const name = sp < 0 ? line : line.slice(0, sp);
    if (sp < 0 || !isValidKeyName(name)) return malformed(`signature line ${i + 1}: invalid key name`);
    const bytes = fromBase64Std(line.slice(sp + 1));
    if (!bytes.ok || bytes.value.length < 5) return malformed(`signature line ${i + 1}: not standard base64 of a key ID and a signature`);
    signatures.push({ name, keyId: toHex(bytes.value.subarray(0, 4)), sig: bytes.value.slice(4), line });
  }
  return ok({ text, textBytes, signatures });
}

/** Verify a note against the caller's keys (vkey strings or NoteVerifiers). */
export function verifyNote(
  note: string | Uint8Array,
  verifiers: ReadonlyArray<string | NoteVerifier>,
  opts: { backend?: CryptoBackend } = {},
): Result<VerifiedNote> {
  const known = knownVerifiers(verifiers, opts.backend);
  if (!known.ok) return known;
  const parsed = parseNoteOnce(note);
  if (!parsed.ok) return parsed;
  return verifySignatures(parsed.value, known.value);
}

/**
 * verifyNote for a note the caller already parsed with parseNote (the same verdicts, without
 * parsing it again): `parsed` must be the very object parseNote returned (a TypeError otherwise),
 * and its signatures are checked over the bytes parseNote sliced from the note it was given.
 */
export function verifyParsedNote(
  parsed: ParsedNote,
  verifiers: ReadonlyArray<string | NoteVerifier>,
  opts: { backend?: CryptoBackend } = {},
): Result<VerifiedNote> {
  const original = PARSED.get(parsed);
  if (original === undefined) throw new TypeError('verifyParsedNote takes a note as parseNote returned it');
  const known = knownVerifiers(verifiers, opts.backend);
  if (!known.ok) return known;
  return verifySignatures(original, known.value);
}

/** The caller's keys by `<name>+<key ID>`; malformed_vkey for a bad vkey or two keys under one (name, ID). */
function knownVerifiers(verifiers: ReadonlyArray<string | NoteVerifier>, backend?: CryptoBackend): Result<Map<string, NoteVerifier>> {
  const known = new Map<string, NoteVerifier>();
  const given = new Map<string, string | NoteVerifier>();
  for (const v of verifiers) {
    const nv = typeof v === 'string' ? createNoteVerifier(v, backend ?? defaultBackend()) : ok(v);
    if (!nv.ok) return nv;
    const k = `${nv.value.name}+${nv.value.keyId}`;
    // The same vkey (or verifier) twice is harmless; two different keys under one (name, ID) are not.
    if (given.has(k) && given.get(k) !== v) return fail('malformed_vkey', `two verifier keys share the name and key ID ${k}`);
    given.set(k, v);
    known.set(k, nv.value);
  }
  return ok(known);
}

function verifySignatures(parsed: ParsedNote, known: Map<string, NoteVerifier>): Result<VerifiedNote> {
  const { text, textBytes, signatures } = parsed;
  const verified: VerifiedSignature[] = [];
  const unverified: NoteSignature[] = [];
  const seenUnknown = new Set<string>();
  for (const s of signatures) {
    const k = `${s.name}+${s.keyId}`;
    const v = known.get(k);
    if (!v) {
      if (!seenUnknown.has(s.line)) unverified.push(s);
      seenUnknown.add(s.line);
      continue;
    }
    if (!v.verify(textBytes, s.sig)) return fail('bad_signature', `the signature of known key ${k} does not verify`, { key: k });
    if (verified.some((x) => x.name === s.name && x.keyId === s.keyId)) continue;
    const entry: VerifiedSignature = { name: s.name, keyId: s.keyId, type: v.type };
    if (isCosignatureType(v.type)) {
      const c = v.type === SIG_COSIGNATURE_V1 ? parseCosignature(s.sig) : parseMldsaCosignature(s.sig);
      if (c.ok) entry.timestamp = c.value.timestamp;
    }
    verified.push(entry);
  }
  if (verified.length === 0) {
    return fail('unknown_key', 'no signature from a known key', { unverified: unverified.map((u) => `${u.name}+${u.keyId}`) });
  }
  return ok({ text, textBytes, verified, unverified });
}

/** Sign `text` (ending in newline) with each signer; returns the whole note. */
export function signNote(text: string, signers: readonly NoteSigner[]): Result<string> {
  if (typeof text !== 'string' || !text.endsWith('\n')) return malformed('note text must end in a newline');
  const problem = textProblem(text);
  if (problem) return malformed(problem);
  if (signers.length === 0 || signers.length > MAX_SIGNATURES) return malformed(`a note needs 1 to ${MAX_SIGNATURES} signatures`);
  if (signers.some((s) => isCosignatureType(s.type)) && !parseCheckpointBody(text).ok)
    return malformed('cosignatures (0x04, 0x06) sign checkpoint bodies only');
  const bytes = utf8(text);
  const lines = signers.map((s) => {
    const id = Uint8Array.from(s.keyId.match(/../g)?.map((h) => parseInt(h, 16)) ?? []);
    return `${PREFIX}${s.name} ${toBase64Std(concatBytes(id, s.sign(bytes)))}\n`;
  });
  return ok(`${text}\n${lines.join('')}`);
}

/**
 * Open a signed tlog-checkpoint: verify the note (verifyNote rules), then parse its body, refusing
 * an origin other than `opts.origin` when given ('origin_mismatch').
 */
export function verifyCheckpointNote(
  note: string | Uint8Array,
  verifiers: ReadonlyArray<string | NoteVerifier>,
  opts: { origin?: string; backend?: CryptoBackend } = {},
): Result<{ checkpoint: CheckpointBody; note: VerifiedNote }> {
  const v = verifyNote(note, verifiers, opts);
  if (!v.ok) return v;
  const c = parseCheckpointBody(v.value.text, { origin: opts.origin });
  if (!c.ok) return c;
  return ok({ checkpoint: c.value, note: v.value });
}
