// witness/server/metrics.ts: the witness's metric families behind its GET /metrics, over one
// prom-client registry per witness (platform/metrics.ts; no globals, so several witnesses in one
// test process keep apart). Families without labels render 0 before anything happened, as
// dashboards expect; per-log families carry the label `log`.

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
  cookwala_witness_log_seq: { help: 'Latest cosigned seq, by log.', type: 'gauge', labels: ['log'] },
  cookwala_witness_peers: { help: 'Connected libp2p peers.', type: 'gauge' },
  cookwala_witness_gossip_peers: { help: 'Peers subscribed to the checkpoint gossip topic.', type: 'gauge' },
} as const satisfies Record<string, MetricFamily>;

export type WitnessMetricName = keyof typeof WITNESS_METRICS;

export function createWitnessMetrics(): Metrics<WitnessMetricName> {
  return createRegistry(WITNESS_METRICS);
}
