// verifier/bundle/entry-time.ts: the log's clock as the entries of an audit bundle show it (docs/design.md
// §8; verifier/documents/time-bounds.ts): sequencedAt never goes backwards from one entry to the
// next (time_regression) nor lies before the descriptor's createdAt (sequenced_before_creation); with the descriptor's timePrecision "day" every sequencedAt and signedAt
// is a UTC midnight; and with its declared timeBounds every entry's eventSignature.signedAt lies
// within them of its sequencedAt (signed_in_future, delivery_too_late). The running maximum of
// sequencedAt (and the first seq holding it) is what the checkpoint section bounds by the
// witnesses' cosignature times (checkpoints.ts). Left out: a descriptor without timeBounds
// (only the order is checked; the policy decides whether that is allowed, preamble.ts). Memory: two stamps,
// whatever the number of entries.

import type { FailureLog } from './report.ts';
import type { Entry } from '../documents/entry.ts';
import { timeMs } from '../encoding/wire.ts';
import { checkSignedAt, checkTimeOrder, checkTimePrecision, type TimeBounds } from '../documents/time-bounds.ts';

/** The latest sequencedAt among the entries so far, and the first seq that holds it. */
export interface LatestStamp {
  ms: number;
  seq: number;
}

/** Where an earlier run of the clock stopped (a monitor or an incremental audit resuming). */
export interface ClockResume {
  /** The last entry checked: its seq and sequencedAt. */
  seq: number;
  sequencedAt: string;
  latest?: LatestStamp;
}

export function createEntryClock(o: {
  failures: FailureLog;
  timeBounds?: TimeBounds;
  timePrecision?: 'day';
  resume?: ClockResume;
  createdAtMs?: number;
}) {
  // A day-precision log (an open dataset) stamps its entries at 00:00 of their day: its creation
  // is compared at that precision too, or every entry of its first day would precede it.
  const DAY_MS = 86_400_000;
  const createdAtMs =
    o.createdAtMs === undefined ? -Infinity : o.timePrecision === 'day' ? Math.floor(o.createdAtMs / DAY_MS) * DAY_MS : o.createdAtMs;
  const f = o.failures;
  let maxStampMs = o.resume?.latest?.ms ?? -Infinity;
  let latest: LatestStamp | undefined = o.resume?.latest;
  // The previous entry's seq, sequencedAt and its time (kept as three values: no object per entry).
  let prevSeq = o.resume?.seq ?? 0;
  let prevAt: string | undefined = o.resume?.sequencedAt;
  let prevMs = prevAt === undefined ? NaN : timeMs(prevAt);

  /**
   * The log's clock: non-decreasing sequencedAt, and signedAt within the declared bounds of it.
   * `signedAtMs` is timeMs(e.eventSignature.signedAt) when the caller has it already.
   */
  function checkTime(e: Entry, line: number, signedAtMs?: number): void {
    const stamp = timeMs(e.sequencedAt);
    // checkTimeOrder fails exactly when !(stamp >= prevMs) (both Date.parse): asked only then, for its failure.
    if (prevAt !== undefined && !(stamp >= prevMs)) {
      const prevStamp = { seq: prevSeq, sequencedAt: prevAt };
      const order = checkTimeOrder(prevStamp, e);
      if (!order.ok)
        f.add({
          kind: order.code,
          seq: e.seq,
          line,
          expected: `no earlier than ${prevStamp.sequencedAt} (entry ${prevStamp.seq})`,
          found: e.sequencedAt,
          detail: order.detail,
        });
    }
    // No entry is older than its log (the descriptor's createdAt): asked once per entry, no text built unless it fails.
    if (stamp < createdAtMs)
      f.add({
        kind: 'sequenced_before_creation',
        seq: e.seq,
        line,
        expected: `no earlier than the descriptor's createdAt ${new Date(createdAtMs).toISOString()}`,
        found: e.sequencedAt,
        detail: `entry ${e.seq}: sequencedAt ${e.sequencedAt} is before the log was created (${new Date(createdAtMs).toISOString()})`,
      });
    prevSeq = e.seq;
    prevAt = e.sequencedAt;
    prevMs = stamp;
    if (stamp > maxStampMs) {
      maxStampMs = stamp;
      latest = { ms: stamp, seq: e.seq };
    }
    if (o.timePrecision === 'day') {
      for (const [what, t] of [
        ['sequencedAt', e.sequencedAt],
        ['signedAt', e.eventSignature.signedAt],
      ] as const) {
        const p = checkTimePrecision(t, 'day', `entry ${e.seq}: ${what}`);
        if (!p.ok) f.add({ kind: p.code, seq: e.seq, line, expected: String(p.bound), found: t, detail: p.detail });
      }
    }
    if (o.timeBounds) {
      const w = checkSignedAt(signedAtMs ?? timeMs(e.eventSignature.signedAt), stamp, o.timeBounds);
      if (!w.ok)
        f.add({
          kind: w.code,
          seq: e.seq,
          line,
          expected: w.bound,
          found: e.eventSignature.signedAt,
          detail: `entry ${e.seq} (sequencedAt ${e.sequencedAt}): ${w.detail}`,
        });
    }
  }

  return {
    check: checkTime,
    /** Where this clock stands, for a later run to resume from (undefined before any entry). */
    get resume(): ClockResume | undefined {
      return prevAt === undefined ? undefined : { seq: prevSeq, sequencedAt: prevAt, latest };
    },
    get maxStampMs() {
      return maxStampMs;
    },
    /** The latest sequencedAt so far and the first seq holding it (undefined before any entry). */
    get latest(): LatestStamp | undefined {
      return latest;
    },
  };
}
