// bench/ab-summary.ts: reading a figure out of a result, and the verdict of A/B rounds (only
// "better" or "worse" when every round agrees beyond the threshold).
import { describe, expect, it } from 'vitest';
import { HEADLINE, roundOf, summariseAb, valueAt, type AbRound } from './ab-summary.ts';

const r = (ratio: number): AbRound => ({ a: 1, b: ratio, ratio, coreA: 0, coreB: 1 });

describe('A/B summary', () => {
  it('reads numbers at dotted key paths and nothing else', () => {
    const res = { ingest: { batch: { ratioToVerifyLimit: 0.5 }, error: 'x', n: Number.NaN } };
    expect(valueAt(res, 'ingest.batch.ratioToVerifyLimit')).toBe(0.5);
    expect(valueAt(res, 'ingest.batch')).toBeUndefined();
    expect(valueAt(res, 'ingest.error')).toBeUndefined();
    expect(valueAt(res, 'ingest.n')).toBeUndefined();
    expect(valueAt(res, 'ingest.missing.deeper')).toBeUndefined();
    // an inherited name is not a member of the result
    expect(valueAt({}, 'constructor.length')).toBeUndefined();
    expect(valueAt(null, 'a')).toBeUndefined();
    for (const [section, h] of Object.entries(HEADLINE)) expect(h.key.startsWith(`${section}.`)).toBe(true);
  });

  it('builds a round from two results, and none when either lacks the figure', () => {
    const a = { c2sp: { witnessRatioToCryptoLimit: 0.5 } };
    const b = { c2sp: { witnessRatioToCryptoLimit: 0.55 } };
    expect(roundOf(a, b, HEADLINE.c2sp.key, 0, 1)).toEqual({ a: 0.5, b: 0.55, ratio: 1.1, coreA: 0, coreB: 1 });
    expect(roundOf(a, { c2sp: { error: 'failed' } }, HEADLINE.c2sp.key, 1, 0)).toBeUndefined();
    expect(roundOf({ c2sp: { witnessRatioToCryptoLimit: 0 } }, b, HEADLINE.c2sp.key, 1, 0)).toBeUndefined();
  });

  it('calls B better or worse only when every round agrees beyond the threshold', () => {
    const better = summariseAb([r(1.08), r(1.05), r(1.12), r(1.04)], true);
    expect(better.verdict).toBe('b better');
    expect(better.medianRatio).toBe(1.05);
    expect(better.ratioSpread).toEqual([1.04, 1.12]);
    expect(summariseAb([r(0.9), r(0.95)], true).verdict).toBe('b worse');
    // one round against the others: noise
    expect(summariseAb([r(1.08), r(1.05), r(0.99)], true).verdict).toBe('within noise');
    // every round up, but one by less than the threshold
    expect(summariseAb([r(1.08), r(1.02)], true).verdict).toBe('within noise');
    // a cost (lower is better): B/A below 1 is better
    expect(summariseAb([r(0.9), r(0.92)], false).verdict).toBe('b better');
    expect(summariseAb([r(1.1), r(1.2)], false).verdict).toBe('b worse');
    expect(summariseAb([r(1.02), r(1.015)], true, 0.01).verdict).toBe('b better');
    expect(() => summariseAb([], true)).toThrow(RangeError);
  });
});
