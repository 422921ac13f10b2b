// The sequencer's families in the Prometheus text exposition: per-log labels, reason codes,
// cumulative histogram buckets, escaping.
import { expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';

it('renders counters, gauges and cumulative histograms with a log label', async () => {
  const m = createMetrics();
  m.inc('cookwala_events_appended_total', { log: 'a/b' }, 3);
  m.inc('cookwala_events_appended_total', { log: 'a/b' });
  m.inc('cookwala_events_rejected_total', { log: 'a/b', code: 'bad_signature' });
  m.set('cookwala_checkpoint_seq', 42, { log: 'x"y' });
  m.observe('cookwala_batch_size', 3, { log: 'a/b' });
  m.observe('cookwala_batch_size', 100, { log: 'a/b' });
  const t = await m.render();
  expect(t).toContain('# TYPE cookwala_events_appended_total counter');
  expect(t).toContain('cookwala_events_appended_total{log="a/b"} 4');
  expect(t).toContain('cookwala_events_rejected_total{log="a/b",code="bad_signature"} 1');
  expect(t).toContain('cookwala_checkpoint_seq{log="x\\"y"} 42');
  expect(t).toContain('cookwala_batch_size_bucket{le="2",log="a/b"} 0');
  expect(t).toContain('cookwala_batch_size_bucket{le="5",log="a/b"} 1');
  expect(t).toContain('cookwala_batch_size_bucket{le="100",log="a/b"} 2');
  expect(t).toContain('cookwala_batch_size_bucket{le="+Inf",log="a/b"} 2');
  expect(t).toContain('cookwala_batch_size_sum{log="a/b"} 103');
  expect(t).toContain('cookwala_batch_size_count{log="a/b"} 2');
  expect(await m.value('cookwala_events_appended_total', { log: 'a/b' })).toBe(4);
  expect(() => m.observe('cookwala_checkpoint_seq', 1)).toThrow(TypeError);
});
