// bench/proc-cpu.ts: the scheduler counters of a real process (this one, on Linux) and the
// shares computed between two samples.

import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mainThreadSched, schedBetween } from './proc-cpu.ts';

describe('mainThreadSched', () => {
  it.runIf(process.platform === 'linux')('reads this process: time on a core grows with work', () => {
    const a = mainThreadSched(process.pid);
    expect(a).toBeDefined();
    let h = Buffer.alloc(32);
    for (let i = 0; i < 20_000; i++) h = createHash('sha256').update(h).digest();
    const b = mainThreadSched(process.pid)!;
    expect(b.runNs).toBeGreaterThan(a!.runNs);
    expect(b.waitNs).toBeGreaterThanOrEqual(a!.waitNs);
    expect(b.involuntary).toBeGreaterThanOrEqual(a!.involuntary);
  });

  it('is undefined for a process that does not exist', () => {
    expect(mainThreadSched(2 ** 31 - 1)).toBeUndefined();
  });
});

describe('schedBetween', () => {
  it('gives shares of the wall time and switches per unit', () => {
    const r = schedBetween({ runNs: 1e9, waitNs: 2e8, involuntary: 10 }, { runNs: 2.5e9, waitNs: 7e8, involuntary: 510 }, 2, 1000);
    expect(r).toEqual({ onCoreShare: 0.75, runQueueWaitShare: 0.25, involuntarySwitchesPerUnit: 0.5 });
  });
});
