// sequencer/metrics.ts: the Prometheus text exposition (format 0.0.4) behind GET /metrics
// (DESIGN §10): events appended and rejected by reason code, group-commit batch sizes, the
// synced-append (fsync) latency histogram, checkpoint seq, heartbeats and lost devices: the
// sequencer's fixed families over the shared registry (platform/prometheus.ts), one per
// sequencer, so two sequencers in one test process never mix counts.

import { createMetrics as createRegistry, type MetricFamily, type Metrics as Registry } from '../platform/prometheus.ts';

const FAMILIES = {
  cookwala_events_appended_total: { help: 'Events appended to a log (acknowledged after fsync).', type: 'counter' },
  cookwala_events_duplicate_total: { help: 'Events answered from the (source, id) index without appending.', type: 'counter' },
  cookwala_events_rejected_total: { help: 'Events refused, by reason code.', type: 'counter' },
  cookwala_heartbeats_total: { help: 'Verified device heartbeats (not appended).', type: 'counter' },
  cookwala_consent_erasures_total: { help: 'Payloads erased because their device withdrew consent (hash_only logs).', type: 'counter' },
  cookwala_devices_lost_total: { help: 'cookwala.hub.device_lost entries appended.', type: 'counter' },
  cookwala_batches_total: { help: 'Group-commit batches written (one synced LevelDB batch each).', type: 'counter' },
  cookwala_batch_size: { help: 'Entries per group-commit batch.', type: 'histogram', buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] },
  cookwala_fsync_seconds: { help: 'Latency of one synced append batch.', type: 'histogram', buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2] },
  cookwala_checkpoint_seq: { help: 'Seq of the latest signed checkpoint.', type: 'gauge' },
  cookwala_checkpoint_published_seq: { help: 'Seq of the latest published checkpoint.', type: 'gauge' },
  cookwala_log_head_seq: { help: 'Durable head seq of a log.', type: 'gauge' },
  // Witnessing (witness/client/publisher.ts): why nothing is published shows here and in the log.
  cookwala_quorum_missing: { help: '1 while the witness quorum of a log is not met (nothing is published; the log says why).', type: 'gauge' },
  cookwala_checkpoints_cosigned_total: { help: 'Checkpoints that reached the witness quorum.', type: 'counter' },
} as const satisfies Record<string, MetricFamily>;

export type MetricName = keyof typeof FAMILIES;
export type Metrics = Registry<MetricName>;

export function createMetrics(): Metrics {
  return createRegistry(FAMILIES);
}
