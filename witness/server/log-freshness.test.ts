// witness/server/log-freshness.test.ts: per-log freshness metrics stay bounded: per-log series up
// to the limit, aggregates only above it (with the per-log series gone), and the stale counts and
// the oldest time follow the recorded cosignatures; a restarted witness is seeded from its state.

import { describe, expect, it } from 'vitest';
import { createWitnessMetrics } from './metrics.ts';
import { createLogFreshness } from './log-freshness.ts';

const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const series = (text: string, family: string) => text.split('\n').filter((l) => l.startsWith(`${family}{`));

describe('log freshness metrics', () => {
  it('reports each log up to the limit, then only aggregates', async () => {
    const m = createWitnessMetrics();
    const f = createLogFreshness(3);
    f.record('a.example/log', 10, T0);
    f.record('b.example/log', 20, T0 + 7_200_000);
    f.flush(m, T0 + 7_200_000);
    expect(await m.value('cookwala_witness_log_seq', { log: 'a.example/log' })).toBe(10);
    expect(await m.value('cookwala_witness_log_cosigned_timestamp_seconds', { log: 'b.example/log' })).toBe((T0 + 7_200_000) / 1000);
    expect(await m.value('cookwala_witness_logs_oldest_cosigned_timestamp_seconds')).toBe(T0 / 1000);
    // a.example/log was last cosigned two hours ago: stale within an hour, not within a day.
    expect(await m.value('cookwala_witness_logs_stale', { within: '3600' })).toBe(1);
    expect(await m.value('cookwala_witness_logs_stale', { within: '86400' })).toBe(0);
    expect(await m.value('cookwala_witness_log_series_capped')).toBe(0);

    for (const l of ['c', 'd', 'e']) f.record(`${l}.example/log`, 1, T0 + 7_200_000);
    f.flush(m, T0 + 7_200_000);
    const text = await m.render();
    expect(series(text, 'cookwala_witness_log_seq')).toEqual([]);
    expect(series(text, 'cookwala_witness_log_cosigned_timestamp_seconds')).toEqual([]);
    expect(await m.value('cookwala_witness_log_series_capped')).toBe(1);
    expect(await m.value('cookwala_witness_logs_cosigned')).toBe(5);
    expect(await m.value('cookwala_witness_logs_stale', { within: '3600' })).toBe(1);
  });

  it('reports the latest cosignature of a log cosigned again', async () => {
    const m = createWitnessMetrics();
    const f = createLogFreshness(3);
    f.record('a.example/log', 10, T0);
    f.flush(m, T0);
    f.record('a.example/log', 13, T0 + 60_000);
    f.record('a.example/log', 16, T0 + 120_000);
    f.flush(m, T0 + 120_000);
    expect(await m.value('cookwala_witness_log_seq', { log: 'a.example/log' })).toBe(16);
    expect(await m.value('cookwala_witness_log_cosigned_timestamp_seconds', { log: 'a.example/log' })).toBe((T0 + 120_000) / 1000);
    expect(await m.value('cookwala_witness_logs_oldest_cosigned_timestamp_seconds')).toBe((T0 + 120_000) / 1000);
    expect(await m.value('cookwala_witness_logs_cosigned')).toBe(1);
  });

  it('keeps 40,000 logs to a fixed number of series', async () => {
    const m = createWitnessMetrics();
    const f = createLogFreshness();
    for (let i = 0; i < 40_000; i++) f.record(`log${i}.example`, i, T0 + i);
    f.flush(m, T0 + 90_000_000);
    const text = await m.render();
    const ours = text.split('\n').filter((l) => /^cookwala_witness_log/.test(l));
    expect(ours.length).toBeLessThan(20);
    expect(await m.value('cookwala_witness_logs_stale', { within: '86400' })).toBe(40_000);
  });

  it('is seeded once from the stored state; a newer cosignature wins', async () => {
    const m = createWitnessMetrics();
    const f = createLogFreshness();
    f.record('a.example/log', 12, T0 + 1000);
    expect(f.seeded).toBe(false);
    f.seed([
      { log: 'a.example/log', seq: 11, updatedAt: new Date(T0).toISOString() },
      { log: 'b.example/log', seq: 5, updatedAt: new Date(T0).toISOString() },
      { log: 'c.example/log', seq: 5, updatedAt: 'not a time' },
    ]);
    expect(f.seeded).toBe(true);
    f.flush(m, T0 + 1000);
    expect(await m.value('cookwala_witness_log_seq', { log: 'a.example/log' })).toBe(12);
    expect(await m.value('cookwala_witness_log_seq', { log: 'b.example/log' })).toBe(5);
    expect(await m.value('cookwala_witness_logs_cosigned')).toBe(2);
  });
});
