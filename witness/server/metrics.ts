// witness/server/metrics.ts: the witness's metric families behind its GET /metrics, over one
// prom-client registry per witness (platform/metrics.ts; no globals, so several witnesses in one
// test process keep apart). Families without labels render 0 before anything happened, as
// dashboards expect; per-log families carry the label `log`, bounded by log-freshness.ts.

import { createMetrics as createRegistry, type MetricFamily, type Metrics } from '../../platform/index.ts';

export type { MetricFamily, Metrics };

export const WITNESS_METRICS = {
  cookwala_witness_requests_total: {
    help: 'add-checkpoint requests answered, by result code (ok for a cosignature).',
    type: 'counter',
    labels: ['code'],
  },
  cookwala_witness_cosignatures_total: { help: 'Cosignatures issued (each after a synced state commit).', type: 'counter' },
  cookwala_witness_forks_total: {
    help: 'Fork proofs newly stored, by log and source (request, gossip).',
    type: 'counter',
    labels: ['log', 'source'],
  },
  cookwala_witness_gossip_total: { help: 'Gossip messages judged, by topic and verdict.', type: 'counter', labels: ['topic', 'verdict'] },
  cookwala_witness_logs: { help: 'Logs this witness follows (by configuration).', type: 'gauge' },
  cookwala_witness_log_seq: {
    help: 'Size (C2SP) or seq (Cookwala) of the checkpoint last cosigned, by log (while at most the per-log limit of logs are cosigned).',
    type: 'gauge',
    labels: ['log'],
  },
  cookwala_witness_log_cosigned_timestamp_seconds: {
    help: 'When the checkpoint last cosigned for the log was cosigned (Unix seconds), by log (same limit as cookwala_witness_log_seq).',
    type: 'gauge',
    labels: ['log'],
  },
  cookwala_witness_log_series_capped: {
    help: '1 when more logs are cosigned than the per-log limit: the per-log series are dropped, the aggregates remain.',
    type: 'gauge',
  },
  cookwala_witness_logs_cosigned: { help: 'Logs with at least one cosigned checkpoint.', type: 'gauge' },
  cookwala_witness_logs_oldest_cosigned_timestamp_seconds: {
    help: 'The oldest of the per-log last-cosignature times (Unix seconds; 0 while no log is cosigned).',
    type: 'gauge',
  },
  cookwala_witness_logs_stale: {
    help: 'Cosigned logs whose last cosignature is older than `within` seconds (3600, 86400).',
    type: 'gauge',
    labels: ['within'],
  },
  cookwala_witness_peers: { help: 'Connected libp2p peers.', type: 'gauge' },
  cookwala_witness_gossip_peers: { help: 'Peers subscribed to the checkpoint gossip topic.', type: 'gauge' },
} as const satisfies Record<string, MetricFamily>;

export type WitnessMetricName = keyof typeof WITNESS_METRICS;

export function createWitnessMetrics(): Metrics<WitnessMetricName> {
  return createRegistry(WITNESS_METRICS);
}
