// testkit/verify-log.ts: check a log from scratch, independently of the store's own tree:
// every entry hash recomputed, every link (seq without gaps, prev = previous hash, starting from
// the descriptor hash), and the RFC 6962 root rebuilt leaf by leaf in memory (createMemoryTree),
// so a test can compare it with a signed checkpoint. Also parses NDJSON entry streams.

import { verifyEntryHash, checkLink, entryLeaf, type Entry } from '../verifier/documents/entry.ts';
import { createMemoryTree, hashLeaf } from '../verifier/merkle/index.ts';
import { formatHash } from '../verifier/encoding/wire.ts';

export function parseNdjson<T = unknown>(text: string): T[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as T);
}

export interface Rebuilt {
  size: number;
  head: string;
  /** root after each size: roots[n] is the root of the first n entries (roots[0] the empty tree). */
  roots: string[];
}

/** Throws with the first fault; returns the head and the root at every size. */
export function rebuildLog(descriptorHash: string, entries: Entry[]): Rebuilt {
  const tree = createMemoryTree();
  const roots = [formatHash(tree.root())];
  let prev = { seq: 0, hash: descriptorHash };
  for (const e of entries) {
    const h = verifyEntryHash(e);
    if (!h.ok) throw new Error(`entry ${e.seq}: ${h.code} ${h.detail}`);
    const l = checkLink(prev, e);
    if (!l.ok) throw new Error(`entry ${e.seq}: ${l.code} ${l.detail}`);
    tree.append(hashLeaf(entryLeaf(e)));
    roots.push(formatHash(tree.root()));
    prev = { seq: e.seq, hash: e.hash };
  }
  return { size: entries.length, head: prev.hash, roots };
}
