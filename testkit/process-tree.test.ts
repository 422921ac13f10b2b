// testkit/process-tree.ts: the tree sampler counts a grandchild's memory, not only the child's, in
// both of its figures (the sampled sum and the sum of each process's own peak).
import { describe, expect, it } from 'vitest';
import { runMeasuredTree } from './process-tree.ts';

describe('runMeasuredTree', () => {
  it('sums the resident memory of a child and the grandchild it starts', async () => {
    // The child starts a grandchild that touches 120 MB and holds it; the child itself stays small.
    const grand = `const b = Buffer.alloc(120 * 2 ** 20, 1); setTimeout(() => console.log(b[5]), 600);`;
    const child = `const { spawnSync } = require('node:child_process'); spawnSync(process.execPath, ['-e', ${JSON.stringify(grand)}], { stdio: 'inherit' });`;
    const r = await runMeasuredTree(['-e', child]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe('1');
    expect(r.peakTreeRssMB).toBeGreaterThan(120);
    expect(r.peakTreeHwmMB).toBeGreaterThanOrEqual(r.peakTreeRssMB - 1);
  });
});
