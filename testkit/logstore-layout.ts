// testkit/logstore-layout.ts: test-only tools for the store's key layouts (logstore/keys.ts,
// logstore/migrate.ts). toFamilyFirst rewrites a closed LevelDB store of this build (BANDED) into
// the earlier FAMILY_FIRST layout, as a store written by an earlier build holds it, so the migration
// can be tested on real stores with every kind of record (entries across bands, payloads, erased
// payloads, nodes, checkpoints). storeView reads everything a store serves, to compare a store
// before and after. Leaves out: the migration itself.

import { Level } from 'level';
import { BANDED, FAMILY_FIRST, P, RECORD_FAMILIES, singleKey } from '../logstore/keys.ts';
import type { LogStore } from '../logstore/index.ts';

/** Every key of the record families, by layout: counts of keys under the BANDED prefix and under each FAMILY_FIRST prefix. */
export async function countLayouts(dir: string): Promise<{ banded: number; familyFirst: number; version: string }> {
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  try {
    let banded = 0;
    let familyFirst = 0;
    for await (const k of db.keys()) {
      if (k[0] === P.record) banded++;
      else if ((RECORD_FAMILIES as readonly number[]).includes(k[0])) familyFirst++;
    }
    const v = await db.get(singleKey.version);
    return { banded, familyFirst, version: v ? v.toString('utf8') : '' };
  } finally {
    await db.close();
  }
}

/** Rewrite the closed store in `dir` to FAMILY_FIRST (one batch; the store must be small). */
export async function toFamilyFirst(dir: string): Promise<number> {
  const db = new Level<Buffer, Buffer>(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await db.open();
  try {
    const batch = db.batch();
    let n = 0;
    for await (const [k, v] of db.iterator({ gte: Buffer.from([P.record]), lt: Buffer.from([P.record + 1]) })) {
      batch.put(FAMILY_FIRST.key(k[9] as (typeof RECORD_FAMILIES)[number], BANDED.seqOf(k)), v);
      batch.del(k);
      n++;
    }
    batch.put(singleKey.version, Buffer.from(FAMILY_FIRST.format, 'utf8'));
    await batch.write({ sync: true });
    return n;
  } finally {
    await db.close();
  }
}

/** What the store serves: head, every entry, payload and index lookup, checkpoints, roots and proofs at a few sizes. */
export async function storeView(s: LogStore): Promise<unknown> {
  const head = s.head();
  const entries = [];
  for await (const e of s.entries(1, head.seq)) entries.push(e);
  const payloads = [];
  for await (const p of s.payloads(1, head.seq)) payloads.push(p);
  const records = [];
  const lookups = [];
  for (const e of entries) {
    records.push(await s.getPayload(e.seq));
    lookups.push(await s.lookupId(e.ce.source, e.ce.id));
  }
  const checkpoints = [];
  for await (const c of s.checkpoints()) checkpoints.push(c);
  const sizes = [1, Math.ceil(head.seq / 3), head.seq - 1, head.seq].filter((n) => n >= 1 && n <= head.seq);
  const proofs = [];
  for (const n of sizes)
    proofs.push([
      n,
      await s.rootAt(n),
      await s.inclusionProof(1, n),
      await s.inclusionProof(n, head.seq),
      await s.consistencyProof(n, head.seq),
    ]);
  return {
    head,
    descriptor: s.descriptor(),
    entries,
    payloads,
    records,
    lookups,
    checkpoints,
    proofs,
    tile: await s.tileHashes(0, 0, 256),
  };
}
