// logstore/migrate.ts: moves a LevelDB log store written FAMILY_FIRST ("cookwala-logstore/1") to
// the BANDED layout ("cookwala-logstore/2", keys.ts) when it is opened (store.ts), before anything
// is read. Each step is ONE synced batch that puts up to MIGRATE_CHUNK records of one family under
// their banded keys and deletes their old keys, so whatever step a crash interrupts, every record
// is stored exactly once, under one of its two keys. The version record flips to the new format
// in a batch of its own after the last record moved; a store still marked with the old format
// resumes with the records left under old keys. Then the emptied old ranges are compacted away.
// Leaves out: every other format (store-write.ts refuses an unknown one with
// unsupported_version) and the PostgreSQL driver, which stays FAMILY_FIRST (postgres/pg-kv.ts).
// Invariant: no record is lost, duplicated or changed, and no key of the old layout survives the
// flip.

import { BANDED, FAMILY_FIRST, RECORD_FAMILIES, familyRange, singleKey } from './keys.ts';
import { compactRange, type DB } from './store-read.ts';
import type { FaultHooks, MigrationReport, MigrationStep } from './types.ts';

/** Records moved by one synced batch. */
export const MIGRATE_CHUNK = 1024;

/**
 * Migrate when the store's version record names FAMILY_FIRST; undefined when there is nothing to
 * do (a new store, or one in any other format, which the open refuses or accepts as it is).
 * `onStep` runs after each durable step; `faults.beforeWrite('migrate')` before each.
 */
export async function migrateToBanded(
  db: DB,
  opts: { onStep?(s: MigrationStep): void | Promise<void>; faults?: FaultHooks } = {},
): Promise<MigrationReport | undefined> {
  const v = await db.get(singleKey.version);
  if (!v || Buffer.from(v).toString('utf8') !== FAMILY_FIRST.format) return undefined;
  const t0 = performance.now();
  let moved = 0;
  for (const family of RECORD_FAMILIES) {
    for (;;) {
      const chunk = await db.iterator({ ...familyRange(family), limit: MIGRATE_CHUNK }).all();
      if (chunk.length === 0) break;
      const batch = db.batch();
      for (const [k, value] of chunk) {
        batch.put(BANDED.key(family, FAMILY_FIRST.seqOf(k)), value);
        batch.del(k);
      }
      try {
        await opts.faults?.beforeWrite?.('migrate');
      } catch (e) {
        await batch.close();
        throw e;
      }
      await batch.write({ sync: true });
      moved += chunk.length;
      await opts.onStep?.({ moved, done: false });
    }
  }
  await opts.faults?.beforeWrite?.('migrate');
  await db.put(singleKey.version, Buffer.from(BANDED.format, 'utf8'), { sync: true });
  await opts.onStep?.({ moved, done: true });
  for (const family of RECORD_FAMILIES) {
    const r = familyRange(family);
    await compactRange(db, r.gte, r.lte);
  }
  return { from: FAMILY_FIRST.format, to: BANDED.format, moved, ms: Math.round(performance.now() - t0) };
}
