// conformance/checks/merkle-probes.ts: pure per-case checkers that the conformance runner and the tests call
// on the shared Merkle vectors: the transparency-dev/merkle probe files (testdata/inclusion/**,
// testdata/consistency/**; byte fields in standard base64, `proof: null` meaning empty) and the
// RFC 6962 reference tree (rfc6962-reference-*.json, hex). It leaves out file discovery.
// Invariant: a probe passes through exactly the verifier other parts use (verifyInclusion,
// verifyConsistency); a value that does not decode is a failed proof, as wantErr expects.

import { fromHex, toHex } from '../../verifier/encoding/index.ts';
import { fail, ok, type Result } from '../../verifier/index.ts';
import { hashLeaf, type Hash32 } from '../../verifier/merkle/index.ts';
import { createFrontier, createMemoryTree, type MemoryTree } from '../../verifier/merkle/index.ts';
import { rootPlan } from '../../verifier/merkle/index.ts';
import { consistencyProof, inclusionProof, rootAt } from '../../verifier/merkle/index.ts';
import { verifyConsistency, verifyInclusion } from '../../verifier/merkle/index.ts';
import { fromBase64Std } from '../../verifier/c2sp/note/index.ts';

/**
 * One scored case: the runner records `pass`, or a failure with expected vs got, or (when `skip`
 * is set, and then `pass` is false) a skip with that reason: a value the file gives but nothing
 * in the same file can be checked against.
 */
export interface VectorCheck {
  id: string;
  pass: boolean;
  expected: string;
  got: string;
  skip?: string;
}

function b64(s: unknown, what: string): Result<Uint8Array> {
  const r = typeof s === 'string' ? fromBase64Std(s) : fail('bad_request', '');
  return r.ok ? r : fail('bad_proof', `${what} is not standard base64`);
}

function b64List(list: unknown): Result<Hash32[]> {
  if (list === null || list === undefined) return ok([]);
  if (!Array.isArray(list)) return fail('bad_proof', 'proof is not an array');
  const out: Hash32[] = [];
  for (let i = 0; i < list.length; i++) {
    const r = b64(list[i], `proof[${i}]`);
    if (!r.ok) return r;
    out.push(r.value);
  }
  return ok(out);
}

/** ok when the probe's inclusion proof verifies; the runner compares `!ok` with wantErr. */
export function checkInclusionProbe(p: {
  leafIdx: number;
  treeSize: number;
  root: string;
  leafHash: string;
  proof: string[] | null;
}): Result<true> {
  const root = b64(p.root, 'root');
  if (!root.ok) return root;
  const leaf = b64(p.leafHash, 'leafHash');
  if (!leaf.ok) return leaf;
  const proof = b64List(p.proof);
  if (!proof.ok) return proof;
  return verifyInclusion(leaf.value, p.leafIdx, p.treeSize, proof.value, root.value);
}

/** ok when the probe's consistency proof verifies; the runner compares `!ok` with wantErr. */
export function checkConsistencyProbe(p: {
  size1: number;
  size2: number;
  root1: string;
  root2: string;
  proof: string[] | null;
}): Result<true> {
  const root1 = b64(p.root1, 'root1');
  if (!root1.ok) return root1;
  const root2 = b64(p.root2, 'root2');
  if (!root2.ok) return root2;
  const proof = b64List(p.proof);
  if (!proof.ok) return proof;
  return verifyConsistency(p.size1, p.size2, proof.value, root1.value, root2.value);
}

function hex(s: unknown): Uint8Array {
  const r = typeof s === 'string' ? fromHex(s) : fail('bad_request', 'not a string');
  if (!r.ok) throw new TypeError(`not lowercase hex: ${String(s).slice(0, 80)}`);
  return r.value;
}

function hexList(a: unknown): Uint8Array[] {
  if (!Array.isArray(a)) throw new TypeError('expected an array of hex strings');
  return a.map(hex);
}

type Ref = {
  leafInputs?: string[];
  leafHashes?: string[];
  nodeHashesByLevel?: string[][];
  rootHashesBySize?: Array<{ treeSize: number; rootHash: string }>;
  inclusionProofs?: Array<{ leafIndex: number; treeSize: number; leafHash: string; rootHash: string; proof: string[] }>;
  consistencyProofs?: Array<{ size1: number; size2: number; root1: string; root2: string; proof: string[] }>;
};

function same(id: string, want: Uint8Array[], got: Uint8Array[]): VectorCheck {
  const w = want.map(toHex).join(',');
  const g = got.map(toHex).join(',');
  return { id, pass: w === g, expected: w, got: g };
}

/**
 * Check our code against an RFC 6962 reference tree file, using whatever subset of it is present
 * (vectors README: leaf inputs, leaf hashes, nodes by level, roots by size, inclusion and
 * consistency proofs, in any combination). The leaves come from leafInputs (hashed), else
 * leafHashes, else nodeHashesByLevel[0]. Every reference proof is verified against its own roots;
 * where the leaves cover the proof's tree, the proof we generate must also equal it byte for byte
 * (and the proof's leaf hash equal our leaf). A root at a size the leaves cover is recomputed from
 * stored nodes and from a frontier; a root beyond them must equal the root every proof in the file
 * gives for that size, and is skipped (with the reason) when no proof names it.
 */
export async function checkMerkleReference(doc: unknown): Promise<VectorCheck[]> {
  const ref = (doc ?? {}) as Ref;
  const out: VectorCheck[] = [];
  const tree: MemoryTree = createMemoryTree();
  const levels = ref.nodeHashesByLevel ?? [];
  const leavesFromLevels = !ref.leafInputs && !ref.leafHashes && levels.length > 0;
  const leafHashes = ref.leafInputs
    ? hexList(ref.leafInputs).map(hashLeaf)
    : ref.leafHashes
      ? hexList(ref.leafHashes)
      : leavesFromLevels
        ? hexList(levels[0])
        : [];
  for (const h of leafHashes) tree.append(h);
  const n = leafHashes.length;
  if (ref.leafInputs && ref.leafHashes) out.push(same('leafHashes', hexList(ref.leafHashes), leafHashes));
  const run = async (id: string, body: () => Promise<VectorCheck>) => {
    try {
      out.push(await body());
    } catch (e) {
      out.push({ id, pass: false, expected: 'a computable case', got: `threw ${(e as Error).message}` });
    }
  };
  // The roots that the proofs of this file state, by tree size, to check roots beyond the leaves.
  const stated = new Map<number, string[]>();
  const state = (size: number, root: string) => stated.set(size, [...(stated.get(size) ?? []), root]);
  for (const p of ref.inclusionProofs ?? []) state(p.treeSize, p.rootHash);
  for (const p of ref.consistencyProofs ?? []) {
    state(p.size1, p.root1);
    state(p.size2, p.root2);
  }
  for (const [level, hashes] of levels.entries()) {
    if (level === 0 && leavesFromLevels) continue; // they are the leaves: nothing to compare
    await run(`node level ${level}`, async () =>
      same(`node level ${level}`, hexList(hashes), await tree.getNodes(hashes.map((_, i) => [level, i] as const))),
    );
  }
  for (const r of ref.rootHashesBySize ?? []) {
    const id = `root size ${r.treeSize}`;
    await run(id, async () => {
      if (r.treeSize > n) {
        const others = stated.get(r.treeSize) ?? [];
        if (others.length === 0)
          return { id, pass: false, expected: '', got: '', skip: 'a root beyond the leaves given, named by no proof of the file' };
        return same(
          id,
          others.map(() => hex(r.rootHash)),
          others.map(hex),
        );
      }
      const fromNodes = await rootAt(tree, r.treeSize);
      const nodes = await tree.getNodes(rootPlan(r.treeSize));
      const fromFrontier = createFrontier(
        r.treeSize,
        rootPlan(r.treeSize).map((id, i) => ({ id, hash: nodes[i] })),
      ).root();
      return same(id, [hex(r.rootHash), hex(r.rootHash)], [fromNodes, fromFrontier]);
    });
  }
  for (const p of ref.inclusionProofs ?? []) {
    const id = `inclusion ${p.leafIndex} in ${p.treeSize}`;
    await run(id, async () => {
      const v = verifyInclusion(hex(p.leafHash), p.leafIndex, p.treeSize, hexList(p.proof), hex(p.rootHash));
      if (!v.ok) return { id, pass: false, expected: 'the reference proof verifies', got: v.detail };
      if (p.treeSize > n) return { id, pass: true, expected: 'verifies', got: 'verifies' };
      const leaf = same(id, [hex(p.leafHash)], (await tree.getNodes([[0, p.leafIndex]])) as Uint8Array[]);
      if (!leaf.pass) return { ...leaf, expected: `leaf hash ${leaf.expected}` };
      return same(id, hexList(p.proof), await inclusionProof(tree, p.leafIndex, p.treeSize));
    });
  }
  for (const p of ref.consistencyProofs ?? []) {
    const id = `consistency ${p.size1} to ${p.size2}`;
    await run(id, async () => {
      const v = verifyConsistency(p.size1, p.size2, hexList(p.proof), hex(p.root1), hex(p.root2));
      if (!v.ok) return { id, pass: false, expected: 'the reference proof verifies', got: v.detail };
      if (p.size2 > n) return { id, pass: true, expected: 'verifies', got: 'verifies' };
      return same(id, hexList(p.proof), await consistencyProof(tree, p.size1, p.size2));
    });
  }
  if (out.length === 0 && n > 0) {
    out.push({ id: 'leaves', pass: false, expected: '', got: '', skip: 'leaves with no hashes, roots or proofs to compare them with' });
  }
  return out;
}
