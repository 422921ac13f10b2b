// verifier/c2sp/index.ts: the public surface of verifier/c2sp/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside verifier/ import each other directly.
export { policyFromTlog, policyToTlog, tlogDrops } from './tlog-policy.ts';
export { TLOG_PROOF_HEADER, formatTlogProof, verifyTlogProof } from './tlog-proof.ts';
export { formatTileIndex } from './tile-path.ts';
