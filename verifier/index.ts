// verifier/index.ts: the public surface of the pure core (docs/design.md §2, §8), what a library
// user imports as `cookwala-log/verifier` (package.json `exports`; built by bin/build-verifier.ts
// for Node and for browsers) and what other folders of ours should import instead of reaching into
// its files. It only re-exports. The auditor's entry points first: verifyBundle (a whole audit
// bundle, the report `cookwala verify --json` prints), verifyEventProof and verifyTlogProof (one
// event), forkVerdict (a ForkProof); then the strict readers of the documents they take (policies,
// key caches, every Cookwala document, I-JSON), the one reason-code table, the crypto backends (a
// browser build defaults to @noble; setDefaultBackend picks another), and the C2SP note and
// Merkle modules. Left out: auditor/ (files, worker threads, the terminal), which is Node's and
// not part of the core. Invariant: nothing here does I/O; everything exported is a function of its
// arguments or a type.

// Verifying
export { verifyBundle, type BundleInput, type VerifyBundleOptions } from './bundle/verify-bundle.ts';
export { createBundleVerifier, UNWITNESSED_REASON, type BundleVerifier, type BundleVerifierOptions } from './bundle/verifier.ts';
export { formatReport, type BundleReport, type BundleFailure, type CheckpointSummary } from './bundle/report.ts';
export { inlineVerifyBatch, type RawCheck, type VerifyBatch } from './bundle/signature-batches.ts';
export { createLineSplitter, type LineFlags } from './bundle/line-split.ts';
export { verifyEventProof, buildEventProof, type EventProof, type EventProofVerdict } from './bundle/event-proof.ts';
export {
  parseTlogProof,
  verifyTlogProof,
  formatTlogProof,
  TLOG_PROOF_HEADER,
  type TlogProof,
  type TlogProofVerdict,
} from './c2sp/tlog-proof.ts';
export { forkVerdict, verifyForkProof, buildForkProof, type ForkProof, type ForkVerdict, type ProvedFork } from './documents/fork-proof.ts';
export { verifyCheckpoint, type Checkpoint, type VerifiedCheckpoint } from './documents/checkpoint.ts';

// Reading what an auditor is given
export { readWitnessPolicy, DEFAULT_QUORUM, type WitnessPolicy } from './documents/policy.ts';
export { policyToTlog, policyFromTlog } from './c2sp/tlog-policy.ts';
export { readDocument, checkCoreVersion, parseJson, MAX_JSON_DEPTH, type DocumentOf, type ReadOptions } from './documents/read.ts';
export { createKeyCache, parseKeyCache, checkKeyValidAt, type KeyRecord, type KeyCache, type KeyRole, type Alg } from './signing/keys.ts';
export { checkOrigin, isValidOrigin, CORE_VERSION, type LogDescriptor, type LogMode } from './documents/log-descriptor.ts';
export type { Entry } from './documents/entry.ts';
export type { TimeBounds, TimePrecision } from './documents/time-bounds.ts';
export { readCloudEvent, eventHash, type CloudEvent } from './cloudevent/read.ts';
export { computeHash, documentHash } from './signing/document-hash.ts';
export { verifyDocument, signingHeader, signingHeaderBytes, type Signature, type VerifyOptions } from './signing/signature.ts';

// The one reason-code table
export { REASONS, isReasonCode, statusOf, ok, fail, type ReasonCode, type Result, type Failure } from './errors.ts';

// Crypto backends
export { defaultBackend, setDefaultBackend, type CryptoBackend } from './crypto/default.ts';
export { createNobleBackend } from './crypto/noble.ts';

// The C2SP signed notes and the RFC 6962 tree, as namespaces
export * as note from './c2sp/note/index.ts';
export * as merkle from './merkle/index.ts';
export { ProtocolError } from './errors.ts';
