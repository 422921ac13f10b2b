// bench/append-layout.ts: the `append.layoutPrototype` figures of bench/results.json (docs/design.md §13
// item 4, bench only): what fewer keys per entry (tiles and bundles, as Tessera and Sunlight
// store them) would save in LevelDB alone. The same planned batches (the store's own planGroup
// over the bench's entries) are written, synced, to a bare LevelDB as (a) the store writes them
// now (node, entry, payload and dedup key per entry: ~401 keys per batch of 100) and (b) bundled
// (one value each for the batch's entries, payloads and Merkle nodes, dedup keys and head kept:
// ~104 keys, same bytes), in interleaved pairs; reported is LevelDB-side CPU per block of each.
// Leaves out: the planning (untimed) and every read path; this is not the store's layout.

import { Level } from 'level';
import type { AppendItem } from '../logstore/index.ts';
import { planGroup } from '../logstore/group-commit.ts';
import { BANDED, P } from '../logstore/keys.ts';
import { createFrontier } from '../verifier/merkle/index.ts';
import { TEST_LOG, removeDir, tempDir } from '../testkit/logstore.ts';
import { summarisePairs, type Pair } from './pairs.ts';
import { cpuNow, round } from './store-measure.ts';

const BATCH = 100;

type KV = { key: Buffer; value: Buffer };

/** The bench's batches as the store would write them (planGroup on a fresh store's head), and bundled. */
function plannedBatches(items: AppendItem[][], head: { seq: number; hash: string; root: string }): { small: KV[][]; bundled: KV[][] } {
  let h = head;
  let f = createFrontier(0, []);
  const small: KV[][] = [];
  const bundled: KV[][] = [];
  items.forEach((batch, b) => {
    const p = planGroup(BANDED, TEST_LOG, h, f, [batch], new Map());
    if (!p.outcomes[0].ok) throw new Error(`layout prototype: batch ${b} refused: ${p.outcomes[0].error.message}`);
    h = p.head;
    f = p.frontier;
    const ops = p.ops as KV[];
    small.push(ops);
    const kept: KV[] = [];
    const families = new Map<number, Buffer[]>();
    for (const o of ops) {
      const family = o.key[0] === P.record ? o.key[9] : undefined; // BANDED record keys (logstore/keys.ts)
      if (family !== undefined) {
        const vs = families.get(family) ?? [];
        vs.push(o.value);
        families.set(family, vs);
      } else kept.push(o);
    }
    // one key per family and batch ('E'/'P'/'N' + u64 batch number: not the store's prefixes)
    for (const [prefix, vs] of families) {
      const key = Buffer.alloc(9);
      key[0] = prefix - 0x20;
      key.writeUInt32BE(b, 5);
      kept.push({ key, value: Buffer.concat(vs) });
    }
    bundled.push(kept);
  });
  return { small, bundled };
}

/** CPU per block of writing these batches, each one synced chained batch, to a fresh LevelDB (the store's options). */
async function levelCpuPerBlock(batches: KV[][]): Promise<number> {
  const dir = tempDir('cookwala-bench-layout-');
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer', writeBufferSize: 32 * 1024 * 1024 });
  try {
    await db.open();
    const c = cpuNow();
    for (const ops of batches) {
      const batch = db.batch();
      for (const o of ops) batch.put(o.key, o.value);
      await batch.write({ sync: true });
    }
    return round((cpuNow() - c) / (batches.length * BATCH), 2);
  } finally {
    await db.close();
    removeDir(dir);
  }
}

export async function layoutPrototype(items: AppendItem[][], head: { seq: number; hash: string; root: string }, nPairs: number) {
  const { small, bundled } = plannedBatches(items, head);
  await levelCpuPerBlock(small); // warm-up
  const pairs: Pair[] = [];
  for (let i = 0; i < nPairs; i++) {
    const now = await levelCpuPerBlock(small);
    const fewer = await levelCpuPerBlock(bundled);
    pairs.push({ limit: now, figure: fewer, ratio: round(fewer / now, 3) });
  }
  const r = summarisePairs(pairs);
  return {
    keysPerBatchNow: small[0].length,
    keysPerBatchBundled: bundled[0].length,
    levelCpuUsPerBlockNow: r.median.limit,
    levelCpuUsPerBlockBundled: r.median.figure,
    cpuRatioBundledToNow: r.ratio,
    cpuRatioSpread: r.ratioSpread,
    note: 'bench-only prototype: LevelDB-side CPU per block (chained batch puts + synced write), planning untimed; not the store layout',
  };
}
