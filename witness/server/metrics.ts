// witness/server/metrics.ts: the witness's metric families for its GET /metrics, over the shared
// Prometheus registry (platform/prometheus.ts), one registry per witness (no globals, so
// several witnesses in one test process keep apart).

import { createMetrics as createRegistry, type MetricFamily, type Metrics } from '../../platform/prometheus.ts';

export type { MetricFamily, Metrics };

/** A witness-side registry: untouched counters and gauges render as 0, as dashboards expect. */
export function createMetrics<N extends string>(families: Record<N, MetricFamily>): Metrics<N> {
  return createRegistry(families, { zeroWhenEmpty: true });
}

export const WITNESS_METRICS = {
  cookwala_witness_requests_total: { help: 'add-checkpoint requests answered, by result code (ok for a cosignature).', type: 'counter' },
  cookwala_witness_cosignatures_total: { help: 'Cosignatures issued (each after a synced state commit).', type: 'counter' },
  cookwala_witness_forks_total: { help: 'Fork proofs newly stored, by source (request, gossip).', type: 'counter' },
  cookwala_witness_gossip_total: { help: 'Gossip messages judged, by topic and verdict.', type: 'counter' },
  cookwala_witness_logs: { help: 'Logs this witness follows (by configuration).', type: 'gauge' },
  cookwala_witness_log_seq: { help: 'Latest cosigned seq, by log.', type: 'gauge' },
  cookwala_witness_peers: { help: 'Connected libp2p peers.', type: 'gauge' },
  cookwala_witness_gossip_peers: { help: 'Peers subscribed to the checkpoint gossip topic.', type: 'gauge' },
} as const satisfies Record<string, MetricFamily>;

export type WitnessMetricName = keyof typeof WITNESS_METRICS;
