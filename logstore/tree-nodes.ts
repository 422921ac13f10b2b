// logstore/tree-nodes.ts: how the RFC 6962 tree's perfect-subtree nodes (verifier/merkle/index.ts
// NodeId [level, index]) are packed into LevelDB, one key per leaf. Node (L, j) is completed by
// the append of its last leaf k = (j+1)*2^L - 1, together with every other node completed by that
// leaf: levels 0..t where t = trailing zeros of k+1. So key 'n'+u64(k) holds those t+1 hashes,
// level order, 32 bytes each (64 bytes on average). This halves the keys an append writes
// compared to one key per node (write cost in LevelDB is per key), and a proof still reads
// O(log n) keys with ONE getMany, never rehashing leaves. Leaves out: caching (LevelDB's block
// cache does that). Invariant: a node is only ever read at a size where it is complete, so its
// key exists; a missing key or a short value means a damaged store and throws.

import type { Hash32, NodeId, NodeReader } from '../verifier/merkle/index.ts';
import { P, type RecordLayout } from './keys.ts';

const HASH = 32;

/** Trailing zero bits of a positive integer up to 2^53 (arithmetic, no 32-bit shifts). */
export function trailingZeros(n: number): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`trailingZeros of ${n}`);
  let t = 0;
  while (n % 2 === 0) {
    n /= 2;
    t++;
  }
  return t;
}

/** Where node (level, index) lives: the leaf whose append completed it, and the byte offset. */
export function nodeLocation(id: NodeId): { leaf: number; offset: number } {
  const [level, index] = id;
  if (!Number.isInteger(level) || level < 0 || level > 53 || !Number.isSafeInteger(index) || index < 0) {
    throw new RangeError(`bad node id [${level}, ${index}]`);
  }
  const leaf = (index + 1) * 2 ** level - 1;
  if (!Number.isSafeInteger(leaf)) throw new RangeError(`node [${level}, ${index}] beyond 2^53 leaves`);
  return { leaf, offset: level * HASH };
}

/**
 * The value stored for leaf `leaf`: the nodes a frontier append returned (the leaf and every node
 * it completed). Checks they are exactly levels 0..t of that leaf's path, so a frontier that
 * disagreed with this layout fails loudly instead of writing a tree that cannot be read.
 */
export function packCompleted(leaf: number, completed: ReadonlyArray<{ id: NodeId; hash: Hash32 }>): Buffer {
  const t = trailingZeros(leaf + 1);
  if (completed.length !== t + 1) throw new Error(`logstore: leaf ${leaf} completed ${completed.length} nodes, want ${t + 1}`);
  const out = Buffer.allocUnsafe((t + 1) * HASH);
  const seen = new Uint8Array(t + 1);
  for (const { id, hash } of completed) {
    const [level, index] = id;
    if (level > t || seen[level] || index !== (leaf + 1) / 2 ** level - 1 || hash.length !== HASH) {
      throw new Error(`logstore: unexpected completed node [${level}, ${index}] at leaf ${leaf}`);
    }
    seen[level] = 1;
    out.set(hash, level * HASH);
  }
  return out;
}

export type GetMany = (keys: Buffer[]) => Promise<Array<Uint8Array | undefined>>;

/** A merkle.ts NodeReader over the store: one getMany per call, keys deduplicated. */
export function createNodeReader(getMany: GetMany, layout: RecordLayout): NodeReader {
  return {
    async getNodes(ids: readonly NodeId[]): Promise<Hash32[]> {
      if (ids.length === 0) return [];
      const locs = ids.map(nodeLocation);
      const slot = new Map<number, number>();
      const keys: Buffer[] = [];
      for (const l of locs) {
        if (!slot.has(l.leaf)) {
          slot.set(l.leaf, keys.length);
          keys.push(layout.key(P.node, l.leaf));
        }
      }
      const values = await getMany(keys);
      return locs.map((l, i) => {
        const v = values[slot.get(l.leaf)!];
        if (!v || v.length < l.offset + HASH) {
          throw new Error(`logstore: Merkle node [${ids[i][0]}, ${ids[i][1]}] missing (damaged store)`);
        }
        return v.subarray(l.offset, l.offset + HASH);
      });
    },
  };
}
