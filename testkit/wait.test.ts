// testkit/wait.test.ts: the kit's waitFor and tmpDir do what tests rely on: a wait resolves with
// the probe's value, re-checks on each `changes()` notification without polling, names what it
// waited for when it times out, and ends with the probe's own error; a tmpDir is gone after its test;
// testkit/index.ts hands out those same definitions.

import { stat } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { changes, waitFor } from './wait.ts';
import { tmpDir } from './tmp.ts';
import * as kit from './index.ts';

describe('waitFor', () => {
  it('polls until the probe returns a value, and returns it', async () => {
    let n = 0;
    expect(await waitFor(() => (++n >= 3 ? n : undefined), { what: 'three', intervalMs: 1 })).toBe(3);
  });

  it('with wake, checks once per notification and never polls', async () => {
    const c = changes();
    let n = 0;
    let reads = 0;
    const p = waitFor(() => (reads++, n >= 2 || undefined), { what: 'n to reach 2', wake: c });
    await new Promise((r) => setImmediate(r));
    expect(reads).toBe(1);
    n = 1;
    c.notify();
    n = 2;
    c.notify();
    expect(await p).toBe(true);
    expect(reads).toBeLessThanOrEqual(3);
    expect(c.count()).toBe(2);
  });

  it('names what it waited for, with the detail, when it times out', async () => {
    await expect(waitFor(() => false, { what: 'the moon', timeoutMs: 30, detail: () => 'last line' })).rejects.toThrow(
      /timed out after 30 ms waiting for the moon:\nlast line/,
    );
  });

  it('ends with the error the probe throws', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('child exited');
        },
        { what: 'x' },
      ),
    ).rejects.toThrow('child exited');
  });
});

describe('tmpDir', () => {
  let made = '';
  it('makes a directory for this test', async () => {
    made = await tmpDir('cookwala-kit-');
    expect((await stat(made)).isDirectory()).toBe(true);
  });
  it('removed it when that test finished', async () => {
    await expect(stat(made)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('testkit/index.ts', () => {
  it('re-exports the one definition of each helper, not a copy', () => {
    expect(kit.waitFor).toBe(waitFor);
    expect(kit.tmpDir).toBe(tmpDir);
    expect(typeof kit.createManualClock().setTimeout).toBe('function');
  });
});
