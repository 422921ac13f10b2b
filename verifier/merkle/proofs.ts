// verifier/merkle/proofs.ts: the reader-driven tree operations (root at a size, RFC 6962 PATH
// inclusion proof, RFC 6962 SUBPROOF consistency proof). Each plans its O(log n) node ids
// (plan.ts), fetches them in ONE NodeReader.getNodes call (a LevelDB getMany for the
// store), and combines them purely. It leaves out storage and verification (verify.ts).
// Invariant: proofs come from stored perfect-subtree nodes, never from rehashing leaves, and are
// byte-identical to the recursive RFC definitions (merkle.test.ts compares with a naive reference).
// Bad sizes or indices throw ProtocolError 'bad_request' (transports answer 400).

import { EMPTY_ROOT, type Hash32 } from './hash.ts';
import { combineShape, consistencyShape, foldRight, inclusionShape, rootPlan } from './plan.ts';
import type { NodeReader } from './frontier.ts';

/** The root of the first `size` leaves (SHA-256("") for 0). */
export async function rootAt(reader: NodeReader, size: number): Promise<Hash32> {
  const ids = rootPlan(size);
  if (ids.length === 0) return EMPTY_ROOT.slice();
  return foldRight(combineShape({ ids, groups: ids.map(() => 1) }, await reader.getNodes(ids)));
}

/** RFC 6962 PATH for the 0-based leaf `index` in the tree of `size` leaves (index < size). */
export async function inclusionProof(reader: NodeReader, index: number, size: number): Promise<Hash32[]> {
  const shape = inclusionShape(index, size);
  if (shape.ids.length === 0) return [];
  return combineShape(shape, await reader.getNodes(shape.ids));
}

/** RFC 6962 PROOF(size1, D[size2]); empty when size1 = 0 (C2SP tlog-witness) or size1 = size2. */
export async function consistencyProof(reader: NodeReader, size1: number, size2: number): Promise<Hash32[]> {
  const shape = consistencyShape(size1, size2);
  if (shape.ids.length === 0) return [];
  return combineShape(shape, await reader.getNodes(shape.ids));
}
