// bench/latency-only.test.ts: the COOKWALA_BENCH_LATENCY_ONLY knob of bench/ingest.ts (its header), read by bench/ingest-latency.ts:
// both maxima are read, the prefill defaults to none, and a missing or bad number is refused.
import { describe, expect, it } from 'vitest';
import { latencyOnly } from './ingest-latency.ts';

describe('COOKWALA_BENCH_LATENCY_ONLY', () => {
  it('is off when unset', () => {
    expect(latencyOnly(undefined)).toBeUndefined();
    expect(latencyOnly('')).toBeUndefined();
  });
  it('reads both maxima and the prefill', () => {
    expect(latencyOnly('single:5500,batch:110')).toEqual({ single: 5500, batch: 110, prefill: 0 });
    expect(latencyOnly('batch:55.5,single:3000,prefill:300000')).toEqual({ single: 3000, batch: 55.5, prefill: 300000 });
  });
  it('refuses a missing or bad number', () => {
    expect(() => latencyOnly('single:5500')).toThrow(/batch must be a positive number/);
    expect(() => latencyOnly('single:fast,batch:110')).toThrow(/single must be a positive number/);
    expect(() => latencyOnly('single:0,batch:110')).toThrow(/single must be a positive number/);
    expect(() => latencyOnly('single:5500,batch:110,prefill:-1')).toThrow(/prefill must be a number/);
  });
});
