// logstore/bulk-load.ts: builds a store holding only a Merkle tree of n synthetic leaves, fast,
// for the proof benchmark at n = 10^7 (bench/proof.ts). It writes the same node keys (BANDED, as
// the LevelDB driver does) and head record an append would (tree-nodes.ts, keys.ts), in large unsynced batches with one
// synced batch at the end, and leaves the entries out: roots and proofs work on the result,
// entries and payloads do not exist. Not for production logs (it bypasses chain checks).
// Invariant: the head root written is the frontier root of exactly the nodes written.

import { Level } from 'level';
import { createFrontier, type Hash32 } from '../verifier/merkle/index.ts';
import { formatHash } from '../verifier/encoding/index.ts';
import type { LogDescriptor } from './types.ts';
import { BANDED, P, singleKey } from './keys.ts';
import { encodeHead, encodeJson } from './values.ts';
import { packCompleted } from './tree-nodes.ts';

export async function bulkLoadTree(
  dir: string,
  d: LogDescriptor,
  n: number,
  leafHash: (index: number) => Hash32,
  headHash: string,
  batchSize = 20_000,
): Promise<{ root: string }> {
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  try {
    const f = createFrontier();
    let batch = db.batch();
    for (let i = 0; i < n; i++) {
      batch.put(BANDED.key(P.node, i), packCompleted(i, f.append(leafHash(i))));
      if (batch.length >= batchSize) {
        await batch.write();
        batch = db.batch();
      }
    }
    const root = formatHash(f.root());
    batch.put(singleKey.version, Buffer.from(BANDED.format, 'utf8'));
    batch.put(singleKey.descriptor, encodeJson(d));
    batch.put(singleKey.head, encodeHead({ seq: n, hash: n === 0 ? d.hash : headHash, root }));
    await batch.write({ sync: true });
    return { root };
  } finally {
    await db.close();
  }
}
