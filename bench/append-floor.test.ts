// bench/append-floor.test.ts: the append floor (append-floor.ts) writes what it claims: the batches
// recorded from a real logstore are one per append and hold its entries, payloads, (source, id)
// index and Merkle nodes, and a floor run leaves a LevelDB that holds exactly what the store's own
// LevelDB holds after the same appends, less what init wrote (read back key by key, values
// compared), so the floor can be neither lighter nor heavier than the store's writes.
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { openLogStore } from '../logstore/index.ts';
import { makeDescriptor, removeDir, tempDir } from '../testkit/logstore.ts';
import { openFloorDb, recordStoreWrites, runFloor, storeBatches } from './append-floor.ts';
import { buildBatches, freshHead } from './append.ts';
import { BATCH } from './append-hypercore.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) removeDir(d);
});
const dir = (p: string) => {
  const d = tempDir(p);
  dirs.push(d);
  return d;
};

async function contents(at: string): Promise<Map<string, string>> {
  const db = openFloorDb(at);
  await db.open();
  const out = new Map<string, string>();
  for await (const [k, v] of db.iterator()) out.set(k.toString('hex'), v.toString('hex'));
  await db.close();
  return out;
}

async function storeRun(at: string, items: Parameters<typeof storeBatches>[0] | null): Promise<void> {
  const s = await openLogStore(at);
  await s.init(makeDescriptor('full'));
  for (const batch of items ?? []) await s.append(batch);
  await s.close();
}

describe('append floor', () => {
  it("writes exactly the store's appends, one synced batch each", async () => {
    const blocks = Array.from({ length: 4 }, () => randomBytes(600));
    const items = buildBatches(await freshHead(), 5, blocks, 0);
    const recorded = await storeBatches(items);
    expect(recorded).toHaveLength(5);
    // each append: an entry, a payload and an index key per event, Merkle nodes and the head
    for (const b of recorded) expect(b.length).toBeGreaterThan(3 * BATCH);

    const floorDir = dir('cookwala-floor-test-');
    const r = await runFloor(recorded, floorDir);
    expect(r.blocksPerSec).toBeGreaterThan(0);
    expect(r.cpuUsPerBlock).toBeGreaterThan(0);

    const [ours, initOnly, floor] = [dir('cookwala-floor-store-'), dir('cookwala-floor-init-'), floorDir];
    await storeRun(ours, items);
    await storeRun(initOnly, null);
    const [o, i, f] = await Promise.all([contents(ours), contents(initOnly), contents(floor)]);
    expect(f.size).toBeGreaterThan(3 * BATCH * 5);
    for (const [k, v] of f) expect(o.get(k), `floor key ${k}`).toBe(v);
    // what the store holds besides the floor's keys is what its init wrote, unchanged since
    for (const [k, v] of o) if (!f.has(k)) expect(i.get(k), `store key ${k}`).toBe(v);
  });

  it('refuses a store write it cannot replay', async () => {
    const s = await openLogStore(dir('cookwala-floor-refuse-'));
    await s.init(makeDescriptor('full'));
    recordStoreWrites(s);
    const db = (s as unknown as { db: { put(k: Buffer, v: Buffer): Promise<void> } }).db;
    expect(() => db.put(Buffer.from('k'), Buffer.from('v'))).toThrow(/db\.put/);
    await s.close();
  });
});
