// bench/ingest.ts: the `ingest` section of bench/results.json (docs/design.md §13). A
// real `cookwala sequencer` child process listens on 127.0.0.1; this process plays many devices
// over keep-alive HTTP (bench/raw-http-client.ts, one connection per device, so the load generator
// takes as little as it can of the two cores the sequencer runs on): single structured posts from
// 64, 128 and 256 clients, each awaiting its ack (singleEventsPerSec is the 128's, all three are in
// singleByClients), and batches of 100 from 64; every event signed by its device with a
// registered Ed25519 key, every request's bytes built before the clock starts, every
// acknowledgement checked (201, or 200 with every result 201) — an ack means the entry was
// fsync'd. The limit, node:crypto Ed25519 verify/s on all cores (worker threads, bench/crypto.ts),
// is measured in interleaved pairs with the figures (bench/pairs.ts): in each of at least 3
// rounds, limit and single posts for each number of clients (in an order that turns from round to
// round), then limit and batches; each mode reports its median pair's ratio with the spread of
// the ratios and of its limits. eventsPerSec and
// ratioToVerifyLimit are those of the better mode (both are reported); single posts also report
// the latency of each request (p50/p99 of the median pair, and over all pairs). "Where the time
// goes" comes from the sequencer's own /metrics (batch sizes, synced append latency) and the CPU
// seconds of both processes (/proc on Linux), for the median batch pair, and each mode's
// `eventLoop` from the scheduler's counters of the sequencer's main thread (bench/proc-cpu.ts: the
// share of the wall time it ran, the share it was runnable but waited for a core, and how often an
// event it was taken off its core). `floor`: after each batch phase, and each single phase of
// the reported concurrency, the same request bytes go to bench/floor-server.ts, a second child that does only
// what any HTTP-to-LevelDB sequencer must (floorSummary and, for single posts, floorSingleSummary
// in bench/ingest-floor.ts say what is reported; `ratioToFloor` is the batches' ratio over the
// floor's bound). `latency`: after the pairs, open-loop rows at 50% and 80% of the best rate each
// mode reached (bench/ingest-latency.ts). The children and their clients: bench/ingest-children.ts.
// Knobs, for looking into the latency rows: COOKWALA_BENCH_LATENCY_ONLY=single:N,batch:M[,prefill:K]
// runs only the rows, at 50% and 80% of N single posts/s and M batches/s, after one closed-loop
// phase of each mode (and K more events written in batches) instead of the pairs; its result holds
// `latencyOnly` and `latency` only. COOKWALA_BENCH_SEQ_NODE_ARGS adds node arguments to the
// sequencer's command line (`--import=FILE` of a probe, `--trace-gc`); COOKWALA_BENCH_SEQ_NODE_OPTIONS
// gives the sequencer and the floor node options (`--max-semi-space-size=32`); COOKWALA_BENCH_LATENCY_TRACE=DIR
// writes each row's requests' send and answer times (bench/ingest-latency.ts).

import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { verifyPerSecAllCores } from './crypto.ts';
import type { Pair } from './pairs.ts';
import { initDataDir } from '../sequencer/data-dir.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { freePort } from '../testkit/net.ts';
import { cpuSeconds, httpClient, metric, startChild, startSequencer } from './ingest-children.ts';
import { mainThreadSched, schedBetween, threadCpuMs, threadCpuUsPer } from './proc-cpu.ts';
import { createRawHttpClient, postBytes, type RawHttpClient } from './raw-http-client.ts';
import { latencyOnly, measureLatency } from './ingest-latency.ts';
import type { ProfileWindow } from './cpu-profile.ts';
import { floorSingleSummary, floorSummary, round, type Phase } from './ingest-floor.ts';
import { clientsSummary, modeSummary } from './ingest-summary.ts';

const LOG = 'bench.example/missions/ingest';
const BATCH = 100;
/** Clients posting batches, each awaiting its answer. */
const BATCH_CLIENTS = 64;
/**
 * Single posts are measured with this many clients in flight, each awaiting its ack, in every
 * pair. 64 alone no longer kept the sequencer busy once it got faster: it waits on its group
 * commits with about a quarter of the two cores idle. The three say how throughput grows with
 * concurrency, and at what latency (docs/benchmarks.md).
 */
export const SINGLE_CLIENTS = [64, 128, 256] as const;
/**
 * The concurrency `singleEventsPerSec` reports: twice the batches' 64, where the p99 latency stays
 * well under that of 256 clients (docs/benchmarks.md).
 */
export const SINGLE_HEADLINE_CLIENTS = 128;

export interface BenchCtx {
  quick: boolean;
}

/** A server the phases post to: the sequencer, or the floor. */
interface Target {
  name: string;
  port: number;
  pid: number;
  raw: RawHttpClient;
}

export async function run(ctx: BenchCtx): Promise<Record<string, unknown>> {
  const nPairs = 3;
  const singles = ctx.quick ? 1_280 : 12_800; // per pair
  const batched = ctx.quick ? 12_800 : 128_000; // per pair
  const limitMs = ctx.quick ? 300 : 1000;
  const maxClients = Math.max(BATCH_CLIENTS, ...SINGLE_CLIENTS);

  const dir = await makeTempDir('cookwala-bench-ingest-');
  // One device (and one connection) per client: client i posts device i's events, in its order.
  const devices = Array.from({ length: maxClients }, (_, i) => deviceKey(1000 + i));
  const streams = devices.map((d) => eventStream(d, { signedAt: () => new Date().toISOString() }));
  let step = 0;
  // Signed before the clock starts (the bench measures the sequencer, not the devices).
  const singleBodies = (clients: number, perClient = singles / clients): Buffer[][] =>
    streams
      .slice(0, clients)
      .map((s, i) =>
        Array.from({ length: perClient }, () =>
          Buffer.from(JSON.stringify(s.next(`exec-${i}`, { data: { step: step++, tempC: 92.5, medium: 'water' } }))),
        ),
      );
  const batchBodies = (clients = BATCH_CLIENTS, perClient = batched / BATCH_CLIENTS / BATCH): Buffer[][] =>
    streams
      .slice(0, clients)
      .map((s, i) =>
        Array.from({ length: perClient }, () =>
          Buffer.from(
            JSON.stringify(
              Array.from({ length: BATCH }, () => s.next(`exec-${i}`, { data: { step: step++, tempC: 92.5, medium: 'water' } })),
            ),
          ),
        ),
      );

  await initDataDir({ dir, logs: [LOG], mode: 'hash_only' });
  const token = (await readFile(join(dir, 'operator.token'), 'utf8')).trim();
  const port = await freePort();
  const child = await startSequencer(dir, port);
  // node:http for key registration and /metrics; the timed posts go through the raw client, which
  // takes about a fifth of node:http's client CPU from the two cores the sequencer runs on.
  const http = httpClient(port, 4);
  const raw = createRawHttpClient('127.0.0.1', port, maxClients);
  const sequencer: Target = { name: 'sequencer', port, pid: child.pid!, raw };
  const path = `/v1/logs/${encodeURIComponent(LOG)}`;
  // The floor (bench/floor-server.ts) is started beside it and sits idle while the sequencer runs.
  const floorDir = await makeTempDir('cookwala-bench-floor-');
  let floorChild: ChildProcess | undefined;
  let floorRaw: RawHttpClient | undefined;
  try {
    const floorPort = await freePort();
    floorChild = await startChild(['--import', 'tsx', 'bench/floor-server.ts', floorDir, String(floorPort)]);
    floorRaw = createRawHttpClient('127.0.0.1', floorPort, maxClients);
    const floor: Target = { name: 'floor', port: floorPort, pid: floorChild.pid!, raw: floorRaw };
    for (const d of devices) {
      const r = await http.post(`${path}/keys`, Buffer.from(JSON.stringify(d.record)), {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
      });
      if (r.status !== 201) throw new Error(`key registration: ${r.status} ${r.body}`);
    }
    let keyN = 0;
    const requestBytes = (bodies: Buffer[][], contentType: string, to = port) =>
      bodies.map((list) =>
        list.map((body) => postBytes('127.0.0.1', to, `${path}/events`, contentType, body, { 'idempotency-key': `b-${keyN++}` })),
      );
    // COOKWALA_BENCH_CPU_PROF=DIR: each timed phase's window on the monotonic clock the profiles
    // use, so that bench/cpu-profile.ts can read one mode's samples (--phases FILE --mode single).
    const profDir = process.env.COOKWALA_BENCH_CPU_PROF;
    const profWindows: ProfileWindow[] = [];
    // COOKWALA_BENCH_THREADS=1: each phase's sequencer CPU per event by thread name, on stderr.
    const perThread = process.env.COOKWALA_BENCH_THREADS === '1';
    async function phase(bodies: Buffer[][], contentType: string, perBody: number, target: Target = sequencer): Promise<Phase> {
      const withMetrics = perBody > 1 && target === sequencer;
      const before = withMetrics ? await http.get('/metrics') : '';
      const cpu0 = process.cpuUsage();
      const seqCpu0 = await cpuSeconds(target.pid);
      const threads0 = perThread ? threadCpuMs(target.pid) : undefined;
      // Every request's bytes are built before the clock starts.
      const requests = requestBytes(bodies, contentType, target.port);
      const latencies: number[] = [];
      const sched0 = mainThreadSched(target.pid);
      const t0 = performance.now();
      const hr0 = process.hrtime.bigint();
      await Promise.all(
        requests.map(async (list) => {
          for (const bytes of list) {
            const t = performance.now();
            // A single post's ack is its 201; a batch's is a 200 whose every result is 201.
            const r = perBody === 1 ? { status: await target.raw.send(bytes), body: Buffer.alloc(0) } : await target.raw.sendForBody(bytes);
            latencies.push(performance.now() - t);
            const text = r.body.toString('utf8');
            const ok =
              perBody === 1
                ? r.status === 201
                : r.status === 200 && (JSON.parse(text).results as Array<{ status: number }>).every((x) => x.status === 201);
            if (!ok) throw new Error(`not acknowledged: ${r.status} ${text.slice(0, 300)}`);
          }
        }),
      );
      const secs = (performance.now() - t0) / 1000;
      const events = bodies.reduce((a, l) => a + l.length, 0) * perBody;
      if (profDir)
        profWindows.push({
          target: target.name,
          mode: perBody > 1 ? 'batch' : 'single',
          events,
          startUs: Number(hr0 / 1000n),
          endUs: Number(process.hrtime.bigint() / 1000n),
        });
      const cpu = process.cpuUsage(cpu0);
      const sched1 = mainThreadSched(target.pid);
      if (threads0) {
        const us = threadCpuUsPer(threads0, threadCpuMs(target.pid), events);
        process.stderr.write(`threads ${target.name} ${perBody > 1 ? 'batch' : 'single'}: CPU us per event ${JSON.stringify(us)}\n`);
      }
      const p: Phase = {
        events,
        secs,
        perSec: Math.round(events / secs),
        clientCpu: (cpu.user + cpu.system) / 1e6,
        sequencerCpu: (await cpuSeconds(target.pid)) - seqCpu0,
        latencies: latencies.sort((a, b) => a - b),
        eventLoop: sched0 && sched1 ? schedBetween(sched0, sched1, secs, events) : undefined,
      };
      if (withMetrics) {
        const after = await http.get('/metrics');
        const d = (name: string) => metric(after, name) - metric(before, name);
        p.whereTheTimeGoes = {
          seconds: round(secs, 2),
          sequencerCpuSeconds: round(p.sequencerCpu, 2),
          clientCpuSeconds: round(p.clientCpu, 2),
          groupCommits: d('cookwala_batches_total'),
          meanEntriesPerCommit: round(d('cookwala_batch_size_sum') / Math.max(1, d('cookwala_batch_size_count')), 1),
          meanSyncedAppendMs: round((1000 * d('cookwala_fsync_seconds_sum')) / Math.max(1, d('cookwala_fsync_seconds_count')), 2),
          syncedAppendShareOfWall: round(d('cookwala_fsync_seconds_sum') / secs, 2),
        };
      }
      return p;
    }
    // warm-up (JIT, connections, LevelDB files), not counted
    const warm = singleBodies(maxClients, 2);
    await phase(warm, 'application/cloudevents+json', 1);
    await phase(warm, 'application/cloudevents+json', 1, floor);
    const pair = (limit: number, p: Phase): Pair<Phase> => ({ limit, figure: p.perSec, ratio: round(p.perSec / limit, 3), extra: p });
    const singleBy = new Map<number, Array<Pair<Phase>>>(SINGLE_CLIENTS.map((n) => [n, []]));
    const batch: Array<Pair<Phase>> = [];
    const floorPhases: Phase[] = [];
    const floorSingles: Phase[] = [];
    const counters = async () => {
      const m = await http.get('/metrics');
      return {
        groupCommits: metric(m, 'cookwala_batches_total'),
        entries: metric(m, 'cookwala_batch_size_sum'),
        syncedAppendSeconds: metric(m, 'cookwala_fsync_seconds_sum'),
        cpuSeconds: await cpuSeconds(child.pid!),
      };
    };
    /** The open-loop rows at 50% and 80% of these maxima (bench/ingest-latency.ts). */
    const latencyRows = (maxSinglePerSec: number, maxBatchPerSec: number) =>
      measureLatency({
        quick: ctx.quick,
        raw,
        maxSinglePerSec,
        maxBatchPerSec,
        singles: (lanes, perLane) => requestBytes(singleBodies(lanes, perLane), 'application/cloudevents+json'),
        batches: (lanes, perLane) => requestBytes(batchBodies(lanes, perLane), 'application/cloudevents-batch+json'),
        singleLanes: maxClients,
        batchLanes: BATCH_CLIENTS,
        counters,
      });
    // COOKWALA_BENCH_LATENCY_ONLY: only the open-loop rows, at the maxima given (latencyOnly below).
    const only = latencyOnly(process.env.COOKWALA_BENCH_LATENCY_ONLY);
    if (only) {
      // Warm as after the pairs: one closed-loop phase of each mode (JIT, the signature workers, the
      // new space), then the store written further, in batches, as the pairs would have written it.
      await phase(singleBodies(maxClients), 'application/cloudevents+json', 1);
      await phase(batchBodies(), 'application/cloudevents-batch+json', BATCH);
      for (let left = only.prefill; left > 0; left -= batched)
        await phase(
          batchBodies(BATCH_CLIENTS, Math.max(1, Math.ceil(Math.min(left, batched) / BATCH_CLIENTS / BATCH))),
          'application/cloudevents-batch+json',
          BATCH,
        );
      return { latencyOnly: only, latency: await latencyRows(only.single, only.batch) };
    }
    for (let i = 0; i < nPairs; i++) {
      // Each pair takes the concurrencies in another order, so that none always comes first.
      for (let k = 0; k < SINGLE_CLIENTS.length; k++) {
        const n = SINGLE_CLIENTS[(i + k) % SINGLE_CLIENTS.length];
        const s = singleBodies(n);
        singleBy.get(n)!.push(pair(await verifyPerSecAllCores(limitMs), await phase(s, 'application/cloudevents+json', 1)));
        // The same posts again, to the floor (new to its own database), at the reported concurrency.
        if (n === SINGLE_HEADLINE_CLIENTS) floorSingles.push(await phase(s, 'application/cloudevents+json', 1, floor));
      }
      const b = batchBodies();
      batch.push(pair(await verifyPerSecAllCores(limitMs), await phase(b, 'application/cloudevents-batch+json', BATCH)));
      // The same bytes again, to the floor (new to its own database).
      floorPhases.push(await phase(b, 'application/cloudevents-batch+json', BATCH, floor));
    }
    // Latency under an open-loop load at 50% and 80% of the best rate each mode reached above.
    const latency = await latencyRows(
      Math.max(...[...singleBy.values()].map((pairs) => modeSummary(pairs).eventsPerSec)),
      modeSummary(batch).eventsPerSec / BATCH,
    );
    if (profDir) {
      await mkdir(profDir, { recursive: true });
      await writeFile(join(profDir, 'ingest-phases.json'), JSON.stringify(profWindows, null, 1));
    }
    const single = singleBy.get(SINGLE_HEADLINE_CLIENTS)!;
    const everyPair = [...[...singleBy.values()].flat(), ...batch];
    const byClients = clientsSummary(singleBy);
    const sm = modeSummary(single);
    const bm = modeSummary(batch);
    const best = bm.eventsPerSec >= sm.eventsPerSec ? bm : sm;
    const floorBatch = floorSummary(floorPhases, bm.median, bm.verifyPerSecAllCores);
    const strip = (m: typeof sm) => {
      const { median, ...rest } = m;
      return { ...rest, clientCpuSeconds: round(median.clientCpu, 2), sequencerCpuSeconds: round(median.sequencerCpu, 2) };
    };
    return {
      eventsPerSec: best.eventsPerSec,
      eventsPerSecMode: best === bm ? 'batch' : 'single',
      batchEventsPerSec: bm.eventsPerSec,
      singleEventsPerSec: sm.eventsPerSec,
      singleP50Ms: sm.p50Ms,
      singleP99Ms: sm.p99Ms,
      verifyPerSecAllCores: best.verifyPerSecAllCores,
      ratioToVerifyLimit: best.ratioToVerifyLimit,
      ratioSpread: best.ratioSpread,
      limitSpread: round(Math.max(...everyPair.map((p) => p.limit)) / Math.min(...everyPair.map((p) => p.limit)), 3),
      limitsAgree: bm.limitsAgree && Object.values(byClients).every((x) => x.limitsAgree),
      pairs: nPairs,
      batch: strip(bm),
      single: { ...strip(sm), clients: SINGLE_HEADLINE_CLIENTS },
      // Single posts at each concurrency measured (the curve singleEventsPerSec is read from).
      singleByClients: byClients,
      batchClients: BATCH_CLIENTS,
      singleClients: SINGLE_HEADLINE_CLIENTS,
      events: everyPair.reduce((a, p) => a + p.extra!.events, 0),
      cores: availableParallelism(),
      // docs/design.md §13: batches against the floor's bound, the target FLOOR_TARGET.
      ratioToFloor: round(bm.ratioToVerifyLimit / floorBatch.ratioBound, 3),
      floor: {
        ...floorBatch,
        single: floorSingleSummary(floorSingles, sm.median, sm.verifyPerSecAllCores),
      },
      // Open-loop rows (bench/ingest-latency.ts): single50, single80, batch50, batch80.
      latency,
      whereTheTimeGoes: {
        batchPhase: bm.median.whereTheTimeGoes,
        singlePhase: {
          seconds: round(sm.median.secs, 2),
          sequencerCpuSeconds: round(sm.median.sequencerCpu, 2),
          clientCpuSeconds: round(sm.median.clientCpu, 2),
        },
      },
    };
  } finally {
    http.close();
    raw.close();
    floorRaw?.close();
    for (const c of floorChild ? [child, floorChild] : [child]) {
      c.kill('SIGTERM');
      if (c.exitCode === null && c.signalCode === null) await new Promise((r) => c.once('exit', r));
    }
    await rm(dir, { recursive: true, force: true });
    await rm(floorDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
