// The shared Prometheus registry: families are declared by the caller; unknown names and a
// histogram used as a scalar (or the reverse) are programmer errors; zeroWhenEmpty renders
// untouched counters and gauges as 0.
import { expect, it } from 'vitest';
import { createMetrics } from './prometheus.ts';

const F = {
  a_total: { help: 'A.', type: 'counter' },
  b: { help: 'B.', type: 'gauge' },
  c_seconds: { help: 'C.', type: 'histogram', buckets: [0.1, 1] },
} as const;

it('renders empty families by option, refuses names and kinds it was not given', () => {
  expect(createMetrics(F).render()).not.toMatch(/^a_total 0$/m);
  const z = createMetrics(F, { zeroWhenEmpty: true });
  expect(z.render()).toMatch(/^a_total 0$/m);
  expect(z.render()).toMatch(/^b 0$/m);
  expect(z.render()).not.toMatch(/^c_seconds 0$/m);
  z.observe('c_seconds', 0.5);
  expect(z.render()).toContain('c_seconds_bucket{le="0.1"} 0\nc_seconds_bucket{le="1"} 1\nc_seconds_bucket{le="+Inf"} 1');
  expect(() => z.inc('nope' as 'a_total')).toThrow(TypeError);
  expect(() => z.inc('c_seconds')).toThrow(TypeError);
  expect(() => z.observe('b', 1)).toThrow(TypeError);
});
