// Two in-process sequencers on one PostgreSQL log (docs/design.md §12a), the lease moved between them
// by hand (the lease row's epoch bumped, then election rounds), on a manual clock for liveness:
// a standby, and a leader whose lease moved without its knowing yet, answer 503 not_leader (with
// Retry-After and the leader's address) before judging order, where they once answered 409
// out_of_order from a stale view; device_lost is appended once per silence across a hand-over
// (the new leader reads the log, not only its memory) and a standby never tries to append it;
// every lease change is one named log line with its epoch and reason, with the lease metrics; an
// idle log in a shared database is not closed (the process stays a candidate) and a shutdown says
// lease_released. Real PostgreSQL (COOKWALA_TEST_PG), real stores and routes (fastify inject).
import { afterAll, describe, expect, it } from 'vitest';
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { createTestDatabase, withDatabase, type TestDatabase } from '../testkit/postgres.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import { createManualClock, type ManualClock } from '../testkit/clock.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { logPath } from '../testkit/sequencer.ts';
import { waitFor } from '../testkit/wait.ts';
import { initDataDir } from '../sequencer/data-dir.ts';
import { openSequencer, type Sequencer } from '../sequencer/app.ts';
import { DATA_FILES } from '../sequencer/config.ts';
import { createLogger, readLogLines, type LogRecord } from '../platform/logger.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import type { PostgresLogStore } from '../logstore/postgres/store.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';

const LOG = 'leadership.example/missions/m-1';
// Long enough that the timer's rounds (every lease/4) never move the lease between two steps of a test.
const LEASE_MS = 8000;
const INTERVAL = 1000;
const device = deviceKey(71);
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
});

interface Member {
  seq: Sequencer;
  address: string;
  lines(): LogRecord[];
  store(): PostgresLogStore;
  post(ce: CloudEvent): Promise<{ status: number; body: Record<string, unknown>; retryAfter?: string }>;
}

async function member(dir: string, db: TestDatabase, clock: ManualClock, name: string): Promise<Member> {
  let out = '';
  const logger = createLogger({ service: 'sequencer', destination: { write: (s: string) => void (out += s) } });
  const address = `http://${name}.test`;
  const seq = await openSequencer(dir, {
    clock,
    timers: false,
    logger,
    storeBackend: { url: db.url, address, leaseMs: LEASE_MS },
    config: { heartbeatIntervalMs: INTERVAL, lostAfterIntervals: 3 },
  });
  cleanup.push(() => seq.close());
  let n = 0;
  return {
    seq,
    address,
    lines: () => readLogLines(out),
    store: () => seq.logs.get(LOG)!.store as PostgresLogStore,
    async post(ce) {
      const r = await seq.app.inject({
        method: 'POST',
        url: logPath(LOG, '/events'),
        headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `${name}-${++n}-${ce.id}` },
        payload: JSON.stringify(ce),
      });
      const h = r.headers['retry-after'];
      return { status: r.statusCode, body: r.json(), ...(h !== undefined ? { retryAfter: String(h) } : {}) };
    },
  };
}

/** A leads, B is a standby, both with the device's key registered; one manual clock. */
async function pair(): Promise<{ A: Member; B: Member; db: TestDatabase; clock: ManualClock }> {
  const db = await createTestDatabase();
  cleanup.push(() => db.drop());
  const base = await makeTempDir('cookwala-pg-lead-');
  cleanup.push(() => rm(base, { recursive: true, force: true }));
  const clock = createManualClock(Math.floor(Date.now() / 1000) * 1000);
  const dirA = join(base, 'a');
  const dirB = join(base, 'b');
  await initDataDir({ dir: dirA, logs: [LOG], mode: 'hash_only', store: { url: db.url, leaseMs: LEASE_MS }, now: clock.now });
  const token = (await readFile(join(dirA, DATA_FILES.token), 'utf8')).trim();
  const first = await openSequencer(dirA, { clock, timers: false, storeBackend: { url: db.url, leaseMs: LEASE_MS } });
  const reg = await first.app.inject({
    method: 'POST',
    url: logPath(LOG, '/keys'),
    headers: { authorization: `Bearer ${token}` },
    payload: device.record,
  });
  expect(reg.statusCode).toBe(201);
  await first.close();
  await cp(dirA, dirB, { recursive: true });
  const A = await member(dirA, db, clock, 'a');
  const B = await member(dirB, db, clock, 'b');
  expect(A.store().role()).toBe('leader');
  expect(B.store().role()).toBe('standby');
  return { A, B, db, clock };
}

const bumpEpoch = (db: TestDatabase) => withDatabase(db.url, (c) => c.query('UPDATE cookwala_leases SET epoch = epoch + 1'));

/** Move the lease from `from` to `to`: the row's epoch moves, `from` notices and lets go, `to` wins. */
async function handOver(db: TestDatabase, from: Member, to: Member): Promise<void> {
  for (let i = 0; i < 10 && to.store().role() !== 'leader'; i++) {
    await bumpEpoch(db);
    await from.store().leaseRound();
    await waitFor(
      async () => {
        await to.store().leaseRound();
        return to.store().role() === 'leader' || from.store().role() === 'leader';
      },
      { what: 'someone to win the lease', intervalMs: 20, timeoutMs: 10_000 },
    );
  }
  expect(to.store().role()).toBe('leader');
}

describe('several sequencers on one PostgreSQL log', () => {
  it('a standby and a leader whose lease moved answer 503 not_leader before judging order, never 409 out_of_order', async () => {
    const { A, B, db, clock } = await pair();
    const s = eventStream(device, { signedAt: () => formatTime(clock.now()) });
    for (let i = 0; i < 3; i++) expect((await A.post(s.next('pan-1'))).status).toBe(201);
    s.next('pan-1'); // #4 is never sent: #5 is out of order at any process that judges it
    const ahead = s.next('pan-1');

    const standby = await B.post(ahead);
    expect(standby).toMatchObject({ status: 503, body: { code: 'not_leader', leader: A.address }, retryAfter: '1' });
    // Heartbeats too: the leader is where a device's signs of life count.
    expect(await B.post(s.heartbeat())).toMatchObject({ status: 503, body: { code: 'not_leader', leader: A.address } });
    // The leader itself judges it.
    expect(await A.post(ahead)).toMatchObject({ status: 409, body: { code: 'out_of_order', expected: 4 } });

    // The lease moves under A without A knowing yet (its next round is seconds away).
    await bumpEpoch(db);
    expect(A.store().role()).toBe('leader');
    const stale = await A.post(ahead);
    expect(stale).toMatchObject({ status: 503, body: { code: 'not_leader' }, retryAfter: '1' });
    expect(A.store().role()).toBe('standby');
    // A batch refused whole for the lease is one 503, not a 200 of per-event refusals.
    const batch = await A.seq.app.inject({
      method: 'POST',
      url: logPath(LOG, '/events'),
      headers: { 'content-type': 'application/cloudevents-batch+json', 'idempotency-key': 'batch-1' },
      payload: JSON.stringify([ahead, s.next('pan-2')]),
    });
    expect(batch.statusCode).toBe(503);
    expect(batch.json()).toMatchObject({ code: 'not_leader' });
  }, 60_000);

  it('device_lost once per silence across a hand-over, judged from the log; a standby never tries to append it', async () => {
    const { A, B, db, clock } = await pair();
    const s = eventStream(device, { signedAt: () => formatTime(clock.now()) });
    const lostEntries = async (m: Member) => {
      const st = m.store();
      const out: Array<{ seq: number; lastSeen: string }> = [];
      for await (const e of st.entries(1, st.head().seq)) {
        if (e.ce.type !== 'cookwala.hub.device_lost') continue;
        const p = await m.seq.app.inject({ method: 'GET', url: logPath(LOG, `/events/${e.seq}`) });
        out.push({ seq: e.seq, lastSeen: (p.json() as { data: { lastSeen: string } }).data.lastSeen });
      }
      return out;
    };

    // B leads first and hears the device; then A leads and hears it later.
    await handOver(db, A, B);
    expect((await B.post(s.next('pan-1'))).status).toBe(201);
    await handOver(db, B, A);
    clock.advance(10 * INTERVAL);
    const spokeAt = clock.now();
    expect((await A.post(s.next('pan-1'))).status).toBe(201);

    // Silence: A (the leader) declares it once; B (a standby, with an older memory) writes nothing and logs nothing.
    clock.advance(3 * INTERVAL);
    await A.seq.tick();
    await B.seq.tick();
    expect(await lostEntries(A)).toEqual([{ seq: expect.any(Number), lastSeen: formatTime(spokeAt) }]);
    expect(B.lines().filter((r) => r.event === 'service_error' || r.event === 'device_lost')).toEqual([]);

    // B takes over with its older memory of the device: the log says this silence was declared already.
    await handOver(db, A, B);
    await B.seq.tick();
    clock.advance(3 * INTERVAL);
    await B.seq.tick();
    clock.advance(30 * INTERVAL);
    await B.seq.tick();
    expect(await lostEntries(B)).toHaveLength(1);
    expect(B.lines().filter((r) => r.event === 'device_lost')).toEqual([]);

    // Speaking again ends that silence; the next one is declared once more, by the process that leads now.
    expect((await B.post(s.next('pan-1'))).status).toBe(201);
    const againAt = clock.now();
    clock.advance(3 * INTERVAL);
    await B.seq.tick();
    await A.seq.tick();
    const all = await lostEntries(B);
    expect(all).toHaveLength(2);
    expect(all[1].lastSeen).toBe(formatTime(againAt));
    expect(A.lines().filter((r) => r.event === 'service_error')).toEqual([]);
  }, 90_000);

  it('every lease change is one log line with epoch and reason, with the lease metrics; an idle shared log stays open', async () => {
    const { A, B, db } = await pair();
    await handOver(db, A, B);
    await handOver(db, B, A);
    expect(await A.seq.logs.closeIdle(0)).toBe(0); // not closed: A keeps leading the idle log
    expect(A.store().role()).toBe('leader');
    const leaderEpoch = A.store().epoch()!;
    const metrics = (await A.seq.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain(`cookwala_lease_epoch{log="${LOG}"} ${leaderEpoch}`);
    expect(metrics).toContain(`cookwala_lease_leader{log="${LOG}"} 1`);
    expect((await B.seq.app.inject({ method: 'GET', url: '/metrics' })).body).toContain(`cookwala_lease_leader{log="${LOG}"} 0`);
    await A.seq.close();
    const lease = (m: Member) =>
      m
        .lines()
        .filter((r) => String(r.event).startsWith('lease_'))
        .map((r) => ({ event: r.event, epoch: r.epoch, reason: r.reason }));
    for (const r of [...lease(A), ...lease(B)]) {
      expect(r.epoch).toEqual(expect.any(Number));
      expect(r.reason).toEqual(expect.any(String));
    }
    // A: won at open, lost, won again, released at shutdown. B: won once, lost once.
    expect(lease(A).map((r) => r.event)).toEqual(['lease_acquired', 'lease_lost', 'lease_acquired', 'lease_released']);
    expect(lease(A)[3]).toMatchObject({ epoch: leaderEpoch, reason: 'shutdown' });
    expect(lease(B).map((r) => r.event)).toEqual(['lease_acquired', 'lease_lost']);
    // Each lost or released line names the epoch its own acquired line won.
    expect(lease(A)[1].epoch).toBe(lease(A)[0].epoch);
    expect(lease(B)[1].epoch).toBe(lease(B)[0].epoch);
  }, 60_000);
});
