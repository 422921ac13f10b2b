// verifier/documents/time-bounds.ts: the log's time window (docs/design.md §4, §5; Core §5 "signedAt is covered so
// revocation can be checked against it"). The sequencer is the log's clock: a device's signedAt
// must lie within [sequencedAt − maxDeliveryDelay, sequencedAt + maxClockSkew], because whoever
// holds a key chooses signedAt. The same rule runs at ingest (against the time the entry gets)
// and offline (against the entry's sequencedAt), so an auditor checks exactly what the sequencer
// enforced; the log descriptor declares both bounds (`timeBounds`, integers in milliseconds). A
// revoked key's events signed before revokedAt are accepted only while they arrive within
// maxDeliveryDelay of the revocation (key_revoked after that), so a stolen key stops working
// maxDeliveryDelay after its revocation whatever signedAt it claims. A heartbeat reports liveness
// now, and is never queued by a device, so it gets maxClockSkew on both sides. Pure; times are
// milliseconds since the epoch. Left out: where the times come from (sequencer/ingest.ts,
// sequencer/committer.ts, verifier/bundle/entries.ts). Invariant: a NaN time never passes.

import { fail, ok, type Result } from '../errors.ts';

export interface TimeBounds {
  /** How far signedAt may lie AFTER the sequencer's time (device clocks run ahead). */
  maxClockSkewMs: number;
  /** How far signedAt may lie BEFORE the sequencer's time (an offline device's outbox delivers late). */
  maxDeliveryDelayMs: number;
}

/** Five minutes: the clock skew Kerberos (RFC 4120 §1.6) tolerates by default; NTP keeps clocks far closer. */
export const DEFAULT_MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** 72 hours: a device offline over a long weekend still delivers its outbox. */
export const DEFAULT_MAX_DELIVERY_DELAY_MS = 72 * 3_600_000;
export const DEFAULT_TIME_BOUNDS: Readonly<TimeBounds> = Object.freeze({
  maxClockSkewMs: DEFAULT_MAX_CLOCK_SKEW_MS,
  maxDeliveryDelayMs: DEFAULT_MAX_DELIVERY_DELAY_MS,
});

/** Upper limits a descriptor or config may declare (beyond them the window stops meaning anything). */
export const MAX_CLOCK_SKEW_LIMIT_MS = 86_400_000; // 1 day
export const MAX_DELIVERY_DELAY_LIMIT_MS = 366 * 86_400_000; // 366 days

/** A well-formed TimeBounds to build with: exactly its two members, integers within [0, limit]. */
export function isTimeBounds(b: unknown): b is TimeBounds {
  if (b === null || typeof b !== 'object' || Array.isArray(b)) return false;
  const o = b as Record<string, unknown>;
  if (Object.keys(o).length !== 2) return false;
  const within = (v: unknown, max: number) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max;
  return within(o.maxClockSkewMs, MAX_CLOCK_SKEW_LIMIT_MS) && within(o.maxDeliveryDelayMs, MAX_DELIVERY_DELAY_LIMIT_MS);
}

/** "5m", "72h", "1d 2h" style, for details and the report. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0ms';
  const units: Array<[string, number]> = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
    ['ms', 1],
  ];
  const parts: string[] = [];
  let rest = ms;
  for (const [u, n] of units) {
    if (rest >= n) {
      parts.push(`${Math.floor(rest / n)}${u}`);
      rest %= n;
    }
  }
  return parts.join(' ');
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `300000`, `300s`, `5m`, `72h`, `3d` (a bare number is milliseconds) to milliseconds. */
export function parseDuration(text: string): Result<number> {
  const m = /^([0-9]{1,15})(ms|s|m|h|d)?$/.exec(text);
  if (!m)
    return fail(
      'bad_request',
      `${JSON.stringify(text.slice(0, 40))} is not a duration (an integer with ms, s, m, h or d; bare numbers are ms)`,
    );
  const v = Number(m[1]) * UNIT_MS[m[2] ?? 'ms'];
  if (!Number.isSafeInteger(v)) return fail('bad_request', `${text} is too long a duration`);
  return ok(v);
}

const iso = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms));

/**
 * signedAt against the time the log gives the event (`atMs`: sequencedAt, or the time it would
 * get): signed_in_future when more than maxClockSkew ahead, delivery_too_late when more than
 * maxDeliveryDelay behind. With `revokedAtMs` (the signing key's revocation; the caller has
 * already refused signedAt >= revokedAt), key_revoked when the event arrives more than
 * maxDeliveryDelay after the revocation. The failure carries `signedAt`, `at` and `bound`.
 */
export function checkSignedAt(signedAtMs: number, atMs: number, b: TimeBounds, revokedAtMs?: number): Result<true> {
  if (!Number.isFinite(signedAtMs) || !Number.isFinite(atMs))
    return fail('invalid_document', 'signedAt or the log time is not a time', { signedAt: iso(signedAtMs), at: iso(atMs) });
  const late = revokedAtMs !== undefined && atMs - revokedAtMs > b.maxDeliveryDelayMs;
  // The common case first, with no text built (this runs for every event, twice on ingest).
  if (signedAtMs - atMs <= b.maxClockSkewMs && !late && atMs - signedAtMs <= b.maxDeliveryDelayMs) return OK_TRUE;
  const facts = { signedAt: iso(signedAtMs), at: iso(atMs) };
  if (signedAtMs - atMs > b.maxClockSkewMs) {
    return fail(
      'signed_in_future',
      `signedAt ${facts.signedAt} is ${formatDuration(signedAtMs - atMs)} after the log's time ${facts.at}; at most maxClockSkew ${formatDuration(b.maxClockSkewMs)} is allowed`,
      { ...facts, bound: iso(atMs + b.maxClockSkewMs) },
    );
  }
  if (late) {
    return fail(
      'key_revoked',
      `the key was revoked at ${iso(revokedAtMs!)}; an event signed before that is accepted only until maxDeliveryDelay ${formatDuration(b.maxDeliveryDelayMs)} after it (${iso(revokedAtMs! + b.maxDeliveryDelayMs)}), and this one arrives at ${facts.at}`,
      { ...facts, bound: iso(revokedAtMs! + b.maxDeliveryDelayMs) },
    );
  }
  if (atMs - signedAtMs > b.maxDeliveryDelayMs) {
    return fail(
      'delivery_too_late',
      `signedAt ${facts.signedAt} is ${formatDuration(atMs - signedAtMs)} before the log's time ${facts.at}; at most maxDeliveryDelay ${formatDuration(b.maxDeliveryDelayMs)} is allowed`,
      { ...facts, bound: iso(atMs - b.maxDeliveryDelayMs) },
    );
  }
  return OK_TRUE;
}

const OK_TRUE: Result<true> = Object.freeze(ok<true>(true));

/** The log's clock never goes backwards: entry `e`'s sequencedAt is not earlier than `prev`'s (time_regression). */
export function checkTimeOrder(prev: { seq: number; sequencedAt: string }, e: { seq: number; sequencedAt: string }): Result<true> {
  const a = Date.parse(prev.sequencedAt);
  const b = Date.parse(e.sequencedAt);
  if (!(b >= a)) {
    return fail(
      'time_regression',
      `entry ${e.seq}: sequencedAt ${e.sequencedAt} is earlier than entry ${prev.seq}'s ${prev.sequencedAt}; the log's clock never goes backwards`,
      { bound: prev.sequencedAt },
    );
  }
  return ok(true);
}

/** A heartbeat says "alive now": signedAt within maxClockSkew of the sequencer's time on both sides. */
export function checkHeartbeatTime(signedAtMs: number, nowMs: number, b: TimeBounds, revokedAtMs?: number): Result<true> {
  const r = checkSignedAt(signedAtMs, nowMs, b, revokedAtMs);
  if (!r.ok) return r;
  if (nowMs - signedAtMs > b.maxClockSkewMs) {
    return fail(
      'delivery_too_late',
      `a heartbeat signed at ${iso(signedAtMs)} is ${formatDuration(nowMs - signedAtMs)} old; a heartbeat is liveness now and may be at most maxClockSkew ${formatDuration(b.maxClockSkewMs)} old`,
      { signedAt: iso(signedAtMs), at: iso(nowMs), bound: iso(nowMs - b.maxClockSkewMs) },
    );
  }
  return ok(true);
}

/**
 * Time precision of a log (Core §8 "Open datasets coarsen times to the day"). A log published as an
 * open dataset declares `timePrecision: "day"` in its descriptor: every time in its entries (the
 * entry's sequencedAt, the event's `time`, the signature's signedAt in the entry and in
 * cookwalasig, and times in the sequencer's own event data) is a UTC midnight, so nothing finer
 * than the day is published. Devices under `open` consent sign at the day; the sequencer stamps
 * sequencedAt at the day and refuses a finer time (time_too_precise). The window still holds on
 * whole days: `boundsForPrecision` rounds each bound up to whole days, which is exactly what
 * truncating both times to the day can add (floor(s) − floor(a) < (s − a) + 1 day, and a multiple
 * of a day), and the descriptor declares the rounded bounds, so ingest and auditors check the same
 * window. The cost, stated: key validity and revocation are judged at the day a key signed in.
 */
export const TIME_PRECISIONS = ['ms', 'day'] as const;
export type TimePrecision = (typeof TIME_PRECISIONS)[number];
export const DAY_MS = 86_400_000;

export function isTimePrecision(x: unknown): x is TimePrecision {
  return typeof x === 'string' && (TIME_PRECISIONS as readonly string[]).includes(x);
}

/** `ms` at the precision: `day` = the UTC midnight that starts its day. */
export function truncateTime(ms: number, p: TimePrecision): number {
  return p === 'day' ? Math.floor(ms / DAY_MS) * DAY_MS : ms;
}

/** The bounds a log of this precision declares: each rounded up to whole days for `day`. */
export function boundsForPrecision(b: TimeBounds, p: TimePrecision): TimeBounds {
  if (p !== 'day') return { maxClockSkewMs: b.maxClockSkewMs, maxDeliveryDelayMs: b.maxDeliveryDelayMs };
  const up = (v: number, max: number) => Math.min(max, Math.ceil(v / DAY_MS) * DAY_MS);
  return {
    maxClockSkewMs: up(b.maxClockSkewMs, MAX_CLOCK_SKEW_LIMIT_MS),
    maxDeliveryDelayMs: up(b.maxDeliveryDelayMs, MAX_DELIVERY_DELAY_LIMIT_MS),
  };
}

/** A time (RFC 3339 text) at the log's precision, else time_too_precise naming `what`. */
export function checkTimePrecision(time: string, p: TimePrecision, what: string): Result<true> {
  if (p !== 'day') return ok(true);
  const ms = Date.parse(time);
  if (Number.isFinite(ms) && ms % DAY_MS === 0) return ok(true);
  return fail(
    'time_too_precise',
    `${what} ${time.slice(0, 40)} is finer than this log's timePrecision "day" (times are UTC midnights, §8)`,
    { bound: Number.isFinite(ms) ? new Date(truncateTime(ms, 'day')).toISOString() : undefined },
  );
}
