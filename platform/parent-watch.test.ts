// The npm parent watch (parent-watch.ts): a command started by npm's script shell stops as on
// SIGTERM once its parent pid changes, once, and only when a SIGTERM handler is there to stop it
// cleanly; a process that only inherited npm's variables is not watched.
import { describe, expect, it } from 'vitest';
import { startedByNpm, watchParent } from './parent-watch.ts';

function harness(handler = true) {
  const s = { ppid: 100, handler, stops: 0, told: [] as Array<[number, number]> };
  const w = watchParent({
    ppid: () => s.ppid,
    handlesSigterm: () => s.handler,
    stop: () => void s.stops++,
    onParentGone: (was, now) => void s.told.push([was, now]),
    intervalMs: 60_000,
  });
  return { s, w };
}

describe('parent watch', () => {
  it('does nothing while the parent stays', () => {
    const { s, w } = harness();
    expect(w.check()).toBe(false);
    expect(w.check()).toBe(false);
    expect(s.stops).toBe(0);
    w.close();
  });

  it('stops once when the parent changes, naming both pids', () => {
    const { s, w } = harness();
    s.ppid = 1;
    expect(w.check()).toBe(true);
    expect(w.check()).toBe(false);
    s.ppid = 7;
    expect(w.check()).toBe(false);
    expect(s.stops).toBe(1);
    expect(s.told).toEqual([[100, 1]]);
  });

  it('waits for a SIGTERM handler: a command still starting is stopped once it has one', () => {
    const { s, w } = harness(false);
    s.ppid = 1;
    expect(w.check()).toBe(false);
    expect(s.stops).toBe(0);
    s.handler = true;
    expect(w.check()).toBe(true);
    expect(s.stops).toBe(1);
  });

  it("is on under npm's script shell (npx, npm run), off for anything else", () => {
    const npx = { npm_lifecycle_event: 'npx', npm_lifecycle_script: "'cookwala'" };
    expect(startedByNpm(npx, ['sh', '-c', "'cookwala' witness --data ./w1"])).toBe(true);
    const run = { npm_lifecycle_event: 'cookwala', npm_lifecycle_script: 'node bin/cookwala.js' };
    expect(startedByNpm(run, ['/bin/bash', '-c', 'node bin/cookwala.js sequencer'])).toBe(true);
    // A grandchild that inherited npm's variables (a test runner under `npm test`): its parent is no script shell.
    const test = { npm_lifecycle_event: 'test', npm_lifecycle_script: 'vitest run' };
    expect(startedByNpm(test, ['/usr/bin/node', '/x/vitest/dist/worker.js'])).toBe(false);
    expect(startedByNpm(test, ['sh', '-c', 'node bin/cookwala.js sequencer'])).toBe(false);
    // No /proc: npm's variable decides.
    expect(startedByNpm(npx, undefined)).toBe(true);
    expect(startedByNpm({}, undefined)).toBe(false);
    expect(startedByNpm({}, ['sh', '-c', "'cookwala' witness"])).toBe(false);
  });
});
