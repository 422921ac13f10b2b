// testkit/clock.ts: a manual clock for the sequencer's injectable Clock (sequencer/clock.ts),
// so liveness and checkpoint timing is driven by the test, never by waiting.

export interface ManualClock {
  now(): number;
  set(ms: number): void;
  advance(ms: number): number;
}

export function createManualClock(startMs = Date.parse('2026-11-30T10:00:00.000Z')): ManualClock {
  let t = startMs;
  return {
    now: () => t,
    set: (ms) => void (t = ms),
    advance: (ms) => (t += ms),
  };
}
