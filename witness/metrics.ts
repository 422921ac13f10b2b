// witness/metrics.ts: Prometheus text exposition (format 0.0.4) for the witness's GET /metrics and
// the sequencer-side witness publisher: counters and gauges with labels, one registry per service
// (no globals, so several witnesses in one test process keep apart). Left out: histograms and
// process metrics; the families are declared by the caller with their help text.

type Labels = Record<string, string>;

export interface MetricFamily {
  help: string;
  type: 'counter' | 'gauge';
}

export interface Metrics<N extends string = string> {
  inc(name: N, labels?: Labels, n?: number): void;
  set(name: N, value: number, labels?: Labels): void;
  value(name: N, labels?: Labels): number;
  render(): string;
}

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelKey = (labels: Labels = {}) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}="${esc(labels[k])}"`)
    .join(',');

export function createMetrics<N extends string>(families: Record<N, MetricFamily>): Metrics<N> {
  const values = new Map<N, Map<string, number>>();
  const series = (name: N) => {
    if (!(name in families)) throw new TypeError(`unknown metric ${name}`);
    let m = values.get(name);
    if (!m) values.set(name, (m = new Map()));
    return m;
  };
  return {
    inc(name, labels, n = 1) {
      const m = series(name);
      const k = labelKey(labels);
      m.set(k, (m.get(k) ?? 0) + n);
    },
    set(name, value, labels) {
      series(name).set(labelKey(labels), value);
    },
    value(name, labels) {
      return series(name).get(labelKey(labels)) ?? 0;
    },
    render() {
      const out: string[] = [];
      for (const name of Object.keys(families) as N[]) {
        const f = families[name];
        out.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`);
        const m = values.get(name);
        if (!m || m.size === 0) {
          if (f.type === 'gauge' || f.type === 'counter') out.push(`${name} 0`);
          continue;
        }
        for (const [k, v] of m) out.push(k ? `${name}{${k}} ${v}` : `${name} ${v}`);
      }
      return out.join('\n') + '\n';
    },
  };
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
