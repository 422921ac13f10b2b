// monitor/events.ts: what `cookwala monitor` tells an operator (docs/monitoring.md): the named
// events of its JSON log lines (pino, one object a line, `event` to alert on, `log` the origin,
// `seq` where it happened) and its Prometheus families (one prom-client registry, platform/metrics.ts).
// The table is the monitor's own beside the services' LOG_EVENTS (platform/logger.ts); the
// monitoring page lists every name (test/monitor.test.ts checks). Left out: delivery of alerts
// (stdout is the interface; pipe it to whatever pages someone). Invariant: every finding the
// monitor reports carries one of these names.

import { createMetrics, type MetricFamily } from '../platform/index.ts';

export const MONITOR_EVENTS = {
  checkpoint_verified: 'a new checkpoint verified: signatures, quorum, consistency with the last one, every new entry (`seq`, `entries`)',
  entries_progress:
    'a long catch-up checked a page of entries and kept its place (`seq`: the last one, `entries`: checked in this step so far); not yet bound by a checkpoint',
  fork_detected:
    'two checkpoints of one log at one size with different roots, or a view that cannot be a prefix of ours (`seq`, `source`, `proof` file)',
  rewrite_detected: 'the served tree does not extend the last verified one: an entry at or before it changed (`seq`, `from`/`to` range)',
  quorum_lost: 'the served checkpoint is signed by the log but short of the policy quorum (`seq`, `witnesses`)',
  checkpoint_stale: 'no fresh checkpoint: the newest cosignature (or the last answer of the log) is older than staleAfterMs',
  checkpoint_invalid: 'the served checkpoint does not verify (bad or missing log signature, other origin, malformed)',
  entry_invalid: 'a new entry fails a check of the offline verifier (`seq`, `code`: bad_signature, chain_broken, …)',
  erasures_capped:
    'more payloads found erased wait for their erasure entries than the monitor keeps (10,000 per log); the ones past that are not matched (`dropped`), logged once',
  monitor_error: 'the monitor could not read or write its own state, or a step failed unexpectedly (`err`)',
  listening: 'the monitor is up: its HTTP address (`url`: /healthz, /metrics, /v1/monitor/views)',
  shutdown: 'the monitor was asked to stop (signal) and finishes the step it is in',
} as const;

export type MonitorEvent = keyof typeof MONITOR_EVENTS;

/** Events that are problems (exit 1 from --once); checkpoint_verified is not. */
export const PROBLEMS: ReadonlySet<MonitorEvent> = new Set([
  'fork_detected',
  'rewrite_detected',
  'quorum_lost',
  'checkpoint_stale',
  'checkpoint_invalid',
  'entry_invalid',
]);

const FAMILIES = {
  cookwala_monitor_verified_size: { help: 'size of the last verified checkpoint', type: 'gauge', labels: ['log'] },
  cookwala_monitor_verified_time_seconds: { help: 'when the last checkpoint was verified (unix seconds)', type: 'gauge', labels: ['log'] },
  cookwala_monitor_served_size: { help: 'size of the checkpoint the log serves now', type: 'gauge', labels: ['log'] },
  cookwala_monitor_lag_entries: { help: 'served size minus verified size', type: 'gauge', labels: ['log'] },
  cookwala_monitor_entries_verified_total: { help: 'entries (or leaves) verified', type: 'counter', labels: ['log'] },
  cookwala_monitor_findings_total: { help: 'problems found, by event', type: 'counter', labels: ['log', 'event'] },
} as const satisfies Record<string, MetricFamily>;

export type MonitorMetricName = keyof typeof FAMILIES;

export function createMonitorMetrics() {
  return createMetrics(FAMILIES);
}

export type MonitorMetrics = ReturnType<typeof createMonitorMetrics>;
