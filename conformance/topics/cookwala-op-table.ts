// conformance/topics/cookwala-op-table.ts: the names a vector's `input.op` may take, each bound to
// the function that evaluates it. Op modules load lazily and by group, so a verifier module that is
// not built yet fails the cases that need it (with the missing module named) and no others.

import type { Result } from '../../verifier/index.ts';

export type OpFn = (input: Record<string, unknown>) => Result<unknown> | Promise<Result<unknown>>;

const core = () => import('./cookwala-ops-core.ts');
const log = () => import('./cookwala-ops-log.ts');

const OPS: Record<string, () => Promise<OpFn>> = {
  'document-hash': async () => (await core()).documentHashOp,
  'verify-document': async () => (await core()).verifyDocumentOp,
  'verify-signature': async () => (await core()).verifySignatureOp,
  'key-valid-at': async () => (await core()).keyValidAtOp,
  'verify-disclosure': async () => (await core()).verifyDisclosureOp,
  'read-document': async () => (await log()).readDocumentOp,
  'parse-json': async () => (await log()).parseJsonOp,
  'read-event': async () => (await log()).readEventOp,
  'event-hash': async () => (await log()).eventHashOp,
  'verify-event': async () => (await log()).verifyEventOp,
  'verify-chain': async () => (await log()).verifyChainOp,
  'verify-checkpoint': async () => (await log()).verifyCheckpointOp,
  'verify-fork-proof': async () => (await log()).verifyForkProofOp,
};

export const OP_NAMES: readonly string[] = Object.keys(OPS);

export function findOp(name: string): { load: () => Promise<OpFn> } | undefined {
  return Object.prototype.hasOwnProperty.call(OPS, name) ? { load: OPS[name] } : undefined;
}
