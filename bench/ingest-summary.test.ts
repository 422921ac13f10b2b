// bench/ingest-summary.test.ts: the ingest section's pair summaries on known phases.
import { describe, expect, it } from 'vitest';
import type { Pair } from './pairs.ts';
import type { Phase } from './ingest-floor.ts';
import { clientsSummary, modeSummary } from './ingest-summary.ts';

function pairOf(limit: number, perSec: number, sequencerCpu: number, latencies: number[]): Pair<Phase> {
  const events = 1000;
  const p: Phase = { events, secs: events / perSec, perSec, clientCpu: 0.01, sequencerCpu, latencies };
  return { limit, figure: perSec, ratio: Math.round((perSec / limit) * 1000) / 1000, extra: p };
}

describe('ingest summaries', () => {
  const low = pairOf(20_000, 4_000, 0.3, [1, 2, 3, 40]);
  const mid = pairOf(20_000, 5_000, 0.25, [2, 3, 4, 50]);
  const high = pairOf(21_000, 6_300, 0.2, [3, 4, 5, 60]);

  it('modeSummary reports the median pair, the spreads and its latency', () => {
    const m = modeSummary([high, low, mid]);
    expect(m.eventsPerSec).toBe(5_000);
    expect(m.ratioToVerifyLimit).toBe(0.25);
    expect(m.ratioSpread).toEqual([0.2, 0.3]);
    expect(m.limitSpread).toBe(1.05);
    expect(m.limitsAgree).toBe(true);
    expect(m.p50Ms).toBe(3);
    expect(m.p99Ms).toBe(50);
    expect(m.allPairsP99Ms).toBe(60);
  });

  it('clientsSummary gives each concurrency its median pair and CPU per post, and flags disagreeing limits', () => {
    const wide = pairOf(30_000, 10_000, 0.15, [5, 6, 7, 80]); // the median is by ratio: 0.25, 0.3, 0.333
    const s = clientsSummary(
      new Map([
        [64, [low, mid, high]],
        [128, [mid, high, wide]],
      ]),
    );
    expect(Object.keys(s)).toEqual(['64', '128']);
    expect(s['64'].eventsPerSec).toBe(5_000);
    expect(s['64'].sequencerCpuUsPerPost).toBe(250);
    expect(s['64'].limitsAgree).toBe(true);
    expect(s['128'].eventsPerSec).toBe(6_300);
    expect(s['128'].sequencerCpuUsPerPost).toBe(200);
    expect(s['128'].limitsAgree).toBe(false);
  });
});
