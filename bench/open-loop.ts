// bench/open-loop.ts: an open-loop load generator for the ingest section's latency rows
// (docs/design.md §13): requests leave on a fixed arrival schedule (uniform, or Poisson from a
// seeded generator) whatever the answers do, so a slow server meets more requests, not fewer, and
// each request's latency is measured from its scheduled time (no coordinated omission). Requests
// belong to lanes (a device each): a lane has at most one request in flight, so a device's events
// reach the server in its order; a request whose lane is still busy at its time waits, is counted
// late, and is sent as soon as its lane frees: never skipped. Left out: the transport (`send`,
// bench/raw-http-client.ts in the bench) and the checks of an answer (`send` rejects on a bad one).
// Invariant: every request of the schedule is sent exactly once, in its lane's order, and every
// latency runs from the scheduled time to the answer.

import { pct, round } from './ingest-floor.ts';
import { prng } from '../executor/index.ts';

export type Arrivals = 'uniform' | 'poisson';

/** `count` arrival times in ms from the start, at `ratePerSec` on average, non-decreasing. */
export function arrivalSchedule(count: number, ratePerSec: number, arrivals: Arrivals = 'poisson', seed = 1): number[] {
  if (!(ratePerSec > 0) || !Number.isFinite(ratePerSec)) throw new RangeError(`rate ${ratePerSec} must be a positive number`);
  const mean = 1000 / ratePerSec;
  const rnd = prng(seed);
  const at: number[] = new Array(count);
  let t = 0;
  for (let i = 0; i < count; i++) {
    at[i] = t;
    t += arrivals === 'uniform' ? mean : -Math.log(1 - rnd()) * mean;
  }
  return at;
}

export interface OpenLoopRequest<T> {
  /** Its lane (a device): requests of one lane are sent one at a time, in the order given. */
  lane: number;
  payload: T;
}

export interface OpenLoopOptions<T> {
  /** Scheduled send times in ms from the start (arrivalSchedule), one per request. */
  schedule: readonly number[];
  requests: ReadonlyArray<OpenLoopRequest<T>>;
  /** Sends one request and resolves once it is answered (rejects when the answer is not an ack). */
  send(payload: T): Promise<void>;
  /** A send this many ms or more after its scheduled time counts as late. Default 1. */
  lateMs?: number;
  /** The clock (ms); default performance.now. */
  now?(): number;
}

export interface OpenLoopResult {
  requests: number;
  /** Wall time from the first scheduled send to the last answer. */
  seconds: number;
  /** The schedule's rate and the rate of answers over the whole run. */
  offeredPerSec: number;
  achievedPerSec: number;
  /** Requests sent lateMs or more after their time (waiting for their lane or for the timer). */
  late: number;
  lateShare: number;
  /** How far behind its schedule a send left: p99 and max, ms. */
  sendDelayP99Ms: number;
  sendDelayMaxMs: number;
  /** Scheduled time to answer, ms. */
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** Every latency, sorted (ms). */
  latencies: number[];
}

/** Run the schedule: resolves once every request is answered, rejects on the first failed one. */
export async function runOpenLoop<T>(o: OpenLoopOptions<T>): Promise<OpenLoopResult> {
  const n = o.requests.length;
  if (o.schedule.length !== n) throw new RangeError(`${o.schedule.length} send times for ${n} requests`);
  for (let i = 1; i < n; i++) if (o.schedule[i] < o.schedule[i - 1]) throw new RangeError('the schedule goes backwards');
  const now = o.now ?? (() => performance.now());
  const lateMs = o.lateMs ?? 1;
  const latencies: number[] = new Array(n);
  const delays: number[] = new Array(n);
  const waiting = new Map<number, number[]>(); // lane -> indexes due but not yet sent
  const busy = new Set<number>();
  let answered = 0;
  let next = 0;
  let late = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let t0 = 0;
  return new Promise<OpenLoopResult>((resolve, reject) => {
    let failed = false;
    const finish = () => {
      const seconds = (now() - t0) / 1000;
      const lat = latencies.sort((a, b) => a - b);
      const del = delays.sort((a, b) => a - b);
      const span = n > 1 ? (o.schedule[n - 1] - o.schedule[0]) / 1000 : 0;
      resolve({
        requests: n,
        seconds: round(seconds, 3),
        offeredPerSec: span > 0 ? Math.round((n - 1) / span) : 0,
        achievedPerSec: seconds > 0 ? Math.round(n / seconds) : 0,
        late,
        lateShare: n ? round(late / n, 4) : 0,
        sendDelayP99Ms: n ? round(pct(del, 99), 2) : 0,
        sendDelayMaxMs: n ? round(del[n - 1], 2) : 0,
        p50Ms: n ? round(pct(lat, 50), 2) : 0,
        p99Ms: n ? round(pct(lat, 99), 2) : 0,
        p999Ms: n ? round(pct(lat, 99.9), 2) : 0,
        maxMs: n ? round(lat[n - 1], 2) : 0,
        latencies: lat,
      });
    };
    const dispatch = (i: number) => {
      const lane = o.requests[i].lane;
      busy.add(lane);
      const sentAt = now();
      const delay = sentAt - t0 - o.schedule[i];
      delays[i] = Math.max(0, delay);
      if (delay >= lateMs) late++;
      o.send(o.requests[i].payload).then(
        () => {
          latencies[i] = now() - t0 - o.schedule[i];
          busy.delete(lane);
          answered++;
          const queued = waiting.get(lane);
          if (queued?.length) dispatch(queued.shift()!);
          if (answered === n) finish();
        },
        (e: unknown) => {
          if (failed) return;
          failed = true;
          if (timer) clearTimeout(timer);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    };
    const tick = () => {
      timer = undefined;
      if (failed) return;
      const elapsed = now() - t0;
      for (; next < n && o.schedule[next] <= elapsed; next++) {
        const lane = o.requests[next].lane;
        const queued = waiting.get(lane);
        if (busy.has(lane) || queued?.length) {
          if (queued) queued.push(next);
          else waiting.set(lane, [next]);
        } else dispatch(next);
      }
      if (next < n) timer = setTimeout(tick, Math.max(0, o.schedule[next] - (now() - t0)));
    };
    if (n === 0) {
      t0 = now();
      return finish();
    }
    t0 = now() - o.schedule[0];
    tick();
  });
}
