// verifier/bundle/index.ts: the public surface of verifier/bundle/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside verifier/ import each other directly.
export { createEntryChecker } from './entries.ts';
export type { ClockResume, EarlierIds, EntryResume } from './entries.ts';
export { buildEventProof, verifyEventProof } from './event-proof.ts';
export type { EventProof } from './event-proof.ts';
export { buildBundleHeader, buildPayloadLine, encodeLine } from './format.ts';
export type { IdSet, IdSpillOptions } from './id-set.ts';
export type { MarkResult } from './missing-payloads.ts';
export type { EarlierMissing } from './payload-lines.ts';
export type { SpillFile, SpillSink } from './id-spill.ts';
export { createLineSplitter } from './line-split.ts';
export type { LineFlags } from './line-split.ts';
export { buildReportModel, erasedLine, skippedLine } from './report-model.ts';
export type { ReportItem, ReportModel } from './report-model.ts';
export { createFailureLog, formatReport } from './report.ts';
export type { BundleFailure, BundleReport } from './report.ts';
export { ERASED_TYPE } from './entry-signatures.ts';
export { createSigQueue, inlineVerifyBatch } from './signature-batches.ts';
export type { RawCheck, VerifyBatch } from './signature-batches.ts';
export { readCheckpointSeqsFromTail } from './tail-seqs.ts';
export { createTrust } from './trust.ts';
export { createBundleVerifier } from './verifier.ts';
