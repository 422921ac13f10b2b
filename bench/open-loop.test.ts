// bench/open-loop.ts keeps its schedule: on a fake clock each request leaves exactly at its
// scheduled time when its lane is free, a busy lane delays (never skips) its requests and they
// count late with latency from their scheduled time, lanes keep their order, a refused answer
// fails the run; on the real clock nothing leaves before its time. The schedules: uniform spacing
// exact, Poisson at its mean rate and the same for a seed.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { arrivalSchedule, runOpenLoop, type OpenLoopRequest } from './open-loop.ts';

afterEach(() => {
  vi.useRealTimers();
});

/** A server answering each request after `ms` of the (fake or real) clock, recording send order. */
function server(ms: number, now: () => number) {
  const sent: Array<{ lane: number; k: number; at: number }> = [];
  return {
    sent,
    send: (p: { lane: number; k: number }) =>
      new Promise<void>((resolve) => {
        sent.push({ ...p, at: now() });
        setTimeout(resolve, ms);
      }),
  };
}

function lanes(n: number, count: number): Array<OpenLoopRequest<{ lane: number; k: number }>> {
  return Array.from({ length: count }, (_, i) => ({ lane: i % n, payload: { lane: i % n, k: Math.floor(i / n) } }));
}

describe('arrival schedules', () => {
  it('uniform arrivals are evenly spaced at the rate', () => {
    const s = arrivalSchedule(1000, 2000, 'uniform');
    for (let i = 0; i < s.length; i++) expect(s[i]).toBeCloseTo(i * 0.5, 9);
  });

  it('Poisson arrivals keep their mean rate, never go backwards, and repeat for a seed', () => {
    const s = arrivalSchedule(20_000, 5000, 'poisson', 7);
    const rate = (s.length - 1) / (s[s.length - 1] / 1000);
    expect(rate).toBeGreaterThan(5000 * 0.95);
    expect(rate).toBeLessThan(5000 * 1.05);
    for (let i = 1; i < s.length; i++) expect(s[i]).toBeGreaterThanOrEqual(s[i - 1]);
    expect(arrivalSchedule(100, 5000, 'poisson', 7)).toEqual(s.slice(0, 100));
    expect(arrivalSchedule(100, 5000, 'poisson', 8)).not.toEqual(s.slice(0, 100));
    expect(() => arrivalSchedule(10, 0)).toThrow(RangeError);
  });
});

describe('runOpenLoop on a fake clock', () => {
  it('sends each request at its time when its lane is free: none late, latency the service time', async () => {
    vi.useFakeTimers();
    const now = () => Date.now();
    const srv = server(3, now);
    const schedule = arrivalSchedule(100, 1000, 'uniform');
    const run = runOpenLoop({ schedule, requests: lanes(10, 100), send: srv.send, now });
    await vi.runAllTimersAsync();
    const r = await run;
    expect(srv.sent).toHaveLength(100);
    const start = srv.sent[0].at;
    srv.sent.forEach((s, i) => expect(s.at - start).toBe(schedule[i]));
    expect(r.late).toBe(0);
    expect(r.sendDelayMaxMs).toBe(0);
    expect(r.latencies.every((l) => l === 3)).toBe(true);
    expect(r.offeredPerSec).toBe(1000);
  });

  it('a busy lane delays its requests, never skips one, counts them late and measures from their scheduled time', async () => {
    vi.useFakeTimers();
    const now = () => Date.now();
    const srv = server(10, now); // each request takes 10 ms; each lane gets one every 2 ms
    const n = 40;
    const run = runOpenLoop({ schedule: arrivalSchedule(n, 1000, 'uniform'), requests: lanes(2, n), send: srv.send, now });
    await vi.runAllTimersAsync();
    const r = await run;
    expect(srv.sent).toHaveLength(n);
    for (const lane of [0, 1]) expect(srv.sent.filter((s) => s.lane === lane).map((s) => s.k)).toEqual([...Array(n / 2).keys()]);
    // Lane request k is scheduled at 2k + lane and answered at lane + 10 (k + 1): latency 10 + 8k.
    const want = [...Array(n / 2).keys()].flatMap((k) => [10 + 8 * k, 10 + 8 * k]).sort((a, b) => a - b);
    expect(r.latencies).toEqual(want);
    expect(r.late).toBe(n - 2); // all but each lane's first
    expect(r.maxMs).toBe(10 + 8 * (n / 2 - 1));
    expect(r.achievedPerSec).toBeLessThan(r.offeredPerSec);
  });

  it('a refused answer fails the run', async () => {
    vi.useFakeTimers();
    const run = runOpenLoop({
      schedule: arrivalSchedule(10, 1000, 'uniform'),
      requests: lanes(2, 10),
      send: (p) => (p.k === 2 ? Promise.reject(new Error('not acknowledged: 409')) : Promise.resolve()),
      now: () => Date.now(),
    });
    const caught = run.catch((e: Error) => e);
    await vi.runAllTimersAsync();
    expect(((await caught) as Error).message).toBe('not acknowledged: 409');
  });
});

describe('runOpenLoop on the real clock', () => {
  it('sends nothing before its time and takes at least the schedule', async () => {
    const t = () => performance.now();
    const srv = server(1, t);
    const schedule = arrivalSchedule(200, 2000, 'poisson', 3);
    const before = t();
    const r = await runOpenLoop({ schedule, requests: lanes(20, 200), send: srv.send, now: t });
    expect(srv.sent).toHaveLength(200);
    srv.sent.forEach((s, i) => expect(s.at - before).toBeGreaterThanOrEqual(schedule[i] - schedule[0]));
    expect(r.seconds * 1000).toBeGreaterThanOrEqual(schedule[199] - schedule[0]);
    expect(r.latencies).toHaveLength(200);
    expect(r.latencies.every((l) => l >= 0)).toBe(true);
  });
});
