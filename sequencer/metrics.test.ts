// Prometheus text exposition: counters with labels, cumulative histogram buckets, escaping.
import { expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';

it('renders counters, gauges and cumulative histograms', () => {
  const m = createMetrics();
  m.inc('cookwala_events_appended_total', { log: 'a/b' }, 3);
  m.inc('cookwala_events_appended_total', { log: 'a/b' });
  m.inc('cookwala_events_rejected_total', { code: 'bad_signature' });
  m.set('cookwala_checkpoint_seq', 42, { log: 'x"y' });
  m.observe('cookwala_batch_size', 3, { log: 'a/b' });
  m.observe('cookwala_batch_size', 100, { log: 'a/b' });
  const t = m.render();
  expect(t).toContain('# TYPE cookwala_events_appended_total counter');
  expect(t).toContain('cookwala_events_appended_total{log="a/b"} 4');
  expect(t).toContain('cookwala_events_rejected_total{code="bad_signature"} 1');
  expect(t).toContain('cookwala_checkpoint_seq{log="x\\"y"} 42');
  expect(t).toContain('cookwala_batch_size_bucket{log="a/b",le="2"} 0');
  expect(t).toContain('cookwala_batch_size_bucket{log="a/b",le="5"} 1');
  expect(t).toContain('cookwala_batch_size_bucket{log="a/b",le="100"} 2');
  expect(t).toContain('cookwala_batch_size_bucket{log="a/b",le="+Inf"} 2');
  expect(t).toContain('cookwala_batch_size_sum{log="a/b"} 103');
  expect(t).toContain('cookwala_batch_size_count{log="a/b"} 2');
  expect(m.value('cookwala_events_appended_total', { log: 'a/b' })).toBe(4);
  expect(() => m.observe('cookwala_checkpoint_seq', 1)).toThrow(TypeError);
});
