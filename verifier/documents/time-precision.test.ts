// Time precision (time-bounds.ts, Core §8 open datasets): truncating signedAt and sequencedAt to
// the day keeps every honest event inside the window once the bounds are rounded up to whole days
// (a property over times and bounds, with the midnight edges as fixed cases); the rounded bounds
// are no wider than needed (one day less refuses a case); checkTimePrecision refuses any time
// that is not a UTC midnight with time_too_precise; a descriptor built with timePrecision "day"
// declares the rounded bounds (its createdAt stays exact: the sequencer key signs it), and verifies.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSigner, generateSecretKey, keyRecordOf } from '../signing/signature.ts';
import { buildLogDescriptor, verifyLogDescriptor } from './log-descriptor.ts';
import {
  boundsForPrecision,
  checkSignedAt,
  checkTimePrecision,
  DAY_MS,
  DEFAULT_TIME_BOUNDS,
  truncateTime,
  type TimeBounds,
} from './time-bounds.ts';

const T0 = Date.UTC(2026, 0, 1);

function holdsAfterTruncation(s: number, a: number, b: TimeBounds): boolean {
  const wide = boundsForPrecision(b, 'day');
  return checkSignedAt(truncateTime(s, 'day'), truncateTime(a, 'day'), wide).ok;
}

describe('day precision', () => {
  it('an event inside the window stays inside the rounded window after both times go to the day', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 * DAY_MS }),
        fc.integer({ min: 0, max: DAY_MS }),
        fc.integer({ min: 0, max: 30 * DAY_MS }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        (aOff, skew, delay, where) => {
          const a = T0 + aOff;
          // signedAt anywhere in [a - delay, a + skew]
          const s = Math.round(where >= 0 ? a + where * skew : a + where * delay);
          return holdsAfterTruncation(s, a, { maxClockSkewMs: skew, maxDeliveryDelayMs: delay });
        },
      ),
      { numRuns: 2000 },
    );
  });
  it('fixed cases: the midnight edges', () => {
    const b = DEFAULT_TIME_BOUNDS; // 5 min skew, 72 h delay
    // A device 5 min ahead signs just after midnight while the sequencer is just before it.
    expect(holdsAfterTruncation(T0 + DAY_MS + 60_000, T0 + DAY_MS - 240_000, b)).toBe(true);
    // Delivered 72 h late, signed just before a midnight, arriving just before another.
    expect(holdsAfterTruncation(T0 + DAY_MS - 1, T0 + 4 * DAY_MS - 1, b)).toBe(true);
    expect(boundsForPrecision(b, 'day')).toEqual({ maxClockSkewMs: DAY_MS, maxDeliveryDelayMs: 3 * DAY_MS });
    // ...and a day less would refuse the first case: the rounding is as tight as it can be.
    expect(checkSignedAt(T0 + DAY_MS, T0, { maxClockSkewMs: DAY_MS - 1, maxDeliveryDelayMs: 3 * DAY_MS }).ok).toBe(false);
    // A time outside the honest window is still refused after rounding (5 days late).
    expect(holdsAfterTruncation(T0, T0 + 5 * DAY_MS, b)).toBe(false);
    expect(boundsForPrecision(b, 'ms')).toEqual(b);
  });
  it('checkTimePrecision: only UTC midnights pass a day log', () => {
    expect(checkTimePrecision('2026-11-30T00:00:00.000Z', 'day', 'x').ok).toBe(true);
    for (const t of ['2026-11-30T00:00:00.001Z', '2026-11-30T10:11:12.345Z', '2026-11-30T00:00:00+01:00', 'not a time']) {
      const r = checkTimePrecision(t, 'day', 'signedAt');
      expect(!r.ok && r.code).toBe('time_too_precise');
    }
    expect(checkTimePrecision('2026-11-30T10:11:12.345Z', 'ms', 'x').ok).toBe(true);
  });
  it('a day descriptor declares the rounded bounds, and verifies', () => {
    const signer = createSigner(generateSecretKey('EdDSA', 'seq-key', undefined, new Uint8Array(32).fill(7)));
    const key = keyRecordOf(signer, { owner: 'cookwala:sequencer', role: 'sequencer', validFrom: '2026-01-01T00:00:00.000Z' });
    const d = buildLogDescriptor(
      {
        log: 'kitchen.test/open',
        mode: 'full',
        createdAt: '2026-11-30T10:11:12.345Z',
        timeBounds: DEFAULT_TIME_BOUNDS,
        timePrecision: 'day',
      },
      signer,
    );
    expect(d).toMatchObject({
      createdAt: '2026-11-30T10:11:12.345Z',
      timePrecision: 'day',
      timeBounds: { maxClockSkewMs: DAY_MS, maxDeliveryDelayMs: 3 * DAY_MS },
    });
    expect(verifyLogDescriptor(d, key).ok).toBe(true);
    expect(
      buildLogDescriptor(
        { log: 'kitchen.test/ms', mode: 'full', createdAt: '2026-11-30T10:11:12.345Z', timeBounds: DEFAULT_TIME_BOUNDS },
        signer,
      ),
    ).not.toHaveProperty('timePrecision');
  });
});
