// Two sequencer processes for one log on one PostgreSQL (docs/design.md §12a, §14):
// real `cookwala sequencer --store postgres://…` children, load driven through both (the standby
// answers 503 not_leader naming the leader; clients follow it), the leader SIGKILLed in one run and
// SIGSTOPped in another (SIGCONT after the other took over). Afterwards: every acknowledged event
// is in the log exactly once at its acknowledged seq; the exported bundle verifies offline
// (`cookwala verify`); the chain and tree rebuilt from the database match its head; no two signed
// checkpoints (stored, or served by either process) disagree at one seq; the resumed old leader
// refuses to sequence (not_leader), and answers not_leader (not out_of_order) to an event far out of
// order; both processes acknowledged events (the load went through both); reads beside the load
// answered 200, 404 or 503 with Retry-After only; every lease change is one log line (the epochs
// won, in order, are the lease row's, each once); once the load stops every device gets exactly
// one device_lost, from the process that leads, whose lastSeen is not before the device's last
// entry, and no process logs an error trying to append one. A third run restarts the database
// itself (a throwaway cluster of the test's own, testkit/pg-cluster.ts) under the load: no 500
// anywhere. A fourth drives a real executor given both URLs (the standby first) through a kill of
// the leader: every outbox event in the log once, nothing requeued. No PostgreSQL (COOKWALA_TEST_PG unset or unreachable) FAILS with a message: .ci/run
// provides one. Prints the take-over time (kill -> first 201 from the new leader).
import { afterAll, expect, it } from 'vitest';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { makeTempDir } from '../testkit/tmp.ts';
import { createTestDatabase, withDatabase, type TestDatabase } from '../testkit/postgres.ts';
import { runFailover, type FailoverRun } from '../tools/pg-failover.ts';
import { cookwala } from '../testkit/audit.ts';
import { rebuildLog } from '../testkit/verify-log.ts';
import { openPostgresLogStore } from '../logstore/postgres/store.ts';
import { startPgCluster } from '../testkit/pg-cluster.ts';
import { prepareDataDirs, startPgSequencer, type Proc } from '../tools/pg-procs.ts';
import { freePort } from '../testkit/net.ts';
import { waitFor } from '../testkit/wait.ts';
import { readLogLines } from '../platform/logger.ts';
import { systemClock } from '../platform/clock.ts';
import { SIMPLE_BODY, testDevice, testExecutor, fetchLog } from '../testkit/executor.ts';
import type { TestKey } from '../testkit/keys.ts';
import type { Entry } from '../verifier/documents/entry.ts';
import type { Checkpoint } from '../verifier/documents/checkpoint.ts';

const LOG = 'failover.example/missions/m-1';
const LEASE_MS = 1000;
const HEARTBEAT_MS = 500;
const LIVENESS = { heartbeatIntervalMs: HEARTBEAT_MS, lostAfterIntervals: 3 };
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

const linesOf = (p: Proc) => readLogLines(p.output());

/** Every lease change one line: the epochs won across both processes are consecutive, each once, ending at the row's. */
function checkLeaseLines(run: FailoverRun, rowEpoch: number): void {
  const all = [...linesOf(run.procs.A), ...linesOf(run.procs.B)].filter((r) => String(r.event).startsWith('lease_'));
  for (const r of all) {
    expect(r.epoch, JSON.stringify(r)).toEqual(expect.any(Number));
    expect(r.reason, JSON.stringify(r)).toEqual(expect.any(String));
  }
  const won = all.filter((r) => r.event === 'lease_acquired').map((r) => r.epoch as number);
  expect(new Set(won).size).toBe(won.length);
  const sorted = [...won].sort((a, b) => a - b);
  expect(sorted[sorted.length - 1]).toBe(rowEpoch);
  for (let i = 1; i < sorted.length; i++) expect(sorted[i]).toBe(sorted[i - 1] + 1);
  // Each epoch is let go at most once, and only by the process that won it.
  for (const p of [run.procs.A, run.procs.B]) {
    const mine = linesOf(p).filter((r) => String(r.event).startsWith('lease_'));
    const wonHere = new Set(mine.filter((r) => r.event === 'lease_acquired').map((r) => r.epoch));
    const gone = mine.filter((r) => r.event !== 'lease_acquired').map((r) => r.epoch);
    expect(new Set(gone).size).toBe(gone.length);
    for (const e of gone) expect(wonHere.has(e)).toBe(true);
  }
}

/**
 * After the load stops, each device gets one device_lost for its silence, from the leader, with a
 * lastSeen not before its last entry; two device_lost of one device always have an entry of it
 * between them (one per silence, across the hand-over); no process errs trying to write one.
 */
async function checkDeviceLost(run: FailoverRun): Promise<void> {
  const sources = run.devices.map((d) => d.record.owner);
  const declaredAll = async () => {
    const { entries } = await fetchLog(run.survivor.url, LOG);
    const lastOf = (src: string) => entries.filter((e) => e.ce.source === src).at(-1)?.seq ?? 0;
    return sources.every((src) =>
      entries.some((e) => e.ce.type === 'cookwala.hub.device_lost' && e.ce.subject === src && e.seq > lastOf(src)),
    );
  };
  await waitFor(async () => (await declaredAll()) || undefined, {
    what: 'a device_lost for every silent device',
    intervalMs: 200,
    detail: () => run.survivor.output().slice(-2000),
  });
  // A few more intervals: nothing declares the same silence again.
  const settled = Date.now() + 6 * HEARTBEAT_MS;
  await waitFor(() => Date.now() >= settled || undefined, { what: 'six more heartbeat intervals', intervalMs: HEARTBEAT_MS });
  const { entries } = await fetchLog(run.survivor.url, LOG);
  for (const src of sources) {
    const own = entries.filter((e) => e.ce.source === src);
    const lost = entries.filter((e) => e.ce.type === 'cookwala.hub.device_lost' && e.ce.subject === src);
    for (let i = 1; i < lost.length; i++)
      expect(
        own.some((e) => e.seq > lost[i - 1].seq && e.seq < lost[i].seq),
        `${src}: two device_lost for one silence`,
      ).toBe(true);
    const last = lost.at(-1)!;
    const payload = (await (await fetch(`${run.survivor.url}${`/v1/logs/${encodeURIComponent(LOG)}/events/${last.seq}`}`)).json()) as {
      data: { lastSeen: string };
    };
    const before = own.filter((e) => e.seq < last.seq).at(-1)!;
    expect(Date.parse(payload.data.lastSeen), src).toBeGreaterThanOrEqual(Date.parse(before.sequencedAt) - 1);
  }
  // No process logs an error: a standby writes nothing (it once tried device_lost every interval
  // per device), and a resumed former leader's refused writes are its one lease_lost line.
  for (const p of [run.procs.A, run.procs.B]) {
    const errors = linesOf(p).filter((r) => r.level === 'error' || r.level === 'fatal');
    expect(errors.map((r) => `${p.name} ${r.event}: ${r.msg}`)).toEqual([]);
  }
}

async function check(run: FailoverRun, db: TestDatabase, base: string): Promise<void> {
  expect(run.unexpected).toEqual([]);
  // the load went through both: each acknowledged events, and the first standby redirected clients
  expect(run.acksBy.A).toBeGreaterThan(0);
  expect(run.acksBy.B).toBeGreaterThan(0);
  expect(run.notLeaderBy[run.survivor.name]).toBeGreaterThan(0);
  // the offline verifier on an export from the survivor
  await checkDeviceLost(run);
  const file = join(base, 'bundle.ndjson');
  const ex = await cookwala(['export', '--url', run.survivor.url, '--log', LOG, '--out', file]);
  expect(ex.code, ex.stderr).toBe(0);
  await run.stop();
  const rowEpoch = await withDatabase(db.url, async (c) => Number((await c.query('SELECT epoch FROM cookwala_leases')).rows[0].epoch));
  checkLeaseLines(run, rowEpoch);
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
    const run = await runFailover({ base, storeUrl: db.url, log: LOG, signal, leaseMs: LEASE_MS, config: LIVENESS });
    cleanup.push(() => run.stop());
    if (signal === 'SIGSTOP') {
      expect(run.resumedAnswer).toMatchObject({ status: 503, code: 'not_leader', leader: run.survivor.url });
      // A former leader answers not_leader before judging order, never out_of_order from its stale view.
      expect(run.resumedOutOfOrder).toMatchObject({ status: 503, code: 'not_leader', leader: run.survivor.url });
      // The pause cost it the lease it had won, said in one line for that epoch (on a loaded
      // machine the lease may move again later: checkLeaseLines holds every change to one line).
      const mine = linesOf(run.procs[run.victim]).filter((r) => String(r.event).startsWith('lease_'));
      expect(mine.slice(0, 2).map((r) => r.event)).toEqual(['lease_acquired', 'lease_lost']);
      expect(mine[1].epoch).toBe(mine[0].epoch);
    }
    console.log(
      `postgres failover (${signal}): take-over ${run.takeoverMs} ms (lease ${LEASE_MS} ms); ${run.acks.length} acknowledged (A ${run.acksBy.A}, B ${run.acksBy.B}); not_leader redirects A ${run.notLeaderBy.A}, B ${run.notLeaderBy.B}; victim ${run.victim}`,
    );
    await check(run, db, base);
  }, 300_000);
}

it('the database restarted under the load (pg_ctl restart): no 500, reads and writes answer 503 with Retry-After, then resume', async () => {
  const cluster = await startPgCluster();
  cleanup.push(() => cluster.destroy());
  const base = await makeTempDir('cookwala-pg-restart-');
  cleanup.push(() => rm(base, { recursive: true, force: true }));
  const run = await runFailover({
    base,
    storeUrl: cluster.url,
    log: LOG,
    signal: 'restart',
    leaseMs: LEASE_MS,
    config: LIVENESS,
    restartDatabase: () => cluster.restart(),
  });
  cleanup.push(() => run.stop());
  console.log(
    `postgres restart: first 201 ${run.takeoverMs} ms after the restart began; ${run.acks.length} acknowledged; reads ${JSON.stringify(run.reads)}`,
  );
  expect(run.unexpected).toEqual([]);
  expect(run.reads['500'] ?? 0).toBe(0);
  const store = await openPostgresLogStore({ url: cluster.url, log: LOG, leaseMs: LEASE_MS });
  try {
    const ids = new Map<string, number[]>();
    for await (const e of store.entries(1, store.head().seq))
      ids.set(`${e.ce.source}\n${e.ce.id}`, [...(ids.get(`${e.ce.source}\n${e.ce.id}`) ?? []), e.seq]);
    for (const a of run.acks) expect(ids.get(`${a.ce.source}\n${a.ce.id}`)).toEqual([a.seq]);
  } finally {
    await store.close();
  }
  await run.stop();
  for (const p of [run.procs.A, run.procs.B]) expect(linesOf(p).filter((r) => r.level === 'fatal')).toEqual([]);
}, 300_000);

for (const signal of ['SIGKILL', 'SIGSTOP'] as const)
  it(`an executor given both URLs (the standby first) delivers through a ${signal} of the leader: every event once, nothing requeued`, async () => {
    const db = await createTestDatabase();
    cleanup.push(() => db.drop());
    const base = await makeTempDir('cookwala-pg-executor-');
    cleanup.push(() => rm(base, { recursive: true, force: true }));
    const dev = testDevice('failover-cook');
    const { dirA, dirB } = await prepareDataDirs(base, db.url, LOG, [{ record: dev.keyRecord } as unknown as TestKey], LEASE_MS);
    const A = await startPgSequencer('A', dirA, await freePort(), db.url, LEASE_MS);
    cleanup.push(async () => void A.child.kill('SIGKILL'));
    const B = await startPgSequencer('B', dirB, await freePort(), db.url, LEASE_MS);
    cleanup.push(async () => void B.child.kill('SIGKILL'));
    const { ex, waits } = await testExecutor(join(base, 'device'), {
      name: 'failover-cook',
      sequencerUrl: `${B.url},${A.url}`,
      log: LOG,
      consent: 'research_only',
      delivery: { baseBackoffMs: 20, maxBackoffMs: 200 },
      heartbeatIntervalMs: 0,
      deps: { networkClock: systemClock() },
    });
    cleanup.push(() => ex.close());
    await ex.start();
    const drive = async (key: string) => {
      const c = await ex.service.create(SIMPLE_BODY, key);
      if (!c.ok) throw new Error(c.detail);
      for (const to of ['preparing', 'running', 'completed'] as const) {
        const r = await ex.service.change(c.value.execution.id, to);
        if (!r.ok) throw new Error(`${to}: ${r.detail}`);
      }
      return c.value.execution.id;
    };
    const ids = [await drive('a'), await drive('b')];
    await waits.until(async () => (await ex.store.pendingCount()) === 0, 'the first drain');
    A.child.kill(signal);
    ids.push(await drive('c'), await drive('d'));
    await waits.until(async () => (await ex.store.pendingCount()) === 0, 'the drain through the take-over', 60_000);
    if (signal === 'SIGSTOP') {
      // The paused leader resumes (with the request the outbox gave up on still in its socket): it
      // finds its lease gone, and the outbox keeps delivering to the new leader.
      A.child.kill('SIGCONT');
      await waitFor(() => readLogLines(A.output()).some((r) => r.event === 'lease_lost') || undefined, {
        what: 'the resumed leader to see its lease gone',
        detail: () => A.output().slice(-2000),
      });
      ids.push(await drive('e'));
      await waits.until(async () => (await ex.store.pendingCount()) === 0, 'the drain after the resume', 60_000);
      expect(readLogLines(A.output()).filter((r) => r.level === 'error' || r.level === 'fatal')).toEqual([]);
    }
    expect((await ex.store.deadLetters()).map((d) => `${d.code}: ${d.detail}`)).toEqual([]);
    expect(ex.delivery?.stats()).toMatchObject({ requeued: 0, deadLetters: 0 });
    const events = (await Promise.all(ids.map((id) => ex.store.events(id)))).flat();
    const { entries } = await fetchLog(B.url, LOG);
    const inLog = entries.map((e) => `${e.ce.source} ${e.ce.id}`);
    expect(new Set(inLog).size).toBe(inLog.length);
    for (const e of events) expect(inLog.filter((i) => i === `${e.source} ${e.id}`)).toHaveLength(1);
  }, 300_000);
