// The time window (time-bounds.ts) as a pure rule: both bounds inclusive, the revoked-key delivery
// deadline, the heartbeat's two-sided window, NaN never passing; durations parsed and printed;
// and the descriptor's `timeBounds` member built, signed, read strictly and refused when malformed.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkHeartbeatTime,
  checkSignedAt,
  DEFAULT_TIME_BOUNDS,
  formatDuration,
  isTimeBounds,
  MAX_CLOCK_SKEW_LIMIT_MS,
  MAX_DELIVERY_DELAY_LIMIT_MS,
  parseDuration,
} from './time-bounds.ts';
import { buildLogDescriptor, verifyLogDescriptor } from './log-descriptor.ts';
import { readDocument } from './read.ts';
import { signDocument } from '../signing/signature.ts';
import { at, keyFor, LOG, signerFor } from '../../testkit/verifier-fixtures.ts';

const B = { maxClockSkewMs: 1_000, maxDeliveryDelayMs: 60_000 };
const NOW = Date.parse('2026-11-30T10:00:00.000Z');

describe('checkSignedAt', () => {
  it('accepts signedAt within [at − maxDeliveryDelay, at + maxClockSkew], bounds included', () => {
    for (const d of [-60_000, -1, 0, 1, 1_000]) expect(checkSignedAt(NOW + d, NOW, B).ok, String(d)).toBe(true);
  });
  it('signed_in_future beyond the skew, delivery_too_late beyond the delay, with the bound named', () => {
    expect(checkSignedAt(NOW + 1_001, NOW, B)).toMatchObject({ ok: false, code: 'signed_in_future', bound: '2026-11-30T10:00:01.000Z' });
    expect(checkSignedAt(Date.parse('2999-01-01T00:00:00.000Z'), NOW, B)).toMatchObject({ ok: false, code: 'signed_in_future' });
    expect(checkSignedAt(NOW - 60_001, NOW, B)).toMatchObject({ ok: false, code: 'delivery_too_late', bound: '2026-11-30T09:59:00.000Z' });
  });
  it('a revoked key: key_revoked once the arrival is more than maxDeliveryDelay after revokedAt', () => {
    const revokedAt = NOW - 10_000;
    expect(checkSignedAt(revokedAt - 5, revokedAt + 59_995, B, revokedAt).ok).toBe(true);
    expect(checkSignedAt(revokedAt - 5, revokedAt + 60_001, B, revokedAt)).toMatchObject({ ok: false, code: 'key_revoked' });
    // a revocation that lies ahead does not shorten anything
    expect(checkSignedAt(NOW, NOW, B, NOW + 3_600_000).ok).toBe(true);
  });
  it('NaN times never pass', () => {
    expect(checkSignedAt(NaN, NOW, B)).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(checkSignedAt(NOW, NaN, B)).toMatchObject({ ok: false, code: 'invalid_document' });
  });
  it('property: ok exactly when −maxDeliveryDelay ≤ signedAt − at ≤ maxClockSkew', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -200_000, max: 200_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (d, skew, delay) => {
          const b = { maxClockSkewMs: skew, maxDeliveryDelayMs: delay };
          expect(checkSignedAt(NOW + d, NOW, b).ok).toBe(d <= skew && -d <= delay);
        },
      ),
    );
  });
});

describe('checkHeartbeatTime', () => {
  it('a heartbeat is liveness now: within maxClockSkew on both sides', () => {
    expect(checkHeartbeatTime(NOW - 1_000, NOW, B).ok).toBe(true);
    expect(checkHeartbeatTime(NOW + 1_000, NOW, B).ok).toBe(true);
    expect(checkHeartbeatTime(NOW - 1_001, NOW, B)).toMatchObject({ ok: false, code: 'delivery_too_late' });
    expect(checkHeartbeatTime(NOW + 1_001, NOW, B)).toMatchObject({ ok: false, code: 'signed_in_future' });
  });
});

describe('durations', () => {
  it('parses ms, s, m, h, d (bare numbers are ms) and refuses anything else', () => {
    expect(parseDuration('300000')).toEqual({ ok: true, value: 300_000 });
    expect(parseDuration('5m')).toEqual({ ok: true, value: 300_000 });
    expect(parseDuration('72h')).toEqual({ ok: true, value: 259_200_000 });
    expect(parseDuration('3d')).toEqual({ ok: true, value: 259_200_000 });
    expect(parseDuration('10s')).toEqual({ ok: true, value: 10_000 });
    expect(parseDuration('7ms')).toEqual({ ok: true, value: 7 });
    for (const bad of ['', '-1', '1.5h', '5 m', '5w', 'h', '1e3', '9'.repeat(16), '999999999999999d'])
      expect(parseDuration(bad).ok, bad).toBe(false);
  });
  it('prints the way the docs and reports say them', () => {
    expect(formatDuration(DEFAULT_TIME_BOUNDS.maxClockSkewMs)).toBe('5m');
    expect(formatDuration(DEFAULT_TIME_BOUNDS.maxDeliveryDelayMs)).toBe('3d');
    expect(formatDuration(90_061_001)).toBe('1d 1h 1m 1s 1ms');
    expect(formatDuration(0)).toBe('0ms');
  });
});

describe('the descriptor declares the bounds', () => {
  const sequencer = signerFor('EdDSA', 'seq-1', 41);
  const seqKey = keyFor(sequencer, 'sequencer', 'kitchen.example.org');

  it('builds, signs and reads a descriptor with timeBounds; the member is covered by the hash', () => {
    const d = buildLogDescriptor({ log: LOG, mode: 'full', createdAt: at(0), timeBounds: DEFAULT_TIME_BOUNDS }, sequencer);
    expect(d.timeBounds).toEqual({ maxClockSkewMs: 300_000, maxDeliveryDelayMs: 259_200_000 });
    expect(readDocument('Log', d).ok).toBe(true);
    expect(verifyLogDescriptor(d, seqKey).ok).toBe(true);
    expect(verifyLogDescriptor({ ...d, timeBounds: { ...d.timeBounds!, maxDeliveryDelayMs: 31_536_000_000 } }, seqKey)).toMatchObject({
      ok: false,
      code: 'hash_mismatch',
    });
    const { timeBounds: _t, ...without } = d;
    expect(verifyLogDescriptor(without, seqKey)).toMatchObject({ ok: false, code: 'hash_mismatch' });
  });

  it('an old descriptor without timeBounds still reads and verifies', () => {
    const d = buildLogDescriptor({ log: LOG, mode: 'full', createdAt: at(0) }, sequencer);
    expect('timeBounds' in d).toBe(false);
    expect(readDocument('Log', d).ok).toBe(true);
  });

  it('refuses malformed bounds when reading (and building)', () => {
    const base = buildLogDescriptor({ log: LOG, mode: 'full', createdAt: at(0) }, sequencer);
    const { hash: _h, signature: _s, ...body } = base;
    const bad: Array<[unknown, string]> = [
      [{ maxClockSkewMs: -1, maxDeliveryDelayMs: 1 }, 'invalid_document'],
      [{ maxClockSkewMs: 1.5, maxDeliveryDelayMs: 1 }, 'invalid_document'],
      [{ maxClockSkewMs: '5m', maxDeliveryDelayMs: 1 }, 'invalid_document'],
      [{ maxClockSkewMs: MAX_CLOCK_SKEW_LIMIT_MS + 1, maxDeliveryDelayMs: 1 }, 'invalid_document'],
      [{ maxClockSkewMs: 1, maxDeliveryDelayMs: MAX_DELIVERY_DELAY_LIMIT_MS + 1 }, 'invalid_document'],
      [{ maxClockSkewMs: 1 }, 'invalid_document'],
      [{ maxClockSkewMs: 1, maxDeliveryDelayMs: 1, extra: 1 }, 'unknown_field'],
      [[1, 2], 'invalid_document'],
    ];
    for (const [tb, code] of bad) {
      const doc = signDocument({ ...body, timeBounds: tb } as never, sequencer, at(0));
      expect(readDocument('Log', doc), JSON.stringify(tb)).toMatchObject({ ok: false, code });
      expect(isTimeBounds(tb)).toBe(false);
      expect(() => buildLogDescriptor({ log: LOG, mode: 'full', createdAt: at(0), timeBounds: tb as never }, sequencer)).toThrow(TypeError);
    }
    const vendor = signDocument(
      { ...body, timeBounds: { maxClockSkewMs: 1, maxDeliveryDelayMs: 2, 'x-acme-note': 'ok' } } as never,
      sequencer,
      at(0),
    );
    expect(readDocument('Log', vendor).ok).toBe(true);
  });
});
