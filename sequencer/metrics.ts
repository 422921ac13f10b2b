// sequencer/metrics.ts: the sequencer's metric families behind GET /metrics (docs/design.md §10): events
// appended and rejected by reason code, group-commit batch sizes, the synced-append (fsync)
// latency histogram, checkpoint seqs, heartbeats, lost devices and the witness quorum, each per
// log (label `log`), over one prom-client registry per sequencer (platform/metrics.ts), so two
// sequencers in one test process never mix counts. Process and event-loop metrics come with it.

import { createMetrics as createRegistry, type MetricFamily, type Metrics as Registry } from '../platform/index.ts';

const LOG = ['log'] as const;

export const FAMILIES = {
  cookwala_events_appended_total: { help: 'Events appended to a log (acknowledged after fsync).', type: 'counter', labels: LOG },
  cookwala_events_duplicate_total: { help: 'Events answered from the (source, id) index without appending.', type: 'counter', labels: LOG },
  cookwala_events_rejected_total: { help: 'Events refused, by reason code.', type: 'counter', labels: ['log', 'code'] },
  cookwala_heartbeats_total: { help: 'Verified device heartbeats (not appended).', type: 'counter', labels: LOG },
  cookwala_consent_erasures_total: {
    help: 'Payloads erased because their device withdrew consent (hash_only logs).',
    type: 'counter',
    labels: LOG,
  },
  cookwala_lease_epoch: {
    help: 'The PostgreSQL lease epoch this process writes a log under; 0 while it does not lead the log (a standby).',
    type: 'gauge',
    labels: LOG,
  },
  cookwala_lease_leader: { help: '1 while this process leads the log (holds its PostgreSQL lease), else 0.', type: 'gauge', labels: LOG },
  cookwala_erasures_unwiped: {
    help: 'Erased payloads whose bytes are still in the PostgreSQL payload table: a snapshot older than the erasure holds the wipe back (retried).',
    type: 'gauge',
    labels: LOG,
  },
  cookwala_lease_changes_total: {
    help: "Changes of this process's lease on a log, by event (lease_acquired, lease_lost, lease_released).",
    type: 'counter',
    labels: ['log', 'event'],
  },
  cookwala_devices_lost_total: { help: 'cookwala.hub.device_lost entries appended.', type: 'counter', labels: LOG },
  cookwala_batches_total: { help: 'Group-commit batches written (one synced LevelDB batch each).', type: 'counter', labels: LOG },
  cookwala_batch_size: {
    help: 'Entries per group-commit batch.',
    type: 'histogram',
    labels: LOG,
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000],
  },
  cookwala_fsync_seconds: {
    help: 'Latency of one synced append batch.',
    type: 'histogram',
    labels: LOG,
    buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2],
  },
  cookwala_checkpoint_seq: { help: 'Seq of the latest signed checkpoint.', type: 'gauge', labels: LOG },
  cookwala_checkpoint_published_seq: { help: 'Seq of the latest published checkpoint.', type: 'gauge', labels: LOG },
  cookwala_log_head_seq: { help: 'Durable head seq of a log.', type: 'gauge', labels: LOG },
  // The log host (log-host.ts, docs/design.md §12a): process-wide, no log label.
  cookwala_logs_hosted: { help: 'Logs this sequencer hosts (open or not).', type: 'gauge' },
  cookwala_logs_open: { help: 'Logs whose store is open now (at most the open-store cap).', type: 'gauge' },
  cookwala_store_budget_granted_bytes: { help: 'Worst-case bytes of the memory budget granted to the open stores.', type: 'gauge' },
  // Witnessing (witness/client/publisher.ts): why nothing is published shows here and in the log.
  cookwala_quorum_missing: {
    help: '1 while the witness quorum of a log is not met (nothing is published; the log says why).',
    type: 'gauge',
    labels: LOG,
  },
  cookwala_checkpoints_cosigned_total: { help: 'Checkpoints that reached the witness quorum.', type: 'counter', labels: LOG },
  cookwala_witness_quorum: {
    help: 'The witness quorum of the policy in force for a log; 0 = the log is unwitnessed (checkpoints carry the sequencer signature alone).',
    type: 'gauge',
    labels: LOG,
  },
  // Every policy witness, whatever its transport (witness/client/publisher.ts); label `witness` =
  // its display name (verifier/signing/witness-identity.ts), `transport` = libp2p or http.
  cookwala_witness_request_seconds: {
    help: 'Latency of one add-checkpoint request to a witness (libp2p or C2SP HTTP).',
    type: 'histogram',
    labels: ['log', 'witness', 'transport'],
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
  },
  cookwala_witness_cosigned_size: {
    help: 'Tree size (seq) of the latest checkpoint a witness cosigned.',
    type: 'gauge',
    labels: ['log', 'witness', 'transport'],
  },
  cookwala_witness_cosigned_timestamp_seconds: {
    help: 'When a witness last cosigned (Unix seconds).',
    type: 'gauge',
    labels: ['log', 'witness', 'transport'],
  },
  cookwala_witness_up: {
    help: '1 when the last request to a witness got a cosignature that counts, else 0.',
    type: 'gauge',
    labels: ['log', 'witness', 'transport'],
  },
  cookwala_witness_errors_total: {
    help: 'Requests to a witness that got no counted cosignature, by reason code.',
    type: 'counter',
    labels: ['log', 'witness', 'transport', 'code'],
  },
  // C2SP tlog-witness submissions over HTTP (witness/client/c2sp-http.ts), per policy witness (label `witness` = its display name).
  cookwala_c2sp_witness_seconds: {
    help: 'Latency of one add-checkpoint request to a C2SP witness.',
    type: 'histogram',
    labels: ['log', 'witness'],
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
  },
  cookwala_c2sp_witness_cosigned_size: {
    help: 'Tree size of the latest checkpoint a C2SP witness cosigned.',
    type: 'gauge',
    labels: ['log', 'witness'],
  },
  cookwala_c2sp_witness_last_status: {
    help: 'HTTP status of the last add-checkpoint answer of a C2SP witness (0: no answer).',
    type: 'gauge',
    labels: ['log', 'witness'],
  },
  cookwala_c2sp_witness_errors_total: {
    help: 'add-checkpoint failures of a C2SP witness, by outcome (conflict, inconsistent, misconfigured, rate_limited, bad_request, unavailable, bad_cosignature).',
    type: 'counter',
    labels: ['log', 'witness', 'outcome'],
  },
} as const satisfies Record<string, MetricFamily>;

export type MetricName = keyof typeof FAMILIES;
export type Metrics = Registry<MetricName>;

export function createMetrics(): Metrics {
  return createRegistry(FAMILIES);
}
