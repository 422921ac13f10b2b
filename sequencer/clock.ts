// sequencer/clock.ts: the injectable clock (STYLE: factories, no globals). Every time the sequencer
// writes (sequencedAt, signedAt, lastSeen, erasedAt) comes from deps.clock, so tests drive
// liveness and checkpoints with a manual clock (testkit/clock.ts) instead of waiting.

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
