// conformance/checks/signed-note.ts: pure checkers that score the shared signed-note vector files
// (keys.json, notes.json, checkpoints.json; any subset of their sections present) with the
// project's note code, one VectorCheck per case, for the conformance runner and the tests. It
// leaves out file discovery. Verdicts: a Result that is ok is "valid"; 'malformed_note' is
// "malformed"; 'bad_signature', 'unknown_key', 'origin_mismatch' are "invalid" (for vkeys,
// checkpoint bodies and signed checkpoints, whose verdicts are valid/invalid, any failure is
// "invalid").
// Invariant: a case passes only if the verdict matches AND every expected detail the case gives
// (text, verified and unverified keys, key fields, tree size, root, cosignature) matches too.

import { fromUtf8, utf8 } from '../../verifier/encoding/index.ts';
import type { Result } from '../../verifier/index.ts';
import type { VectorCheck } from './merkle-probes.ts';
import { fromBase64Std, toBase64Std } from '../../verifier/c2sp/note/index.ts';
import { parseCheckpointBody } from '../../verifier/c2sp/note/index.ts';
import { cosignatureMessage, parseCosignature } from '../../verifier/c2sp/note/index.ts';
import { createNoteSigner, createNoteVerifier, parseVerifierKey } from '../../verifier/c2sp/note/index.ts';
import { parseNote, verifyCheckpointNote, verifyNote } from '../../verifier/c2sp/note/index.ts';

export type NoteVerdict = 'valid' | 'invalid' | 'malformed';

/** The verdict a note-level Result stands for; any other failure code is shown as error:<code>. */
export function noteVerdict(r: Result<unknown>): string {
  if (r.ok) return 'valid';
  if (r.code === 'malformed_note') return 'malformed';
  if (r.code === 'bad_signature' || r.code === 'unknown_key' || r.code === 'origin_mismatch') return 'invalid';
  return `error:${r.code}`;
}

type Json = Record<string, unknown>;
const arr = (x: unknown): Json[] => (Array.isArray(x) ? (x as Json[]) : []);
const str = (x: unknown): string => (typeof x === 'string' ? x : '');

function verdictCheck(id: string, want: string, r: Result<unknown>, got: string, mismatches: string[]): VectorCheck {
  const detail = r.ok ? '' : ` (${r.code}: ${r.detail})`;
  if (got !== want) return { id, pass: false, expected: want, got: got + detail };
  if (mismatches.length) return { id, pass: false, expected: `${want} with the expected details`, got: mismatches.join('; ') };
  return { id, pass: true, expected: want, got };
}

function eq(mismatches: string[], what: string, want: unknown, got: unknown): void {
  const w = JSON.stringify(want);
  const g = JSON.stringify(got);
  if (w !== g) mismatches.push(`${what}: expected ${w}, got ${g}`);
}

/** keys.json `keys[]`: the vkey verifies-capable with the listed fields; its skey (if any) matches and signs. */
export function checkKeyCase(k: Json): VectorCheck {
  const id = `keys[${str(k.name) || str(k.vkey)}]`;
  const r = createNoteVerifier(str(k.vkey));
  const m: string[] = [];
  const parsed = parseVerifierKey(str(k.vkey));
  if (r.ok && parsed.ok) {
    if (k.name !== undefined) eq(m, 'name', k.name, parsed.value.name);
    if (k.keyId !== undefined) eq(m, 'keyId', k.keyId, parsed.value.keyId);
    if (k.signatureType !== undefined) eq(m, 'type', k.signatureType, parsed.value.type);
    if (k.publicKeyBase64 !== undefined) eq(m, 'publicKey', k.publicKeyBase64, toBase64Std(parsed.value.publicKey));
    if (typeof k.skey === 'string') {
      const s = createNoteSigner(k.skey, { now: () => 1_700_000_000_000 });
      if (!s.ok) m.push(`skey: ${s.code} ${s.detail}`);
      else {
        eq(m, 'vkey derived from skey', k.vkey, s.value.vkey);
        const text = 'conformance\n1\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n';
        const sig = s.value.sign(utf8(text));
        if (!r.value.verify(utf8(text), sig)) m.push('a signature made with the skey does not verify with the vkey');
      }
    }
  }
  return verdictCheck(id, 'valid', r, r.ok ? 'valid' : 'invalid', m);
}

/** keys.json `invalidVkeys[]` and `invalidVkeyMutationsOf.cases[]`: the vkey must be refused. */
export function checkInvalidKeyCase(k: Json, label: string): VectorCheck {
  const r = createNoteVerifier(str(k.vkey));
  return verdictCheck(`${label}[${str(k.reason) || str(k.vkey)}]`, 'invalid', r, r.ok ? 'valid' : 'invalid', []);
}

/** notes.json `cases[]`: the exact bytes (noteBase64 when given) against verifierKeys. */
export function checkNoteCase(c: Json): VectorCheck {
  const id = `cases[${str(c.id)}]`;
  let input: string | Uint8Array = str(c.note);
  if (typeof c.noteBase64 === 'string') {
    const b = fromBase64Std(c.noteBase64);
    if (!b.ok) return { id, pass: false, expected: 'a decodable noteBase64', got: b.detail };
    input = b.value;
  }
  const r = verifyNote(input, arr(c.verifierKeys) as unknown as string[]);
  const m: string[] = [];
  if (r.ok) {
    if (c.expectedText !== undefined) eq(m, 'text', c.expectedText, r.value.text);
    if (c.expectedVerified !== undefined)
      eq(
        m,
        'verified',
        c.expectedVerified,
        r.value.verified.map((v) => `${v.name}+${v.keyId}`),
      );
    if (c.expectedUnverified !== undefined)
      eq(
        m,
        'unverified',
        c.expectedUnverified,
        r.value.unverified.map((v) => `${v.name}+${v.keyId}`),
      );
    if (c.expectedUnverifiedCount !== undefined) eq(m, 'unverified count', c.expectedUnverifiedCount, r.value.unverified.length);
  }
  return verdictCheck(id, str(c.expected), r, noteVerdict(r), m);
}

/** checkpoints.json `bodies[]`: parse (against expectedOrigin when given) and compare fields. */
export function checkCheckpointBodyCase(c: Json): VectorCheck {
  const r = parseCheckpointBody(str(c.body), { origin: typeof c.expectedOrigin === 'string' ? c.expectedOrigin : undefined });
  const m: string[] = [];
  if (r.ok) {
    if (c.origin !== undefined) eq(m, 'origin', c.origin, r.value.origin);
    if (c.treeSize !== undefined) eq(m, 'treeSize', c.treeSize, String(r.value.size));
    if (c.rootHashBase64 !== undefined) eq(m, 'rootHash', c.rootHashBase64, toBase64Std(r.value.rootHash));
  }
  return verdictCheck(`bodies[${str(c.id)}]`, str(c.expected), r, r.ok ? 'valid' : 'invalid', m);
}

/** checkpoints.json `signedCheckpoints[]`: verify the note, then the body against expectedOrigin. */
export function checkSignedCheckpointCase(c: Json): VectorCheck {
  const r = verifyCheckpointNote(str(c.note), arr(c.verifierKeys) as unknown as string[], {
    origin: typeof c.expectedOrigin === 'string' ? c.expectedOrigin : undefined,
  });
  const m: string[] = [];
  if (r.ok && c.treeSize !== undefined) eq(m, 'treeSize', c.treeSize, String(r.value.checkpoint.size));
  // This section's verdicts are valid/invalid: any rejection is "invalid" unless "malformed" is asked.
  const got = c.expected === 'malformed' || r.ok ? noteVerdict(r) : 'invalid';
  return verdictCheck(`signedCheckpoints[${str(c.id)}]`, str(c.expected), r, got, m);
}

/** checkpoints.json `parseOnlyExamples[]`: structure only (no published key), cosignature/v1 fields. */
export function checkParseOnlyCase(c: Json): VectorCheck {
  const r = parseNote(str(c.note));
  const m: string[] = [];
  if (r.ok) {
    if (c.expectedText !== undefined) eq(m, 'text', c.expectedText, r.value.text);
    const want = arr(c.expectedSignatures);
    eq(m, 'signature count', want.length, r.value.signatures.length);
    want.forEach((w, i) => {
      const s = r.value.signatures[i];
      if (!s) return;
      eq(m, `sig ${i} name`, w.name, s.name);
      eq(m, `sig ${i} key ID`, w.keyIdHex, s.keyId);
      eq(m, `sig ${i} bytes`, w.signatureBytes, s.sig.length);
      const cv = w.cosignatureV1 as Json | undefined;
      if (cv) {
        const p = parseCosignature(s.sig);
        if (!p.ok) return void m.push(`sig ${i}: ${p.detail}`);
        eq(m, `sig ${i} timestamp`, cv.timestamp, p.value.timestamp);
        eq(m, `sig ${i} ed25519 bytes`, cv.ed25519SignatureBytes, p.value.signature.length);
        eq(m, `sig ${i} signed message`, cv.signedMessage, fromUtf8(cosignatureMessage(r.value.textBytes, p.value.timestamp)));
        if (!parseCheckpointBody(r.value.text).ok) m.push('a cosigned note whose text is not a checkpoint body');
      }
    });
  }
  return verdictCheck(`parseOnlyExamples[${str(c.id)}]`, 'valid', r, noteVerdict(r), m);
}

/** Every case of one signed-note vector file, by the sections it holds. */
export function checkSignedNoteFile(doc: unknown): VectorCheck[] {
  const d = (doc ?? {}) as Json;
  const mutations = (d.invalidVkeyMutationsOf ?? {}) as Json;
  return [
    ...arr(d.keys).map(checkKeyCase),
    ...arr(d.invalidVkeys).map((k) => checkInvalidKeyCase(k, 'invalidVkeys')),
    ...arr(mutations.cases).map((k) => checkInvalidKeyCase(k, 'invalidVkeyMutationsOf')),
    ...arr(d.cases).map(checkNoteCase),
    ...arr(d.bodies).map(checkCheckpointBodyCase),
    ...arr(d.signedCheckpoints).map(checkSignedCheckpointCase),
    ...arr(d.parseOnlyExamples).map(checkParseOnlyCase),
  ];
}
