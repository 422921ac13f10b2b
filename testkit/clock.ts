// testkit/clock.ts: the manual clock of every test, implementing the services' Clock
// (platform/clock.ts), so timestamps, liveness, checkpoints and an executor's timers are driven by
// the test, never by waiting. `advance(ms)` moves time forward and runs each timer that falls due,
// in due order (timers scheduled while advancing may run too); `set(ms)` jumps to a time without
// running any timer (a clock stepped by an operator, or backwards). Invariant: time moves only when
// the test says so.

import type { Clock } from '../platform/clock.ts';

export interface ManualClock extends Clock {
  set(ms: number): void;
  /** Move time forward, running every timer that falls due; returns the new time. */
  advance(ms: number): number;
  /** Timers scheduled and not yet run or cleared. */
  pending(): number;
}

export function createManualClock(startMs = Date.parse('2026-11-30T10:00:00.000Z')): ManualClock {
  let t = startMs;
  let next = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => t,
    set: (ms) => void (t = ms),
    setTimeout(fn, ms) {
      const id = next++;
      timers.set(id, { at: t + Math.max(0, ms), fn });
      return { id };
    },
    clearTimeout(h) {
      if (h) timers.delete(h.id);
    },
    pending: () => timers.size,
    advance(ms) {
      const end = t + ms;
      // Bounded: each round removes one timer; timers scheduled during the advance may run too.
      for (let guard = 0; guard < 1_000_000; guard++) {
        let due: [number, { at: number; fn: () => void }] | undefined;
        for (const e of timers) if (e[1].at <= end && (!due || e[1].at < due[1].at || (e[1].at === due[1].at && e[0] < due[0]))) due = e;
        if (!due) break;
        timers.delete(due[0]);
        t = Math.max(t, due[1].at);
        due[1].fn();
      }
      return (t = end);
    },
  };
}
