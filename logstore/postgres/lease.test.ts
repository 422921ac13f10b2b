// What only the PostgreSQL driver has (docs/design.md §12a): the lease and its fencing epoch, and the
// erasure's wipe being redone after a crash. Real PostgreSQL (.ci/run's cluster, a database per
// test). Two stores for one log in one process stand for two sequencer processes: one leads,
// the other's writes are refused with not_leader naming the leader while its reads follow the
// database; an epoch bumped under a leader (a takeover it has not noticed, as after a pause)
// makes its next append refused in the same transaction, with nothing written; closing the
// leader lets the standby take over from the durable head. A deleted payload whose VACUUM FULL a
// crash prevented is still in the relation files, and the next load wipes it.
import { afterEach, describe, expect, it } from 'vitest';
import type { LogStore } from '../types.ts';
import { P } from '../keys.ts';
import {
  TEST_LOG,
  T0,
  errorCode,
  itemFor,
  makeCheckpoint,
  makeDescriptor,
  makeEvent,
  makeItems,
  sequencerSigner,
} from '../../testkit/logstore.ts';
import { createTestDatabase, databaseFilesContain, withDatabase, type TestDatabase } from '../../testkit/postgres.ts';
import { waitFor } from '../../testkit/wait.ts';
import { openPostgresLogStore, type PostgresLogStore, type PostgresStoreOptions } from './store.ts';
import { ProtocolError } from '../../verifier/errors.ts';

const dbs: TestDatabase[] = [];
const open: LogStore[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
  for (const db of dbs.splice(0)) await db.drop();
});

async function db(): Promise<TestDatabase> {
  const d = await createTestDatabase();
  dbs.push(d);
  return d;
}

async function openStore(o: PostgresStoreOptions): Promise<PostgresLogStore> {
  const s = await openPostgresLogStore({ leaseMs: 1000, ...o });
  open.push(s);
  return s;
}

const count = (url: string, prefix: number) =>
  withDatabase(url, async (c) =>
    Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM cookwala_kv WHERE get_byte(k, 0) = $1', [prefix])).rows[0].n),
  );

describe('PostgreSQL lease and fencing', () => {
  it('one leader; the standby refuses writes (not_leader, naming the leader) and reads the durable head; a lost epoch refuses in the same transaction; the standby takes over', async () => {
    const d = await db();
    // A long lease: the takeover below must land between two of a's lease rounds (leaseMs/4 apart),
    // or a round notices it first and the "still believes so" moment is gone on a busy machine.
    const a = await openStore({ url: d.url, log: TEST_LOG, address: 'http://a.example:1', waitForLeader: true, leaseMs: 60_000 });
    expect(a.role()).toBe('leader');
    await a.init(makeDescriptor('full'));
    await a.append(makeItems(TEST_LOG, a.head(), 3));
    const b = await openStore({ url: d.url, log: TEST_LOG, address: 'http://b.example:2' });
    expect(b.role()).toBe('standby');
    expect(b.descriptor()).toEqual(makeDescriptor('full'));
    expect(b.head()).toEqual(a.head());
    const e = await b.append(makeItems(TEST_LOG, b.head(), 1)).catch((x: unknown) => x as ProtocolError);
    expect(e).toMatchObject({ code: 'not_leader', extra: { leader: 'http://a.example:1' } });
    expect(await errorCode(b.putCheckpoint(makeCheckpoint(TEST_LOG, 3, a.head().hash, a.head().root)))).toBe('not_leader');
    await a.append(makeItems(TEST_LOG, a.head(), 2));
    await b.leaseRound(); // standby round: refresh the read view
    expect(b.head().seq).toBe(5);
    expect((await b.getEntry(5))?.seq).toBe(5);

    // A takeover the leader has not noticed (it was paused): the epoch moves under it.
    await withDatabase(d.url, (c) => c.query("UPDATE cookwala_leases SET epoch = epoch + 1, address = 'http://c.example:3'"));
    expect(a.role()).toBe('leader'); // it still believes so ...
    const f = await a.append(makeItems(TEST_LOG, a.head(), 2)).catch((x: unknown) => x as ProtocolError);
    expect(f).toMatchObject({ code: 'not_leader', extra: { leader: 'http://c.example:3' } }); // ... the fence refuses
    expect(await count(d.url, P.entry)).toBe(5); // nothing of that append was written
    expect(a.role()).toBe('standby');
    expect(await errorCode(a.putCheckpoint(makeCheckpoint(TEST_LOG, 5, b.head().hash, b.head().root)))).toBe('not_leader');

    // The old leader goes away; the standby wins the lease and sequences on from the durable head.
    await a.close();
    await b.leaseRound();
    expect(b.role()).toBe('leader');
    expect(b.generation()).toBe(1);
    const h = await b.append(makeItems(TEST_LOG, b.head(), 2));
    expect(h.seq).toBe(7);
    await b.putCheckpoint(makeCheckpoint(TEST_LOG, 7, h.hash, h.root));
    expect((await b.latestCheckpoint())?.seq).toBe(7);
  });

  it('an erasure whose VACUUM FULL a crash prevented: the deleted bytes are still in the files, and the next load wipes them', async () => {
    const d = await db();
    let crash = true;
    // The crash gives up the lease, and the store's next lease round would win it back and reload,
    // wiping at once: a long lease puts that round (leaseMs/4) well after the checks below, which
    // look at the files between the crash and the next load.
    const s = await openStore({
      url: d.url,
      log: TEST_LOG,
      waitForLeader: true,
      leaseMs: 120_000,
      faults: {
        afterWrite(kind) {
          if (kind === 'erase' && crash) {
            crash = false;
            throw new Error('crash after the erasure transaction');
          }
        },
      },
    });
    await s.init(makeDescriptor('hash_only'));
    const mark = `SECRET-${'QwErTyUiOpAsDfGhJkLzXcVbNm'.split('').reverse().join('')}-${Date.now()}`;
    const t = itemFor(TEST_LOG, s.head(), makeEvent('personal', { data: { note: mark } }), sequencerSigner());
    await s.append([t]);
    // On disk first (the search runs CHECKPOINT): a row inserted and deleted between two
    // checkpoints was once not found in the files at all (pruned before its page was written),
    // which would make the "DELETE alone leaves the bytes" check below moot.
    expect(await databaseFilesContain(d.name, Buffer.from(mark))).toBe(true);
    const er = makeEvent('erase-1', {
      source: 'urn:cookwala:sequencer',
      type: 'cookwala.log.erased',
      data: { seq: 1, eventHash: t.entry.eventHash, reason: 'r' },
    });
    const item = itemFor(TEST_LOG, s.head(), er, sequencerSigner());
    await expect(s.erasePayload(1, { seq: 1, eventHash: t.entry.eventHash, reason: 'r', erasedAt: T0 }, item)).rejects.toThrow(
      /crash after/,
    );
    expect(await count(d.url, P.wipe)).toBe(1);
    expect(await databaseFilesContain(d.name, Buffer.from(mark))).toBe(true); // a DELETE alone leaves the bytes
    await s.close();
    // VACUUM FULL keeps a dead row that any open snapshot of the cluster may still see (PostgreSQL's
    // xmin horizon, which other databases' backends can hold back while they start): the reopen's
    // wipe is judged once no backend's snapshot is older than the erasure.
    const erasedBefore = await withDatabase(d.url, async (c) =>
      Number((await c.query<{ x: string }>('SELECT txid_current() AS x')).rows[0].x),
    );
    await waitFor(
      () =>
        withDatabase(d.url, async (c) => {
          const q = await c.query<{ n: string }>(
            'SELECT count(*) AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_xmin IS NOT NULL AND backend_xmin::text::bigint < $1',
            [erasedBefore],
          );
          return Number(q.rows[0].n) === 0;
        }),
      { what: 'no snapshot older than the erasure', timeoutMs: 30_000, intervalMs: 100 },
    );
    const again = await openStore({ url: d.url, log: TEST_LOG, waitForLeader: true });
    // A snapshot the check above cannot see (a backend still starting) defers the load's wipe to its retry.
    await waitFor(() => again.pendingWipes().length === 0, { what: 'the load wiped', intervalMs: 50 });
    expect(await again.getPayload(1)).toMatchObject({ erased: { seq: 1, erasureSeq: 2 } });
    expect(await count(d.url, P.wipe)).toBe(0);
    expect(await databaseFilesContain(d.name, Buffer.from(mark))).toBe(false);
  });
});
