// verifier/documents/index.ts: the public surface of verifier/documents/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside verifier/ import each other directly.
export {
  NOTE_ED25519,
  NOTE_MLDSA44,
  isLogNoteAlg,
  checkpointToNote,
  cosignaturesFromWitnessReply,
  logVkey,
  logVkeyOf,
  noteSignatureLine,
  verifyCheckpointC2spCosignature,
  verifyCheckpointNoteSignature,
  witnessCosignatureKey,
} from './checkpoint-c2sp.ts';
export type { C2spSignature, CheckpointSignature } from './checkpoint-c2sp.ts';
export { createLogMldsaSigner, logMldsaVkey, policyLogKeys, readLogMldsaVkey, verifyCheckpointLogMldsa } from './checkpoint-log-mldsa.ts';
export type { LogMldsaSigner } from './checkpoint-log-mldsa.ts';
export {
  CHECKPOINT_KIND,
  addCosignature,
  buildCheckpoint,
  cosignCheckpoint,
  cosignerOf,
  mergeCosignatures,
  verifyCheckpoint,
  verifyCheckpointSequencerSignature,
  withLogNoteSignature,
  witnessSignatures,
} from './checkpoint.ts';
export type { Checkpoint, RejectedCosignature } from './checkpoint.ts';
export { atPointer, pointerTokens, verifyDisclosureReveal } from './disclosure-reveal.ts';
export type { DisclosureReveal } from './disclosure-reveal.ts';
export { createDisclosure, verifyDisclosure } from './disclosure.ts';
export type { Disclosure, Revealed } from './disclosure.ts';
export { buildEntry, checkLink, entryCeOf, entryLeaf, verifyEntryEventSignature, verifyEntryHash } from './entry.ts';
export type { Entry, EntryCe } from './entry.ts';
export { buildForkProof, forkVerdict, verifyForkProof } from './fork-proof.ts';
export type { ForkProof, ForkVerdict } from './fork-proof.ts';
export { LOG_MODES, buildLogDescriptor, checkOrigin, isValidOrigin, originSegment, verifyLogDescriptor } from './log-descriptor.ts';
export type { LogDescriptor, LogMode } from './log-descriptor.ts';
export { NOTE_FORK_PROOF, buildNoteForkProof, noteForkVerdict, readNoteForkProof, verifyNoteForkProof } from './note-fork-proof.ts';
export type { NoteForkProof } from './note-fork-proof.ts';
export { shortFingerprint } from './policy-fingerprint.ts';
export { DEFAULT_QUORUM, readWitnessPolicy } from './policy.ts';
export type { WitnessPolicy } from './policy.ts';
export { parseJson, readDocument } from './read.ts';
export type { DocumentKind } from './read.ts';
export {
  DEFAULT_TIME_BOUNDS,
  MAX_CLOCK_SKEW_LIMIT_MS,
  MAX_DELIVERY_DELAY_LIMIT_MS,
  boundsForPrecision,
  checkHeartbeatTime,
  checkSignedAt,
  checkTimeOrder,
  checkTimePrecision,
  formatDuration,
  parseDuration,
  truncateTime,
} from './time-bounds.ts';
export type { TimeBounds, TimePrecision } from './time-bounds.ts';
