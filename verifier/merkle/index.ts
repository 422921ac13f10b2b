// verifier/merkle/index.ts: the log's RFC 6962 / RFC 9162 Merkle tree, the one module other parts import
// (it only re-exports). Tree size = seq and leaf index = seq - 1 (the log layer maps); leaf data =
// the 32 raw bytes of the entry hash. Pieces: hash.ts (hashes, node ids), plan.ts
// (which stored nodes an operation needs), proofs.ts (root and proofs from a NodeReader in
// one batched read), verify.ts (RFC 9162 verification, code 'bad_proof'), frontier.ts (O(log n)
// append state and an in-memory tree); the vector checkers are in conformance/checks/. It leaves out storage (logstore/) and trust in roots (checkpoints).
// Invariant: every number is a safe integer and no 32-bit bitwise operator touches one, so sizes
// up to 2^53 - 1 work (merkle.test.ts plans at 10^7 and 2^40).

export { EMPTY_ROOT, hashChildren, hashLeaf, hashLeafOfHex, type Hash32, type NodeId } from './hash.ts';
export { consistencyPlan, inclusionPlan, rootPlan } from './plan.ts';
export { consistencyProof, inclusionProof, rootAt } from './proofs.ts';
export { rootFromInclusion, verifyConsistency, verifyInclusion } from './verify.ts';
export { createFrontier, createMemoryTree, type Frontier, type MemoryTree, type NodeReader } from './frontier.ts';
export { foldRight } from './plan.ts';
