// bench/postgres.ts: the `postgres` section of bench/results.json (docs/design.md §12a, §13). Ingest over
// HTTP into a real `cookwala sequencer` child process, on LevelDB and on PostgreSQL (the server
// .ci/run starts: COOKWALA_TEST_PG), in interleaved pairs (LevelDB run, PostgreSQL run, three
// times, each on a fresh log), batches of 100 signed events from 16 devices, every ack checked;
// the median pair's ratio is reported with the spread of all pairs. Then the take-over time of
// two sequencers for one log (tools/pg-failover.ts): SIGKILL of the leader -> first 201 from the
// new leader (takeoverMs), and the same for SIGSTOP (takeoverStopMs, bounded below by the lease).
// Also the stores alone (appendRatioToLevel: prebuilt entries, no HTTP, no signature checks), since
// over HTTP on 2 shared cores the signature checks, not the store, may set the pace.
// Leaves out: tuning PostgreSQL (stock Debian settings, fsync and synchronous_commit on).

import type { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { initDataDir } from '../sequencer/data-dir.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { freePort } from '../testkit/net.ts';
import { startChild } from './ingest-children.ts';
import { createTestDatabase } from '../testkit/postgres.ts';
import { runFailover } from '../tools/pg-failover.ts';
import { TEST_LOG, makeDescriptor, makeItems } from '../testkit/logstore.ts';
import { openLogStore } from '../logstore/index.ts';
import { openPostgresLogStore } from '../logstore/postgres/store.ts';

const LOG = 'bench.example/missions/postgres';
const BATCH = 100;
const CLIENTS = 16;
const LEASE_MS = 1000;

/** A sequencer child on `dir` (bench/ingest-children.ts), its store `store` when given. */
function start(dir: string, port: number, store?: string): Promise<ChildProcess> {
  // The ingest runs use the default lease (3 s): the failover runs below use a short one.
  const extra = store ? ['--store', store] : [];
  return startChild(['bin/cookwala.js', 'sequencer', '--data', dir, '--port', String(port), '--host', '127.0.0.1', ...extra]);
}

let retries503 = 0;

async function ingestRun(events: number, store?: string): Promise<number> {
  const dir = await makeTempDir('cookwala-bench-pg-');
  const devices = Array.from({ length: CLIENTS }, (_, i) => deviceKey(2000 + i));
  const bodies: string[][] = devices.map((d, i) => {
    const s = eventStream(d);
    return Array.from({ length: Math.ceil(events / CLIENTS / BATCH) }, (_, n) =>
      JSON.stringify(Array.from({ length: BATCH }, (_, k) => s.next(`exec-${i}`, { data: { step: n * BATCH + k, tempC: 92.5 } }))),
    );
  });
  await initDataDir({ dir, logs: [LOG], mode: 'hash_only', store: store ? { url: store } : undefined });
  const token = (await readFile(join(dir, 'operator.token'), 'utf8')).trim();
  const port = await freePort();
  const child = await start(dir, port, store);
  const base = `http://127.0.0.1:${port}/v1/logs/${encodeURIComponent(LOG)}`;
  try {
    for (const d of devices) {
      const r = await fetch(`${base}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(d.record),
      });
      if (r.status !== 201) throw new Error(`key registration: ${r.status}`);
    }
    let key = 0;
    const t0 = performance.now();
    await Promise.all(
      bodies.map(async (list) => {
        for (const body of list) {
          const k = `k-${key++}`;
          for (;;) {
            const r = await fetch(`${base}/events`, {
              method: 'POST',
              headers: { 'content-type': 'application/cloudevents-batch+json', 'idempotency-key': k },
              body,
            });
            const j = (await r.json()) as { results?: Array<{ status: number }> };
            // A 503 (not_leader: e.g. a lease lost to a long pause and won back) is retried unchanged, as a device would.
            if (r.status === 503 || j.results?.some((x) => x.status === 503)) {
              retries503++;
              await new Promise((res) => setTimeout(res, 20));
              continue;
            }
            if (r.status !== 200 || !j.results?.every((x) => x.status === 201 || x.status === 200))
              throw new Error(`not acknowledged: ${r.status} ${JSON.stringify(j).slice(0, 200)}`);
            break;
          }
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    return Math.round((bodies.reduce((a, l) => a + l.length, 0) * BATCH) / secs);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The stores alone, no HTTP and no signature checks: `entries` prebuilt entries (testkit items,
 * payload and dedup index each) appended in groups of 100, 8 appends in flight, each durable
 * before it resolves (LevelDB sync:true; PostgreSQL one committed transaction per group).
 */
async function appendRun(entries: number, store?: string): Promise<number> {
  const dir = await makeTempDir('cookwala-bench-pg-append-');
  // Built (signed) before the store opens: seconds of synchronous signing would stall the event
  // loop past the lease's idle timeout and cost this process its own lease.
  const desc = makeDescriptor('hash_only');
  const items = makeItems(TEST_LOG, { seq: 0, hash: desc.hash }, entries);
  const s = store ? await openPostgresLogStore({ url: store, log: TEST_LOG, waitForLeader: true }) : await openLogStore(dir);
  try {
    await s.init(desc);
    const t0 = performance.now();
    const inflight: Array<Promise<unknown>> = [];
    for (let i = 0; i < entries; i += BATCH) {
      const p = s.append(items.slice(i, i + BATCH));
      p.catch(() => undefined); // awaited below; a failure must not be an unhandled rejection meanwhile
      inflight.push(p);
      if (inflight.length >= 8) await inflight.shift();
    }
    await Promise.all(inflight);
    const secs = (performance.now() - t0) / 1000;
    if (s.head().seq !== entries) throw new Error(`appended ${s.head().seq} of ${entries}`);
    return Math.round(entries / secs);
  } finally {
    await s.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const events = ctx.quick ? 5_000 : 30_000;
  const pairs: Array<{ level: number; postgres: number; ratio: number }> = [];
  for (let i = 0; i < 3; i++) {
    const level = await ingestRun(events);
    const db = await createTestDatabase('cookwala_bench');
    try {
      const postgres = await ingestRun(events, db.url);
      pairs.push({ level, postgres, ratio: Math.round((postgres / level) * 1000) / 1000 });
    } finally {
      await db.drop();
    }
  }
  const mid = pairs.find((p) => p.ratio === median(pairs.map((x) => x.ratio)))!;
  const appendEntries = ctx.quick ? 5_000 : 20_000;
  const appendPairs: Array<{ level: number; postgres: number; ratio: number }> = [];
  for (let i = 0; i < 3; i++) {
    const level = await appendRun(appendEntries);
    const db = await createTestDatabase('cookwala_bench');
    try {
      const postgres = await appendRun(appendEntries, db.url);
      appendPairs.push({ level, postgres, ratio: Math.round((postgres / level) * 1000) / 1000 });
    } finally {
      await db.drop();
    }
  }
  const amid = appendPairs.find((p) => p.ratio === median(appendPairs.map((x) => x.ratio)))!;
  const takeover = async (signal: 'SIGKILL' | 'SIGSTOP') => {
    const db = await createTestDatabase('cookwala_bench');
    const base = await makeTempDir('cookwala-bench-failover-');
    try {
      const r = await runFailover({ base, storeUrl: db.url, log: LOG, signal, leaseMs: LEASE_MS, before: 40, after: 20 });
      await r.stop();
      if (r.unexpected.length > 0) throw new Error(`unexpected answers: ${r.unexpected.join(', ')}`);
      return r.takeoverMs;
    } finally {
      await db.drop();
      await rm(base, { recursive: true, force: true });
    }
  };
  const takeoverMs = await takeover('SIGKILL');
  const takeoverStopMs = await takeover('SIGSTOP');
  return {
    ingestEventsPerSec: mid.postgres,
    levelEventsPerSec: mid.level,
    ratioToLevel: mid.ratio,
    ratioSpread: [Math.min(...pairs.map((p) => p.ratio)), Math.max(...pairs.map((p) => p.ratio))],
    pairs,
    eventsPerRun: events,
    appendEntriesPerSec: amid.postgres,
    appendLevelEntriesPerSec: amid.level,
    appendRatioToLevel: amid.ratio,
    appendRatioSpread: [Math.min(...appendPairs.map((p) => p.ratio)), Math.max(...appendPairs.map((p) => p.ratio))],
    appendPairs,
    batch: BATCH,
    clients: CLIENTS,
    retries503,
    takeoverMs,
    takeoverStopMs,
    leaseMs: LEASE_MS,
    note: 'ingest over HTTP, batches of 100, acks after commit (PostgreSQL: synchronous_commit on, one fenced transaction per group); takeoverMs = SIGKILL of the leader -> first 201 from the new leader; takeoverStopMs the same for SIGSTOP (the paused leader keeps the lease until its session is idle for leaseMs)',
  };
}
