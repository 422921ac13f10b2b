// verifier/merkle/frontier.ts: the compact range of an append-only RFC 6962 tree (the perfect-
// subtree roots of rootPlan(size), at most 53 hashes), which gives the root at any size in
// constant memory and names every node an append completes, so a store persists exactly those;
// and an in-memory tree (all complete nodes) used as a NodeReader test double. It leaves out
// persistence and proofs (plan.ts builds them from any NodeReader).
// Invariant: a frontier's nodes are always exactly rootPlan(size), left to right, with strictly
// decreasing levels; a restore that does not match is refused with a TypeError (a store bug).

import { EMPTY_ROOT, hashChildren, isCount, type Hash32, type NodeId } from './hash.ts';
import { foldRight, rootPlan } from './plan.ts';

export interface NodeReader {
  /** Batch read of complete nodes, hashes in the order of `ids`. */
  getNodes(ids: readonly NodeId[]): Promise<Hash32[]>;
}

export interface Frontier {
  readonly size: number;
  /** Append one leaf hash; returns every newly completed node, the leaf (level 0) first. */
  append(leafHash: Hash32): Array<{ id: NodeId; hash: Hash32 }>;
  /** append without the list of completed nodes, for a reader that keeps none (the bundle verifier). */
  push(leafHash: Hash32): void;
  root(): Hash32;
  /** The current frontier (the nodes of rootPlan(size)), for persisting and restoring. */
  nodes(): Array<{ id: NodeId; hash: Hash32 }>;
}

interface Slot {
  level: number;
  index: number;
  hash: Hash32;
}

function check32(h: unknown, what: string): asserts h is Hash32 {
  if (!(h instanceof Uint8Array) || h.length !== 32) throw new TypeError(`${what} must be a 32-byte hash`);
}

export function createFrontier(size = 0, nodes: Array<{ id: NodeId; hash: Hash32 }> = []): Frontier {
  if (!isCount(size)) throw new TypeError(`frontier size must be an integer in [0, 2^53 - 1], got ${String(size)}`);
  const plan = rootPlan(size);
  if (nodes.length !== plan.length) throw new TypeError(`a frontier of size ${size} has ${plan.length} nodes, got ${nodes.length}`);
  const byId = new Map<string, Hash32>();
  for (const n of nodes) {
    check32(n.hash, `frontier node [${n.id[0]}, ${n.id[1]}]`);
    byId.set(`${n.id[0]}/${n.id[1]}`, n.hash);
  }
  const stack: Slot[] = plan.map(([level, index]) => {
    const hash = byId.get(`${level}/${index}`);
    if (!hash) throw new TypeError(`frontier of size ${size} lacks node [${level}, ${index}]`);
    return { level, index, hash };
  });
  let n = size;

  /** Pushes the leaf and merges equal levels; each completed node goes to `made` when given. */
  function add(leafHash: Hash32, made: Array<{ id: NodeId; hash: Hash32 }> | undefined): void {
    check32(leafHash, 'leaf hash');
    if (n >= Number.MAX_SAFE_INTEGER) throw new RangeError('tree size limit 2^53 - 1 reached');
    made?.push({ id: [0, n], hash: leafHash });
    stack.push({ level: 0, index: n, hash: leafHash });
    while (stack.length >= 2 && stack[stack.length - 1].level === stack[stack.length - 2].level) {
      const right = stack.pop() as Slot;
      const left = stack.pop() as Slot;
      const parent: Slot = { level: left.level + 1, index: left.index / 2, hash: hashChildren(left.hash, right.hash) };
      stack.push(parent);
      made?.push({ id: [parent.level, parent.index], hash: parent.hash });
    }
    n++;
  }

  return {
    get size() {
      return n;
    },
    append(leafHash) {
      const made: Array<{ id: NodeId; hash: Hash32 }> = [];
      add(leafHash, made);
      return made;
    },
    push(leafHash) {
      add(leafHash, undefined);
    },
    root() {
      return stack.length === 0 ? EMPTY_ROOT.slice() : foldRight(stack.map((s) => s.hash));
    },
    nodes() {
      return stack.map((s) => ({ id: [s.level, s.index] as NodeId, hash: s.hash }));
    },
  };
}

export interface MemoryTree extends NodeReader {
  append(leafHash: Hash32): void;
  readonly size: number;
  root(): Hash32;
}

/** Every complete node in memory (levels[l][i] = node(l, i)): a NodeReader for tests and tools. */
export function createMemoryTree(): MemoryTree {
  const levels: Hash32[][] = [[]];
  const frontier = createFrontier();
  return {
    get size() {
      return frontier.size;
    },
    append(leafHash) {
      for (const { id, hash } of frontier.append(leafHash)) {
        const [l, i] = id;
        if (!levels[l]) levels[l] = [];
        levels[l][i] = hash;
      }
    },
    root: () => frontier.root(),
    async getNodes(ids) {
      return ids.map(([l, i]) => {
        const h = levels[l]?.[i];
        if (!h) throw new RangeError(`node [${l}, ${i}] is not a complete node of a tree of size ${frontier.size}`);
        return h;
      });
    },
  };
}
