// Liveness unit: the threshold is inclusive, one declaration per silence, a failed declaration
// is retried on the next check, and a device that speaks during a declaration stays alive.
import { expect, it } from 'vitest';
import { createLiveness } from './liveness.ts';
import { createManualClock } from '../testkit/clock.ts';

it('declares once per silence and retries a failed declaration', async () => {
  const clock = createManualClock();
  const calls: string[] = [];
  let failNext = false;
  const l = createLiveness({
    clock,
    heartbeatIntervalMs: 100,
    lostAfterIntervals: 3,
    async onLost(log, source) {
      if (failNext) {
        failNext = false;
        throw new Error('append failed');
      }
      calls.push(`${log}|${source}`);
    },
    onError: () => undefined,
  });
  l.seen('L', 'd1');
  clock.advance(299);
  expect(await l.check()).toBe(0);
  clock.advance(1);
  failNext = true;
  expect(await l.check()).toBe(0);
  expect(l.list()[0].state).toBe('alive');
  expect(await l.check()).toBe(1);
  expect(await l.check()).toBe(0);
  expect(calls).toEqual(['L|d1']);
  expect(l.list()[0].state).toBe('lost');
  l.seen('L', 'd1');
  expect(l.list()[0].state).toBe('alive');
});

it('a device that speaks while its declaration is written stays alive', async () => {
  const clock = createManualClock();
  const l: ReturnType<typeof createLiveness> = createLiveness({
    clock,
    heartbeatIntervalMs: 10,
    lostAfterIntervals: 1,
    async onLost(_log, source) {
      l.seen('L', source);
    },
  });
  l.seen('L', 'd');
  clock.advance(10);
  expect(await l.check()).toBe(1);
  expect(l.list()[0].state).toBe('alive');
});
