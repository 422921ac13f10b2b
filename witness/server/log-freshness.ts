// witness/server/log-freshness.ts: per-log freshness of the witness's metrics (docs/design.md §7a,
// docs/monitoring.md): for every log, the size (or Cookwala seq) and the time of the checkpoint it
// last cosigned, over libp2p or C2SP HTTP. Cosignatures are recorded in a map (no prom-client call
// per request); the gauges are written when /metrics renders. Bounded cardinality: while at most
// `perLogLimit` logs have been cosigned, each has its series (`cookwala_witness_log_seq`,
// `cookwala_witness_log_cosigned_timestamp_seconds`, label `log`); above it (a witness-network
// witness with 40,000 logs) the per-log series are dropped and only unlabelled aggregates remain:
// the oldest last-cosignature time, and how many logs have had no cosignature within one hour and
// within one day (label `within`, two values). `cookwala_witness_log_series_capped` says which.
// Left out: logs admitted but never cosigned (no time to report; /v1/logs lists them).
// Invariant: every figure is derived from the same map at render time, so the aggregates and the
// per-log series of one scrape agree.

import type { Metrics, WitnessMetricName } from './metrics.ts';

export const DEFAULT_PER_LOG_LIMIT = 2_000;
/** The windows of cookwala_witness_logs_stale, in seconds (its `within` label). */
export const STALE_WINDOWS_S = [3_600, 86_400] as const;

export interface LogFreshness {
  /** A cosignature of `log` at `size`, made at `atMs` (ms since the epoch). */
  record(log: string, size: number, atMs: number): void;
  /** The logs of the stored state, once (a restarted witness reports what it cosigned before). */
  seed(states: Iterable<{ log: string; seq: number; updatedAt: string }>): void;
  readonly seeded: boolean;
  /** Write the gauges (at scrape time); `nowMs` for the stale counts. */
  flush(metrics: Metrics<WitnessMetricName>, nowMs: number): void;
}

export function createLogFreshness(perLogLimit = DEFAULT_PER_LOG_LIMIT): LogFreshness {
  const latest = new Map<string, { size: number; atMs: number }>();
  const changed = new Set<string>();
  let seeded = false;
  let capped = false;
  return {
    record(log, size, atMs) {
      // Per log one record, updated in place: a request allocates nothing here that outlives it.
      const e = latest.get(log);
      if (e === undefined) latest.set(log, { size, atMs });
      else {
        e.size = size;
        e.atMs = atMs;
      }
      changed.add(log);
    },
    seed(states) {
      seeded = true;
      for (const s of states) {
        const at = Date.parse(s.updatedAt);
        // A cosignature recorded since start is newer than the stored state.
        if (latest.has(s.log) || !Number.isFinite(at)) continue;
        latest.set(s.log, { size: s.seq, atMs: at });
        changed.add(s.log);
      }
    },
    get seeded() {
      return seeded;
    },
    flush(metrics, nowMs) {
      const over = latest.size > perLogLimit;
      if (over && !capped) {
        // prom-client keeps a series until reset: drop all per-log ones at once.
        metrics.registry.getSingleMetric('cookwala_witness_log_seq')?.reset();
        metrics.registry.getSingleMetric('cookwala_witness_log_cosigned_timestamp_seconds')?.reset();
      }
      capped = over;
      if (!over) {
        for (const log of changed) {
          const v = latest.get(log)!;
          metrics.set('cookwala_witness_log_seq', v.size, { log });
          metrics.set('cookwala_witness_log_cosigned_timestamp_seconds', Math.floor(v.atMs / 1000), { log });
        }
      }
      changed.clear();
      let oldest = Infinity;
      const stale = STALE_WINDOWS_S.map(() => 0);
      for (const v of latest.values()) {
        if (v.atMs < oldest) oldest = v.atMs;
        for (const [i, w] of STALE_WINDOWS_S.entries()) if (nowMs - v.atMs > w * 1000) stale[i]++;
      }
      metrics.set('cookwala_witness_log_series_capped', capped ? 1 : 0);
      metrics.set('cookwala_witness_logs_cosigned', latest.size);
      // No log cosigned yet: 0, which an alert reads as "nothing to judge" (see ops rules).
      metrics.set('cookwala_witness_logs_oldest_cosigned_timestamp_seconds', latest.size ? Math.floor(oldest / 1000) : 0);
      for (const [i, w] of STALE_WINDOWS_S.entries()) metrics.set('cookwala_witness_logs_stale', stale[i], { within: String(w) });
    },
  };
}
