// The metrics facade over prom-client: families are declared by the caller; unknown names, a
// histogram used as a scalar (or the reverse) and undeclared labels are programmer errors; each
// registry is its own (two services in one process do not mix counts); process and event-loop
// metrics are merged into every scrape.
import { expect, it } from 'vitest';
import { createMetrics } from './metrics.ts';

const F = {
  a_total: { help: 'A.', type: 'counter' },
  b: { help: 'B.', type: 'gauge', labels: ['log'] },
  c_seconds: { help: 'C.', type: 'histogram', buckets: [0.1, 1] },
} as const;

it('renders its own families plus the process metrics, refuses names, kinds and labels it was not given', async () => {
  const m = createMetrics(F);
  const t0 = await m.render();
  expect(t0).toMatch(/^a_total 0$/m); // unlabelled families start at 0
  expect(t0).toMatch(/^# TYPE b gauge$/m);
  expect(t0).toMatch(/^process_cpu_user_seconds_total /m);
  expect(t0).toMatch(/^nodejs_eventloop_lag_seconds /m);
  m.observe('c_seconds', 0.5);
  m.set('b', 7, { log: 'x"y' });
  const t = await m.render();
  expect(t).toContain('c_seconds_bucket{le="0.1"} 0\nc_seconds_bucket{le="1"} 1\nc_seconds_bucket{le="+Inf"} 1');
  expect(t).toContain('b{log="x\\"y"} 7');
  expect(await m.value('b', { log: 'x"y' })).toBe(7);
  expect(await m.value('b', { log: 'other' })).toBe(0);
  expect(() => m.inc('nope' as 'a_total')).toThrow(TypeError);
  expect(() => m.inc('c_seconds')).toThrow(TypeError);
  expect(() => m.observe('b', 1)).toThrow(TypeError);
  expect(() => m.set('b', 1, { origin: 'x' })).toThrow(TypeError);
});

it('keeps two registries apart (no global default registry)', async () => {
  const a = createMetrics(F);
  const b = createMetrics(F);
  a.inc('a_total', {}, 3);
  expect(await a.value('a_total')).toBe(3);
  expect(await b.value('a_total')).toBe(0);
  expect(await b.render()).toMatch(/^a_total 0$/m);
  await expect(createMetrics(F, { processMetrics: false }).render()).resolves.not.toMatch(/process_cpu/);
});
