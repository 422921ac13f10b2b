// platform/prometheus.ts: the Prometheus text exposition (format 0.0.4) behind every
// GET /metrics of this project (sequencer, witness): counters, gauges and cumulative histograms
// with labels, over families declared by the caller with their help text. One registry per
// service, created by a factory (no globals), so several services in one test process never mix
// counts. Left out: process metrics (CPU, memory, GC); scrape those with node_exporter.

type Labels = Record<string, string>;

export interface MetricFamily {
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  buckets?: readonly number[];
}

export interface Metrics<N extends string = string> {
  inc(name: N, labels?: Labels, n?: number): void;
  set(name: N, value: number, labels?: Labels): void;
  observe(name: N, value: number, labels?: Labels): void;
  /** The current value of a counter or gauge (tests and benches). */
  value(name: N, labels?: Labels): number;
  render(): string;
}

export interface MetricsOptions {
  /** Render `name 0` for a counter or gauge nothing has touched yet (else only HELP and TYPE). */
  zeroWhenEmpty?: boolean;
}

interface Hist {
  counts: number[];
  sum: number;
  count: number;
}

const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelKey = (labels: Labels = {}) =>
  Object.keys(labels)
    .sort()
    .map((k) => `${k}="${esc(labels[k])}"`)
    .join(',');
const withLabels = (name: string, key: string, extra = '') => {
  const all = [key, extra].filter(Boolean).join(',');
  return all ? `${name}{${all}}` : name;
};

export function createMetrics<N extends string>(families: Record<N, MetricFamily>, opts: MetricsOptions = {}): Metrics<N> {
  const scalars = new Map<N, Map<string, number>>();
  const hists = new Map<N, Map<string, Hist>>();
  const family = (name: N): MetricFamily => {
    const f = families[name];
    if (!f) throw new TypeError(`unknown metric ${name}`);
    return f;
  };
  const scalar = (name: N) => {
    if (family(name).type === 'histogram') throw new TypeError(`${name} is a histogram`);
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
      const f = family(name);
      if (f.type !== 'histogram' || !f.buckets) throw new TypeError(`${name} is not a histogram`);
      let m = hists.get(name);
      if (!m) hists.set(name, (m = new Map()));
      const k = labelKey(labels);
      let h = m.get(k);
      if (!h) m.set(k, (h = { counts: f.buckets.map(() => 0), sum: 0, count: 0 }));
      f.buckets.forEach((b, i) => {
        if (value <= b) h.counts[i]++;
      });
      h.sum += value;
      h.count++;
    },
    value(name, labels) {
      return scalar(name).get(labelKey(labels)) ?? 0;
    },
    render() {
      const out: string[] = [];
      for (const name of Object.keys(families) as N[]) {
        const f = families[name];
        out.push(`# HELP ${name} ${f.help}`, `# TYPE ${name} ${f.type}`);
        if (f.type === 'histogram') {
          for (const [k, h] of hists.get(name) ?? []) {
            f.buckets!.forEach((b, i) => out.push(`${withLabels(`${name}_bucket`, k, `le="${b}"`)} ${h.counts[i]}`));
            out.push(`${withLabels(`${name}_bucket`, k, 'le="+Inf"')} ${h.count}`);
            out.push(`${withLabels(`${name}_sum`, k)} ${h.sum}`, `${withLabels(`${name}_count`, k)} ${h.count}`);
          }
          continue;
        }
        const m = scalars.get(name);
        if (!m || m.size === 0) {
          if (opts.zeroWhenEmpty) out.push(`${name} 0`);
          continue;
        }
        for (const [k, v] of m) out.push(`${withLabels(name, k)} ${v}`);
      }
      return out.join('\n') + '\n';
    },
  };
}
