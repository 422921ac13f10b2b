// bench/ingest-latency.ts: the ingest section's latency rows (docs/design.md §13): after the
// throughput pairs, the sequencer meets an open-loop load (bench/open-loop.ts: Poisson arrivals at a
// fixed rate, sent on schedule whatever the answers do, latency from each request's scheduled
// time) at 50% and 80% of the maximum rate measured in the same run, once with single structured
// posts (one lane per device, up to 256 devices) and once with batches of 100 (up to 64 devices;
// fewer when the rate gives fewer requests); each row
// reports p50/p99/p99.9 and how many sends left late. Every request's bytes are built before its
// row starts and every answer is checked as the throughput phases check it (201; a batch's 200 with
// every result 201). Each row also reports the load generator's own event-loop delay and GC
// pauses (a late generator counts against the latency, so it is shown beside it) and, given the
// sequencer's counters, its group commits, entries a commit and CPU a request over the row. Left out: the throughput itself (bench/ingest.ts) and the transport
// (bench/raw-http-client.ts).

import { arrivalSchedule, runOpenLoop, type OpenLoopRequest, type OpenLoopResult } from './open-loop.ts';
import type { RawHttpClient } from './raw-http-client.ts';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { watchGc } from './gc-watch.ts';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The shares of the maximum rate each mode is loaded at. */
export const LATENCY_LOADS = [50, 80] as const;

export interface LatencyInput {
  quick: boolean;
  raw: RawHttpClient;
  /** Requests/s the mode sustained at its best in this run (closed loop). */
  maxSinglePerSec: number;
  maxBatchPerSec: number;
  /** `perLane` request bodies for each of `lanes` devices, each lane's in its order, ready to send. */
  singles(lanes: number, perLane: number): Buffer[][];
  batches(lanes: number, perLane: number): Buffer[][];
  singleLanes: number;
  batchLanes: number;
  /** The sequencer's counters now (its /metrics and /proc), read before and after each row. */
  counters?(): Promise<SequencerCounters>;
}

export interface SequencerCounters {
  groupCommits: number;
  entries: number;
  syncedAppendSeconds: number;
  cpuSeconds: number;
}

export type LatencyRow = Omit<OpenLoopResult, 'latencies'> & {
  load: number;
  ratePerSec: number;
  lanes: number;
  /** The load generator's own event loop during the row: its delay p99 and max (ms), its GC pauses (ms). */
  generator: { loopDelayP99Ms: number; loopDelayMaxMs: number; gcPauseMs: number };
  /** What the sequencer did for the row: its group commits, entries a commit, mean synced append, CPU a request. */
  sequencer?: { groupCommits: number; entriesPerCommit: number; meanSyncedAppendMs: number; cpuUsPerRequest: number };
};

/** Round robin over lanes: request i is lane i mod L's (i div L)-th. */
function interleave(bodies: Buffer[][], count: number): Array<OpenLoopRequest<Buffer>> {
  const lanes = bodies.length;
  return Array.from({ length: count }, (_, i) => ({ lane: i % lanes, payload: bodies[i % lanes][Math.floor(i / lanes)] }));
}

async function row(
  load: number,
  max: number,
  seconds: number,
  lanes: number,
  build: (lanes: number, perLane: number) => Buffer[][],
  send: (b: Buffer) => Promise<void>,
  seed: number,
  tag: string,
  counters?: () => Promise<SequencerCounters>,
): Promise<LatencyRow> {
  const rate = (max * load) / 100;
  // A whole number of requests a lane: an event built and never sent would put the device's next
  // one out of order. Fewer lanes than requests at a low rate, so that a row keeps its duration.
  const used = Math.max(1, Math.min(lanes, Math.round(rate * seconds)));
  const perLane = Math.max(1, Math.round((rate * seconds) / used));
  const count = perLane * used;
  const requests = interleave(build(used, perLane), count);
  // COOKWALA_BENCH_LATENCY_TRACE=DIR: each request's send and answer on the wall clock (ms), to line
  // slow requests up with the sequencer's own stalls; one file a row.
  const traceDir = process.env.COOKWALA_BENCH_LATENCY_TRACE;
  const trace: Array<[number, number]> = [];
  const timed = traceDir
    ? async (b: Buffer) => {
        const t = performance.timeOrigin + performance.now();
        await send(b);
        trace.push([t, performance.timeOrigin + performance.now()]);
      }
    : send;
  const c0 = await counters?.();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const gc = watchGc();
  delay.enable();
  const r = await runOpenLoop({ schedule: arrivalSchedule(count, rate, 'poisson', seed), requests, send: timed });
  delay.disable();
  if (traceDir) await writeFile(join(traceDir, `${tag}.json`), JSON.stringify(trace));
  const g = gc.stop();
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const generator = {
    loopDelayP99Ms: ms(delay.percentile(99)),
    loopDelayMaxMs: ms(delay.max),
    gcPauseMs: g.scavengeMs + g.markCompactMs + g.otherMs,
  };
  const c1 = await counters?.();
  const sequencer =
    c0 && c1
      ? {
          groupCommits: c1.groupCommits - c0.groupCommits,
          entriesPerCommit: Math.round((10 * (c1.entries - c0.entries)) / Math.max(1, c1.groupCommits - c0.groupCommits)) / 10,
          meanSyncedAppendMs:
            Math.round((1e5 * (c1.syncedAppendSeconds - c0.syncedAppendSeconds)) / Math.max(1, c1.groupCommits - c0.groupCommits)) / 100,
          cpuUsPerRequest: Math.round((1e6 * (c1.cpuSeconds - c0.cpuSeconds)) / count),
        }
      : undefined;
  const { latencies: _all, ...rest } = r;
  return { load, ratePerSec: Math.round(rate), lanes: used, ...rest, generator, ...(sequencer ? { sequencer } : {}) };
}

/** `single50`, `single80`, `batch50`, `batch80`: one open-loop row each, in that order. */
export async function measureLatency(i: LatencyInput): Promise<Record<string, LatencyRow>> {
  const seconds = i.quick ? 1.5 : 6;
  const single = async (b: Buffer) => {
    const r = await i.raw.sendForBody(b);
    if (r.status !== 201)
      throw new Error(`open loop: a single post not acknowledged: ${r.status} ${r.body.toString('utf8').slice(0, 300)}`);
  };
  const batch = async (b: Buffer) => {
    const r = await i.raw.sendForBody(b);
    const text = r.body.toString('utf8');
    const ok = r.status === 200 && (JSON.parse(text).results as Array<{ status: number }>).every((x) => x.status === 201);
    if (!ok) throw new Error(`open loop: a batch not acknowledged: ${r.status} ${text.slice(0, 300)}`);
  };
  const out: Record<string, LatencyRow> = {};
  let seed = 1;
  for (const load of LATENCY_LOADS)
    out[`single${load}`] = await row(
      load,
      i.maxSinglePerSec,
      seconds,
      i.singleLanes,
      i.singles,
      single,
      seed++,
      `single${load}`,
      i.counters,
    );
  for (const load of LATENCY_LOADS)
    out[`batch${load}`] = await row(load, i.maxBatchPerSec, seconds, i.batchLanes, i.batches, batch, seed++, `batch${load}`, i.counters);
  return out;
}

/**
 * `single:5500,batch:110[,prefill:300000]`: the maximum single posts/s and batches/s the latency
 * rows take their 50% and 80% from, and how many events are written first (default none), instead
 * of the throughput pairs. Undefined when the knob is not set.
 */
export function latencyOnly(text: string | undefined): { single: number; batch: number; prefill: number } | undefined {
  if (!text) return undefined;
  const kv = new Map(text.split(',').map((p) => p.split(':') as [string, string]));
  const num = (k: string, positive: boolean, d?: number) => {
    const v = kv.has(k) ? Number(kv.get(k)) : d;
    if (v === undefined || !Number.isFinite(v) || v < 0 || (positive && v === 0))
      throw new RangeError(`COOKWALA_BENCH_LATENCY_ONLY: ${k} must be a ${positive ? 'positive ' : ''}number`);
    return v;
  };
  return { single: num('single', true), batch: num('batch', true), prefill: num('prefill', false, 0) };
}
