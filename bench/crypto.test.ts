// Smoke test of the crypto bench section (the full run is `npm run bench`): it runs, measures
// both backends and all cores, and reports ratios consistent with its own numbers.
import { describe, expect, it } from 'vitest';
import { run } from './crypto.ts';

describe('bench crypto section (smoke)', () => {
  it('reports node and noble rates and the all-cores verify limit', async () => {
    const r = (await run({ quick: true })) as any;
    for (const b of [r.node, r.noble]) {
      expect(b.ed25519VerifyPerSec).toBeGreaterThan(0);
      expect(b.ed25519SignPerSec).toBeGreaterThan(0);
      expect(b.sha256MBps1KB).toBeGreaterThan(0);
    }
    expect(r.ratios.ed25519Verify).toBeCloseTo(r.node.ed25519VerifyPerSec / r.noble.ed25519VerifyPerSec, 1);
    expect(r.ed25519VerifyPerSecAllCores).toBeGreaterThan(0);
    expect(r.jcsPerSec).toBeGreaterThan(0);
  });
});
