// bench/ingest-latency.ts: the ingest section's latency rows (docs/design.md §13): after the
// throughput pairs, the sequencer meets an open-loop load (bench/open-loop.ts: Poisson arrivals at a
// fixed rate, sent on schedule whatever the answers do, latency from each request's scheduled
// time) at 50% and 80% of the maximum rate measured in the same run, once with single structured
// posts (one lane per device, up to 256 devices) and once with batches of 100 (up to 64 devices;
// fewer when the rate gives fewer requests); each row
// reports p50/p99/p99.9 and how many sends left late. Every request's bytes are built before its
// row starts and every answer is checked as the throughput phases check it (201; a batch's 200 with
// every result 201). Left out: the throughput itself (bench/ingest.ts) and the transport
// (bench/raw-http-client.ts).

import { arrivalSchedule, runOpenLoop, type OpenLoopRequest, type OpenLoopResult } from './open-loop.ts';
import type { RawHttpClient } from './raw-http-client.ts';

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
}

export type LatencyRow = Omit<OpenLoopResult, 'latencies'> & { load: number; ratePerSec: number; lanes: number };

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
): Promise<LatencyRow> {
  const rate = (max * load) / 100;
  // A whole number of requests a lane: an event built and never sent would put the device's next
  // one out of order. Fewer lanes than requests at a low rate, so that a row keeps its duration.
  const used = Math.max(1, Math.min(lanes, Math.round(rate * seconds)));
  const perLane = Math.max(1, Math.round((rate * seconds) / used));
  const count = perLane * used;
  const requests = interleave(build(used, perLane), count);
  const r = await runOpenLoop({ schedule: arrivalSchedule(count, rate, 'poisson', seed), requests, send });
  const { latencies: _all, ...rest } = r;
  return { load, ratePerSec: Math.round(rate), lanes: used, ...rest };
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
    out[`single${load}`] = await row(load, i.maxSinglePerSec, seconds, i.singleLanes, i.singles, single, seed++);
  for (const load of LATENCY_LOADS)
    out[`batch${load}`] = await row(load, i.maxBatchPerSec, seconds, i.batchLanes, i.batches, batch, seed++);
  return out;
}
