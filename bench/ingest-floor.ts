// bench/ingest-floor.ts: the ingest section's figures against the floor (bench/floor-server.ts,
// docs/design.md §13): a timed phase as bench/ingest.ts measures it, and what the floor's phases say of
// ours, for batches (floorSummary: the floor's ratio, and what 0.85 of it leaves us) and for single posts
// (floorSingleSummary: what 6,000/s leaves per post). Pure arithmetic on measured phases, so
// bench/floor-server.test.ts checks it on known figures.

import { availableParallelism } from 'node:os';
import type { schedBetween } from './proc-cpu.ts';

export const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

export const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

export interface Phase {
  events: number;
  secs: number;
  perSec: number;
  clientCpu: number;
  sequencerCpu: number;
  /** Milliseconds of every request, sorted. */
  latencies: number[];
  whereTheTimeGoes?: Record<string, number>;
  /** The target's event loop over the phase (Linux scheduler counters, proc-cpu.ts). */
  eventLoop?: ReturnType<typeof schedBetween>;
}

/** CPU microseconds per event of the measured server and of this (client) process in one phase. */
const usPerEvent = (p: Phase) => ({ server: (1e6 * p.sequencerCpu) / p.events, client: (1e6 * p.clientCpu) / p.events });

/**
 * The floor's median phase by server CPU per event (its CPU per event `f`, and the spread over all
 * phases), our median pair's CPU per event `q`, and one signature's CPU on `cores` at `limit`.
 */
function floorAgainst(phases: Phase[], seqMedian: Phase, limit: number, cores: number) {
  const sorted = [...phases].sort((a, b) => usPerEvent(a).server - usPerEvent(b).server);
  const m = sorted[Math.floor(sorted.length / 2)];
  const spread = [round(usPerEvent(sorted[0]).server, 1), round(usPerEvent(sorted[sorted.length - 1]).server, 1)];
  return { m, f: usPerEvent(m), spread, q: usPerEvent(seqMedian), signature: (1e6 * cores) / limit };
}

/**
 * The floor's figures (median phase by server CPU per event) against the median batch pair: on a
 * machine the load saturates, events/s is about cores / (server + client CPU per event), so the
 * ratio to the verify limit is about signature / (signature + the rest), where signature is
 * cores / limit. `ratioBound` is that ratio for a sequencer whose only other work were the
 * floor's; `budgetUsPerEvent` is what the target (FLOOR_TARGET of the floor's ratio) leaves for
 * everything but the signature and the clients.
 */
export function floorSummary(phases: Phase[], seqMedian: Phase, limit: number, cores = availableParallelism()) {
  const { m, f, spread, q, signature } = floorAgainst(phases, seqMedian, limit, cores);
  const bound = signature / (signature + f.server + f.client);
  return {
    eventsPerSec: m.perSec,
    cpuUsPerEvent: round(f.server, 1),
    cpuUsPerEventSpread: spread,
    clientCpuUsPerEvent: round(f.client, 1),
    sequencerCpuUsPerEvent: round(q.server, 1),
    signatureCpuUsPerEvent: round(signature, 1),
    sequencerBesidesSignatureUsPerEvent: round(q.server - signature, 1),
    budgetUsPerEvent: round(signature / (FLOOR_TARGET * bound) - signature - q.client, 1),
    ratioBound: round(bound, 3),
  };
}

/** Ours against the floor: the share of the floor's ratio to the limit that ingest must reach (docs/design.md §13). */
export const FLOOR_TARGET = 0.85;

/** The target the ingest section reports for single posts (docs/design.md §13). */
export const SINGLE_TARGET_PER_SEC = 6_000;

/**
 * The floor under single posts (each client posting one event and awaiting its ack), against the
 * median single pair: the floor's figures (median phase by server CPU per post), what
 * SINGLE_TARGET_PER_SEC leaves per post for everything but the signature on these cores (its
 * clients included, as they share the cores), and `boundPostsPerSec`, what a sequencer whose only
 * other work were the floor's would reach with every core busy. Unlike batches, where the floor's
 * bound is near the 0.7 target, this says how far our own per-request work is from the floor's.
 */
export function floorSingleSummary(phases: Phase[], seqMedian: Phase, limit: number, cores = availableParallelism()) {
  const { m, f, spread, q, signature } = floorAgainst(phases, seqMedian, limit, cores);
  return {
    postsPerSec: m.perSec,
    p50Ms: round(pct(m.latencies, 50), 2),
    cpuUsPerPost: round(f.server, 1),
    cpuUsPerPostSpread: spread,
    clientCpuUsPerPost: round(f.client, 1),
    sequencerCpuUsPerPost: round(q.server, 1),
    sequencerBesidesSignatureUsPerPost: round(q.server - signature, 1),
    budgetUsPerPost: round((1e6 * cores) / SINGLE_TARGET_PER_SEC - signature - q.client, 1),
    boundPostsPerSec: Math.round((1e6 * cores) / (signature + f.server + f.client)),
  };
}
