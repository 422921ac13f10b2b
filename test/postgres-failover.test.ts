// Two sequencer processes for one log on one PostgreSQL (docs/design.md §12a, §14):
// real `cookwala sequencer --store postgres://…` children, load driven through both (the standby
// answers 503 not_leader naming the leader; clients follow it), the leader SIGKILLed in one run and
// SIGSTOPped in another (SIGCONT after the other took over). Afterwards: every acknowledged event
// is in the log exactly once at its acknowledged seq; the exported bundle verifies offline
// (`cookwala verify`); the chain and tree rebuilt from the database match its head; no two signed
// checkpoints (stored, or served by either process) disagree at one seq; the resumed old leader
// refuses to sequence (not_leader); both processes acknowledged events (the load went through
// both). No PostgreSQL (COOKWALA_TEST_PG unset or unreachable) FAILS with a message: .ci/run
// provides one. Prints the take-over time (kill -> first 201 from the new leader).
import { afterAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { makeTempDir } from '../testkit/tmp.ts';
import { createTestDatabase, type TestDatabase } from '../testkit/postgres.ts';
import { runFailover, type FailoverRun } from '../testkit/pg-failover.ts';
import { cookwala } from '../testkit/audit.ts';
import { rebuildLog } from '../testkit/verify-log.ts';
import { openPostgresLogStore } from '../logstore/postgres/store.ts';
import type { Entry } from '../verifier/documents/entry.ts';
import type { Checkpoint } from '../verifier/documents/checkpoint.ts';

const LOG = 'failover.example/missions/m-1';
const LEASE_MS = 1000;
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

async function check(run: FailoverRun, db: TestDatabase, base: string): Promise<void> {
  expect(run.unexpected).toEqual([]);
  // the load went through both: each acknowledged events, and the first standby redirected clients
  expect(run.acksBy.A).toBeGreaterThan(0);
  expect(run.acksBy.B).toBeGreaterThan(0);
  expect(run.notLeaderBy[run.survivor.name]).toBeGreaterThan(0);
  // the offline verifier on an export from the survivor
  const file = join(base, 'bundle.ndjson');
  const ex = await cookwala(['export', '--url', run.survivor.url, '--log', LOG, '--out', file]);
  expect(ex.code, ex.stderr).toBe(0);
  await run.stop();
  const v = await cookwala(['verify', file, '--policy', join(run.survivor.dir, 'policy.json'), '--json']);
  const report = JSON.parse(v.stdout) as { failures: unknown[] };
  expect(report.failures).toEqual([]);
  expect(v.code).toBe(0);

  const store = await openPostgresLogStore({ url: db.url, log: LOG, leaseMs: LEASE_MS, waitForLeader: true });
  try {
    const head = store.head();
    const entries: Entry[] = [];
    for await (const e of store.entries(1, head.seq)) entries.push(e);
    expect(entries.length).toBe(head.seq);
    const rebuilt = rebuildLog(store.descriptor()!.hash, entries);
    expect(rebuilt.head).toBe(head.hash);
    expect(rebuilt.roots[head.seq]).toBe(head.root);
    const byId = new Map<string, number[]>();
    for (const e of entries) byId.set(`${e.ce.source}\n${e.ce.id}`, [...(byId.get(`${e.ce.source}\n${e.ce.id}`) ?? []), e.seq]);
    for (const a of run.acks) {
      expect(byId.get(`${a.ce.source}\n${a.ce.id}`), `${a.ce.id} acknowledged at ${a.seq} by ${a.by}`).toEqual([a.seq]);
      expect(entries[a.seq - 1]).toMatchObject({ hash: a.hash, eventHash: a.eventHash });
    }
    for (const seqs of byId.values()) expect(seqs).toHaveLength(1);
    const stored: Checkpoint[] = [];
    for await (const cp of store.checkpoints()) stored.push(cp);
    expect(stored.length).toBeGreaterThan(0);
    const headAt = new Map<number, string>();
    for (const cp of [...stored, ...run.served]) {
      expect(cp.root, `checkpoint ${cp.seq}`).toBe(rebuilt.roots[cp.seq]);
      expect(cp.head).toBe(cp.seq === 0 ? store.descriptor()!.hash : entries[cp.seq - 1].hash);
      const seen = headAt.get(cp.seq);
      if (seen !== undefined) expect(cp.head).toBe(seen);
      headAt.set(cp.seq, cp.head);
    }
  } finally {
    await store.close();
  }
}

for (const signal of ['SIGKILL', 'SIGSTOP'] as const) {
  it(`${signal} of the leader: the standby takes over; every acknowledged event once; bundle, chain, tree and checkpoints verify`, async () => {
    const db = await createTestDatabase();
    cleanup.push(() => db.drop());
    const base = await makeTempDir('cookwala-pg-failover-');
    cleanup.push(() => rm(base, { recursive: true, force: true }));
    const run = await runFailover({ base, storeUrl: db.url, log: LOG, signal, leaseMs: LEASE_MS });
    cleanup.push(() => run.stop());
    if (signal === 'SIGSTOP') {
      expect(run.resumedAnswer).toMatchObject({ status: 503, code: 'not_leader', leader: run.survivor.url });
    }
    console.log(
      `postgres failover (${signal}): take-over ${run.takeoverMs} ms (lease ${LEASE_MS} ms); ${run.acks.length} acknowledged (A ${run.acksBy.A}, B ${run.acksBy.B}); not_leader redirects A ${run.notLeaderBy.A}, B ${run.notLeaderBy.B}; victim ${run.victim}`,
    );
    await check(run, db, base);
  }, 120_000);
}
