// bench/witness-client.ts chainLogs, the send order of the witness and C2SP sections: each log's
// requests go in round order with one in flight per log, and no log waits for another's round;
// and inWindow, the rounds' window: items started in order, never more than the window at once.
import { describe, expect, it } from 'vitest';
import { chainLogs, inWindow } from './witness-client.ts';

describe('inWindow', () => {
  it('starts every item in order and keeps at most the window in flight, the window full while items wait', async () => {
    const started: number[] = [];
    let inFlight = 0;
    let most = 0;
    const waiting: Array<() => void> = [];
    let arrived!: () => void;
    let next = new Promise<void>((r) => (arrived = r));
    const done = inWindow([...Array(10).keys()], 3, (i) => {
      started.push(i);
      most = Math.max(most, ++inFlight);
      return new Promise<void>((resolve) => {
        waiting.push(() => {
          inFlight--;
          resolve();
        });
        arrived();
      });
    });
    // Answer the oldest one at a time: each answer lets exactly one more start.
    for (let answered = 0; answered < 10; answered++) {
      while (waiting.length < Math.min(3, 10 - answered)) {
        await next;
        next = new Promise<void>((r) => (arrived = r));
      }
      expect(inFlight).toBe(Math.min(3, 10 - answered));
      waiting.shift()!();
    }
    await done;
    expect(started).toEqual([...Array(10).keys()]);
    expect(most).toBe(3);
    await inWindow([], 3, () => Promise.reject(new Error('never called')));
  });
});

describe('chainLogs', () => {
  it('keeps one request in flight per log, in round order, with no barrier between logs', async () => {
    const rounds = [0, 1, 2].map((r) => [0, 1, 2].map((log) => ({ r, log })));
    const sent: string[] = [];
    const inFlight = new Map<number, number>();
    let answered = 0;
    let fastDone!: () => void;
    const fastAllDone = new Promise<void>((r) => (fastDone = r));
    /** Log 1's unanswered request: it is slow, answered only when the test says so. */
    let slow: { answer: () => void } | undefined;
    let slowArrived!: () => void;
    let nextSlow = new Promise<void>((r) => (slowArrived = r));
    const done = chainLogs(rounds, (req, log) => {
      expect(req.log).toBe(log);
      expect(inFlight.get(log) ?? 0).toBe(0);
      inFlight.set(log, 1);
      sent.push(`${log}:${req.r}`);
      return new Promise<void>((resolve) => {
        const answer = () => {
          inFlight.set(log, 0);
          answered++;
          if (answered === 6 && log !== 1) fastDone();
          resolve();
        };
        if (log === 1) {
          slow = { answer };
          slowArrived();
        } else queueMicrotask(answer);
      });
    });
    // Logs 0 and 2 run all their rounds while log 1's first request is still unanswered.
    await fastAllDone;
    expect(sent.filter((s) => s.startsWith('1:'))).toEqual(['1:0']);
    for (let i = 0; i < 3; i++) {
      await nextSlow;
      nextSlow = new Promise<void>((r) => (slowArrived = r));
      const s = slow!;
      slow = undefined;
      s.answer();
    }
    await done;
    expect(answered).toBe(9);
    for (const log of [0, 1, 2]) expect(sent.filter((s) => s.startsWith(`${log}:`))).toEqual([`${log}:0`, `${log}:1`, `${log}:2`]);
  });
});
