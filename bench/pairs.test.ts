// bench/pairs.ts: the median pair by ratio, the spreads, the limits-agree flag, and the strict
// interleaving of limit and figure runs.
import { describe, expect, it } from 'vitest';
import { measurePairs, summarisePairs } from './pairs.ts';

describe('interleaved pairs', () => {
  it('reports the median pair by ratio with the spread, and flags limits that disagree by more than 20%', () => {
    const r = summarisePairs([
      { limit: 100, figure: 70, ratio: 0.7 },
      { limit: 110, figure: 88, ratio: 0.8 },
      { limit: 105, figure: 63, ratio: 0.6 },
    ]);
    expect(r.median.limit).toBe(100);
    expect(r.ratio).toBe(0.7);
    expect(r.ratioSpread).toEqual([0.6, 0.8]);
    expect(r.limitSpread).toBe(1.1);
    expect(r.limitsAgree).toBe(true);
    const noisy = summarisePairs([
      { limit: 100, figure: 70, ratio: 0.7 },
      { limit: 130, figure: 70, ratio: 0.538 },
    ]);
    expect(noisy.limitsAgree).toBe(false);
    expect(noisy.median.ratio).toBe(0.538);
    expect(() => summarisePairs([])).toThrow(RangeError);
  });

  it('runs limit, figure, limit, figure… and keeps each figure with its own limit', async () => {
    const order: string[] = [];
    const r = await measurePairs(
      3,
      async (i) => (order.push(`L${i}`), 100 + i),
      async (i) => (order.push(`F${i}`), { value: 50 + i, extra: { i } }),
    );
    expect(order).toEqual(['L0', 'F0', 'L1', 'F1', 'L2', 'F2']);
    expect(r.pairs.map((p) => [p.limit, p.figure, p.ratio, p.extra?.i])).toEqual([
      [100, 50, 0.5, 0],
      [101, 51, 0.505, 1],
      [102, 52, 0.51, 2],
    ]);
    expect(r.median.extra).toEqual({ i: 1 });
  });
});
