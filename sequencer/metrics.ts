// sequencer/metrics.ts: the Prometheus text exposition (format 0.0.4) behind GET /metrics
// (DESIGN §10): events appended and rejected by reason code, group-commit batch sizes, the
// synced-append (fsync) latency histogram, checkpoint seq, heartbeats and lost devices. A small
// registry with fixed families, created per sequencer (no globals), so two sequencers in one test
// process never mix counts. Left out: process metrics (CPU, memory, GC); scrape with node_exporter.

type Labels = Record<string, string>;

interface Family {
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  buckets?: number[];
}

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
  // Witnessing (witness/publisher.ts): why nothing is published shows here and in the log.
  cookwala_quorum_missing: { help: '1 while the witness quorum of a log is not met (nothing is published; the log says why).', type: 'gauge' },
  cookwala_checkpoints_cosigned_total: { help: 'Checkpoints that reached the witness quorum.', type: 'counter' },
} as const satisfies Record<string, Family>;

export type MetricName = keyof typeof FAMILIES;

interface Hist {
  counts: number[];
  sum: number;
  count: number;
}

export interface Metrics {
  inc(name: MetricName, labels?: Labels, n?: number): void;
  set(name: MetricName, value: number, labels?: Labels): void;
  observe(name: MetricName, value: number, labels?: Labels): void;
  /** The current value of a counter or gauge (tests and benches). */
  value(name: MetricName, labels?: Labels): number;
  render(): string;
}

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
function labelKey(labels: Labels = {}): string {
  return Object.keys(labels).sort().map((k) => `${k}="${esc(labels[k])}"`).join(',');
}
const withLabels = (name: string, key: string, extra = '') => {
  const all = [key, extra].filter(Boolean).join(',');
  return all ? `${name}{${all}}` : name;
};

export function createMetrics(): Metrics {
  const scalars = new Map<MetricName, Map<string, number>>();
  const hists = new Map<MetricName, Map<string, Hist>>();
  const scalar = (name: MetricName) => {
    let m = scalars.get(name);
    if (!m) scalars.set(name, (m = new Map()));
    return m;
  };
  return {
    inc(name, labels, n = 1) {
      const m = scalar(name);
      const k = labelKey(labels);
      m.set(k, (m.get(k) ?? 0) + n);
    },
    set(name, value, labels) {
      scalar(name).set(labelKey(labels), value);
    },
    observe(name, value, labels) {
      const fam: Family = FAMILIES[name];
      if (!fam.buckets) throw new TypeError(`${name} is not a histogram`);
      let m = hists.get(name);
      if (!m) hists.set(name, (m = new Map()));
      const k = labelKey(labels);
      let h = m.get(k);
      if (!h) m.set(k, (h = { counts: fam.buckets.map(() => 0), sum: 0, count: 0 }));
      fam.buckets.forEach((b, i) => {
        if (value <= b) h.counts[i]++;
      });
      h.sum += value;
      h.count++;
    },
    value(name, labels) {
      return scalars.get(name)?.get(labelKey(labels)) ?? 0;
    },
    render() {
      const out: string[] = [];
      for (const [name, f] of Object.entries(FAMILIES) as Array<[MetricName, Family]>) {
        out.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`);
        if (f.buckets) {
          for (const [k, h] of hists.get(name) ?? []) {
            f.buckets.forEach((b, i) => out.push(`${withLabels(`${name}_bucket`, k, `le="${b}"`)} ${h.counts[i]}`));
            out.push(`${withLabels(`${name}_bucket`, k, 'le="+Inf"')} ${h.count}`);
            out.push(`${withLabels(`${name}_sum`, k)} ${h.sum}`, `${withLabels(`${name}_count`, k)} ${h.count}`);
          }
        } else {
          for (const [k, v] of scalars.get(name) ?? []) out.push(`${withLabels(name, k)} ${v}`);
        }
      }
      return out.join('\n') + '\n';
    },
  };
}
