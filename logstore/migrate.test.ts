// The move of a LevelDB store from the FAMILY_FIRST key layout to BANDED at open (migrate.ts, real
// LevelDB in temp directories): everything the store serves is the same after as before, no key
// of the old layout is left, the store appends and erases on after it; a move interrupted by a
// failed step resumes at the next open; a store of an unknown format is refused and left alone.
// The kill -9 version is test/logstore-migrate-crash.test.ts.
import { describe, expect, it } from 'vitest';
import { Level } from 'level';
import { BAND, BANDED, FAMILY_FIRST, singleKey } from './keys.ts';
import { MIGRATE_CHUNK } from './migrate.ts';
import type { MigrationReport } from './index.ts';
import { TEST_LOG, errorCode, erasePayloadOf, makeItems, makeCheckpoint } from '../testkit/logstore.ts';
import { useStores } from '../testkit/logstore-stores.ts';
import { countLayouts, storeView, toFamilyFirst } from '../testkit/logstore-layout.ts';

const stores = useStores();

/** A hash_only store with entries in two bands, an erased payload and a checkpoint, closed and rewritten FAMILY_FIRST. */
async function oldStore(entries: number): Promise<{ dir: string; view: unknown; records: number }> {
  const s = await stores.fresh({ mode: 'hash_only' });
  for (let n = 0; n < entries; n += 500) await s.append(makeItems(TEST_LOG, s.head(), Math.min(500, entries - n)));
  await erasePayloadOf(s, 7);
  const h = s.head();
  await s.putCheckpoint(makeCheckpoint(TEST_LOG, h.seq, h.hash, h.root));
  const view = await storeView(s);
  await stores.close(s);
  const records = await toFamilyFirst(s.dir);
  return { dir: s.dir, view, records };
}

describe('migration FAMILY_FIRST -> BANDED', () => {
  it('at open: the store serves the same, no old key is left, and it appends and erases on', async () => {
    const old = await oldStore(BAND + 200);
    expect(await countLayouts(old.dir)).toEqual({ banded: 0, familyFirst: old.records, version: FAMILY_FIRST.format });
    const reports: MigrationReport[] = [];
    const s = await stores.open(old.dir, { createIfMissing: false, onMigrated: (r) => reports.push(r) });
    expect(reports).toEqual([{ from: FAMILY_FIRST.format, to: BANDED.format, moved: old.records, ms: expect.any(Number) }]);
    expect(old.records).toBe(3 * (BAND + 201) - 1); // entry, node and payload per entry; one payload erased
    expect(await storeView(s)).toEqual(old.view);
    await s.append(makeItems(TEST_LOG, s.head(), 3, { prefix: 'after-' }));
    await erasePayloadOf(s, BAND + 2);
    expect(await s.getPayload(BAND + 2)).toMatchObject({ erased: { seq: BAND + 2 } });
    const head = s.head();
    await stores.close(s);
    expect(await countLayouts(old.dir)).toEqual({ banded: old.records + 3 * 4 - 1, familyFirst: 0, version: BANDED.format });
    const t = await stores.open(old.dir, { createIfMissing: false, onMigrated: (r) => reports.push(r) });
    expect(t.head()).toEqual(head);
    expect(reports.length).toBe(1); // nothing left to move
  });

  it('a move interrupted by a failed step resumes at the next open, every record once', async () => {
    const old = await oldStore(2 * MIGRATE_CHUNK + 10);
    let steps = 0;
    const failAt = 4;
    const faults = {
      beforeWrite(kind: string) {
        if (kind === 'migrate' && ++steps === failAt) throw new Error('injected: step failed');
      },
    };
    await expect(stores.open(old.dir, { createIfMissing: false, faults })).rejects.toThrow(/injected/);
    const mid = await countLayouts(old.dir);
    expect(mid.version).toBe(FAMILY_FIRST.format);
    expect(mid.banded).toBe(2 * MIGRATE_CHUNK + 11); // the entries (and the erasure's) in three steps; the fourth, the first of the nodes, failed
    expect(mid.banded + mid.familyFirst).toBe(old.records);
    const s = await stores.open(old.dir, { createIfMissing: false });
    expect(await storeView(s)).toEqual(old.view);
    await stores.close(s);
    expect(await countLayouts(old.dir)).toEqual({ banded: old.records, familyFirst: 0, version: BANDED.format });
  });

  it('a store of a format this build does not know is refused with unsupported_version, and nothing is moved', async () => {
    const old = await oldStore(300);
    const db = new Level<Buffer, Buffer>(old.dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.put(singleKey.version, Buffer.from('cookwala-logstore/9'));
    await db.close();
    expect(await errorCode(stores.open(old.dir, { createIfMissing: false }))).toBe('unsupported_version');
    expect(await countLayouts(old.dir)).toEqual({ banded: 0, familyFirst: old.records, version: 'cookwala-logstore/9' });
  });
});
