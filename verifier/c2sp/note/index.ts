// verifier/c2sp/note/index.ts: C2SP signed notes, checkpoints and cosignatures for interop with the
// transparency-log ecosystem (sumdb, Sigsum, C2SP tlog-witness), the one module other parts import
// (it only re-exports). Pieces: signed.ts (parse, verify and sign notes; codes
// 'malformed_note', 'bad_signature', 'unknown_key'), keys.ts (vkeys and skeys, key IDs,
// verifiers for Ed25519 0x01, ECDSA P-256 0x02, cosignature/v1 0x04 and ML-DSA-44 0x06; 'malformed_vkey',
// 'unsupported_alg'), checkpoint.ts (tlog-checkpoint bodies; 'origin_mismatch'),
// cosignature.ts (tlog-cosignature v1 message and timestamp), subtree.ts (the ML-DSA-44
// subtree/v1 message and timestamped signature), base64.ts, text.ts and ecdsa.ts.
// The per-case checkers for the shared vector files live in conformance/checks/signed-note.ts.
// It leaves out Cookwala's own JSON checkpoints and witness protocol (docs/design.md §4, §7), which do not
// use notes. Invariant: pure code, no I/O; the signed bytes have one encoder each.

export * from './signed.ts';
export * from './keys.ts';
export * from './checkpoint.ts';
export * from './cosignature.ts';
export * from './subtree.ts';
export { fromBase64Std, toBase64Std } from './base64.ts';
export { isValidKeyName, MAX_NOTE_BYTES, MAX_SIGNATURES } from './text.ts';
export { parseCheckpointBody } from './checkpoint.ts';
export { cosignatureMessage, parseCosignature } from './cosignature.ts';
export { SIG_COSIGNATURE_V1, SIG_ED25519, createNoteSigner, createNoteVerifier, formatVerifierKey, parseVerifierKey } from './keys.ts';
export { parseNote, verifyCheckpointNote, verifyNote } from './signed.ts';
