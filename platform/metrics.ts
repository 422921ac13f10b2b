// platform/metrics.ts: the metrics behind every GET /metrics of this project (sequencer, witness),
// over prom-client: each service declares its families (name, help, type, label names, buckets)
// and gets its own prom-client Registry from `createMetrics(families)`, never the global default
// registry, so two services in one test process keep their counts apart. Process and event-loop
// metrics (prom-client's collectDefaultMetrics: CPU, memory, heap, GC, handles, event-loop lag)
// belong to the process, not to a service: they are collected once per process into a registry of
// their own and merged into every service's scrape (collecting them per service would start one
// event-loop monitor and one GC observer per service, which never stop).
// The facade keeps the names typed: an unknown family, a histogram used as a scalar or the
// reverse, or an undeclared label is a programmer error (TypeError) at the call site.
// Left out: push gateways, summaries; exposition is the text format prom-client renders.

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

type Labels = Record<string, string>;

export interface MetricFamily {
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  /** The label names this family may carry (a per-log family has `log`). */
  labels?: readonly string[];
  buckets?: readonly number[];
}

export interface Metrics<N extends string = string> {
  inc(name: N, labels?: Labels, n?: number): void;
  set(name: N, value: number, labels?: Labels): void;
  observe(name: N, value: number, labels?: Labels): void;
  /** The current value of a counter or gauge with exactly these labels (tests and benches). */
  value(name: N, labels?: Labels): Promise<number>;
  /** The text exposition of this service's families plus the process metrics. */
  render(): Promise<string>;
  readonly contentType: string;
  /** This service's own registry (without the process metrics). */
  readonly registry: Registry;
}

export interface MetricsOptions {
  /** Merge the per-process default metrics into render() (default true). */
  processMetrics?: boolean;
}

let processRegistry: Registry | undefined;

/** The one registry of process and event-loop metrics of this process, made on first use. */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

type Metric = Counter | Gauge | Histogram;

const sameLabels = (a: Record<string, unknown>, b: Labels) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => String(a[k]) === b[k]);
};

export function createMetrics<N extends string>(families: Record<N, MetricFamily>, opts: MetricsOptions = {}): Metrics<N> {
  const registry = new Registry();
  const metrics = new Map<N, Metric>();
  for (const name of Object.keys(families) as N[]) {
    const f = families[name];
    const base = { name, help: f.help, labelNames: [...(f.labels ?? [])], registers: [registry] };
    if (f.type === 'counter') metrics.set(name, new Counter(base));
    else if (f.type === 'gauge') metrics.set(name, new Gauge(base));
    else metrics.set(name, new Histogram({ ...base, buckets: [...(f.buckets ?? [])] }));
  }
  const get = (name: N, labels: Labels | undefined, kind: MetricFamily['type'][]): Metric => {
    const f = families[name];
    if (!f) throw new TypeError(`unknown metric ${name}`);
    if (!kind.includes(f.type)) throw new TypeError(`${name} is a ${f.type}`);
    for (const k of Object.keys(labels ?? {})) if (!f.labels?.includes(k)) throw new TypeError(`${name} has no label ${k}`);
    return metrics.get(name)!;
  };
  const withProcess = opts.processMetrics !== false;
  return {
    inc(name, labels = {}, n = 1) {
      (get(name, labels, ['counter', 'gauge']) as Counter).inc(labels, n);
    },
    set(name, value, labels = {}) {
      (get(name, labels, ['gauge']) as Gauge).set(labels, value);
    },
    observe(name, value, labels = {}) {
      (get(name, labels, ['histogram']) as Histogram).observe(labels, value);
    },
    async value(name, labels = {}) {
      const m = get(name, labels, ['counter', 'gauge']);
      const v = (await m.get()).values.find((x) => sameLabels(x.labels, labels));
      return v?.value ?? 0;
    },
    async render() {
      return (withProcess ? Registry.merge([registry, processMetrics()]) : registry).metrics();
    },
    contentType: registry.contentType,
    registry,
  };
}
