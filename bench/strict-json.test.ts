// Smoke test of the strictJson bench section (the measured run is `npm run bench`): it runs on both
// texts and reports rates and a ratio consistent with them. Speed is measured, never asserted.
import { expect, it } from 'vitest';
import { run } from './strict-json.ts';

it('reports JSON.parse and strict rates on an ~800-byte event and a 1 MB line, and their ratio', async () => {
  const r = await run({ quick: true });
  for (const p of [r.event800, r.line1MB]) {
    expect(p.jsonParsePerSec).toBeGreaterThan(0);
    expect(p.strictPerSec).toBeGreaterThan(0);
    expect(p.ratio).toBeCloseTo(p.strictPerSec / p.jsonParsePerSec, 1);
    expect(p.spread[0]).toBeLessThanOrEqual(p.ratio);
    expect(p.spread[1]).toBeGreaterThanOrEqual(p.ratio);
  }
  expect(r.event800.bytes).toBeGreaterThan(700);
  expect(r.line1MB.bytes).toBeGreaterThan(1_000_000);
}, 60_000);
