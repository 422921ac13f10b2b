// bench/cpu-profile.ts: where the time of a V8 CPU profile goes, by layer (docs/design.md §2, §13).
// `node --import tsx bench/cpu-profile.ts FILE.cpuprofile [--per N] [--top K] [--by layer|file]
// [--phases FILE [--mode single|batch] [--target sequencer|floor]]` reads a profile written by
// `node --cpu-prof` (the bench's COOKWALA_BENCH_CPU_PROF=DIR: the sequencer of the ingest section,
// the witness of the witness and C2SP sections) and prints its busy time (everything but idle)
// split by layer, with microseconds per unit when --per gives the number of events or requests the
// profile covers, then the K functions with the most self time. --phases reads only the samples
// inside the ingest section's timed phases (DIR/ingest-phases.json), of one mode with --mode, and
// counts their events as the units.
// A sample's layer is that of the innermost frame that has one, so native calls (a socket's
// writev, a worker's postMessage) count to the node module or the package that made them:
// - our folders (sequencer/, logstore/, verifier/, platform/, witness/, executor/, web/, bench/, testkit/);
// - node's own modules by job (http, sockets and streams, worker messages, node:crypto, module loading);
// - packages by name, with fastify (and find-my-way, @fastify/*) and level (classic-level, abstract-level) grouped;
// - V8's own entries: the garbage collector, and "(program)" (native work no JS frame is under).
// The profile is wall-clock sampled: a thread taken off its core inside a call shows as time in that
// call, so the calls that wake another thread (writev, postMessage, LevelDB reads) read high on a
// busy machine (bench/proc-cpu.ts measures that waiting separately). A sample stands for the time
// since the one before it; the time before a profile's first sample is nobody's (fromFirstSample):
// a profile started from inside the process spends its first 80-220 ms in `Profiler.start` itself
// (V8 logging the code it has) before it samples, which would count to the inspector's `dispatch`.
// Left out: per-thread profiles are one file each (node writes one per thread); this reads one.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  /** Microseconds on the monotonic clock (on Linux the same in every process: process.hrtime). */
  startTime?: number;
  samples: number[];
  timeDeltas: number[];
}

/** A timed phase of a bench section, on the profiles' clock (bench/ingest.ts writes them). */
export interface ProfileWindow {
  target: string;
  mode: string;
  events: number;
  startUs: number;
  endUs: number;
}

/**
 * The same profile with its clock starting at its first sample: the time before it (the profiler
 * starting, no sample taken) counts to no layer. Sample timestamps are kept, so `within` still
 * places every sample; applying it twice changes nothing.
 */
export function fromFirstSample(p: CpuProfile): CpuProfile & { leadUs: number } {
  const leadUs = p.timeDeltas[0] ?? 0;
  if (leadUs === 0) return { ...p, leadUs };
  return { ...p, startTime: (p.startTime ?? 0) + leadUs, timeDeltas: [0, ...p.timeDeltas.slice(1)], leadUs };
}

/** Keep only the samples taken inside one of `windows`: a profile of those phases alone. */
export function within(p: CpuProfile, windows: readonly ProfileWindow[]): CpuProfile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let t = p.startTime ?? 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (windows.some((w) => t >= w.startUs && t <= w.endUs)) {
      samples.push(p.samples[i]);
      timeDeltas.push(p.timeDeltas[i] ?? 0);
    }
  }
  return { nodes: p.nodes, startTime: p.startTime, samples, timeDeltas };
}

export interface ProfileRow {
  name: string;
  ms: number;
  /** Of the busy time. */
  share: number;
  /** Microseconds per unit, when a unit count was given. */
  usPer?: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  rows: ProfileRow[];
}

const OUR_FOLDERS = new Set(['sequencer', 'logstore', 'verifier', 'platform', 'witness', 'executor', 'web', 'bench', 'testkit']);
const PACKAGE_GROUPS: Array<[RegExp, string]> = [
  [/^(fastify|find-my-way|avvio|light-my-request|@fastify\/.*)$/, 'fastify'],
  [/^(classic-level|abstract-level|level|level-.*|module-error|maybe-combine-errors)$/, 'level'],
  [/^(pino|pino-.*|sonic-boom|thread-stream)$/, 'pino'],
];
const NODE_GROUPS: Array<[RegExp, string]> = [
  [/^node:(_http_|http$|https$|internal\/http)/, 'node http'],
  [/^node:(net$|stream$|internal\/streams\/|internal\/stream_base_commons)/, 'node sockets and streams'],
  [/^node:(worker_threads$|internal\/worker)/, 'node worker messages'],
  [/^node:(crypto$|internal\/crypto\/)/, 'node:crypto'],
  [/^node:internal\/(modules\/|process\/esm_loader|vm|source_map\/|bootstrap\/|deps\/cjs-module-lexer)/, 'module loading (start-up)'],
];

/**
 * node's utilities that work for whoever called them (buffers, events, the task queues, timers):
 * their time counts to the caller's layer, and to this one only when no caller has a layer.
 */
const NODE_UTILITIES =
  /^node:(buffer$|events$|timers$|util$|internal\/(buffer|events\/|event_target|encoding|perf\/|process\/(task_queues|promises)|timers|util|validators|errors))/;
export const NODE_UTILITY_LAYER = 'node (buffers, events, task queues, timers)';

/**
 * The layer of one frame's script, or undefined when the frame says nothing (a native or V8
 * frame, or one of node's utilities, NODE_UTILITIES).
 */
export function layerOfUrl(url: string): string | undefined {
  if (url === '' || NODE_UTILITIES.test(url)) return undefined;
  if (url.startsWith('node:')) {
    for (const [re, name] of NODE_GROUPS) if (re.test(url)) return name;
    return 'node other';
  }
  const { parts, nm } = pathParts(url);
  if (nm >= 0) {
    const pkg = parts[nm + 1]?.startsWith('@') ? `${parts[nm + 1]}/${parts[nm + 2]}` : (parts[nm + 1] ?? '?');
    for (const [re, name] of PACKAGE_GROUPS) if (re.test(pkg)) return name;
    return pkg;
  }
  // The innermost of our folders in the path: a checkout's own folder names come before it.
  for (let i = parts.length - 2; i >= 0; i--) if (OUR_FOLDERS.has(parts[i])) return `${parts[i]}/`;
  return 'other scripts';
}

/** A script's path in parts, and where its last node_modules is (-1: none). */
function pathParts(url: string): { parts: string[]; nm: number } {
  const parts = (url.startsWith('file://') ? fileURLToPath(url) : url).split(/[\\/]/);
  return { parts, nm: parts.lastIndexOf('node_modules') };
}

/** Our files by path from their folder, packages' files from the package name, node's by module. */
function fileOfUrl(url: string): string | undefined {
  const layer = layerOfUrl(url);
  if (layer === undefined || url.startsWith('node:')) return layer === undefined ? undefined : url;
  const { parts, nm } = pathParts(url);
  if (nm >= 0) return parts.slice(nm + 1).join('/');
  if (!layer.endsWith('/')) return layer;
  return parts.slice(parts.lastIndexOf(layer.slice(0, -1))).join('/');
}

const V8_ENTRIES: Record<string, string | null> = {
  '(idle)': null,
  '(garbage collector)': 'V8 garbage collector',
  '(program)': 'V8 (program: native, no JS frame)',
  '(root)': 'V8 (program: native, no JS frame)',
};

/** Busy time by layer (or by file of our folders), largest first; `per` adds microseconds per unit. */
export function timeBy(p: CpuProfile, by: 'layer' | 'file' = 'layer', per?: number): ProfileSummary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const classify = by === 'layer' ? layerOfUrl : fileOfUrl;
  const memo = new Map<number, string | null>();
  const nameOf = (leaf: number): string | null => {
    const hit = memo.get(leaf);
    if (hit !== undefined) return hit;
    const node = byId.get(leaf);
    let name: string | null = 'V8 (program: native, no JS frame)';
    if (node) {
      const v8 = V8_ENTRIES[node.callFrame.functionName];
      if (v8 !== undefined && node.callFrame.url === '') name = v8;
      else {
        let utility = false;
        let found: string | undefined;
        for (let cur: number | undefined = leaf; cur !== undefined && found === undefined; cur = parent.get(cur)) {
          const url = byId.get(cur)!.callFrame.url;
          found = classify(url);
          utility ||= NODE_UTILITIES.test(url);
        }
        name = found ?? (utility ? NODE_UTILITY_LAYER : name);
      }
    }
    memo.set(leaf, name);
    return name;
  };
  const ms = new Map<string, number>();
  let busyUs = 0;
  let idleUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i] ?? 0;
    if (dt === 0) continue;
    const name = nameOf(p.samples[i]);
    if (name === null) {
      idleUs += dt;
      continue;
    }
    busyUs += dt;
    ms.set(name, (ms.get(name) ?? 0) + dt);
  }
  const rows = rowsOf(ms, busyUs, per);
  return { busyMs: round(busyUs / 1000, 1), idleMs: round(idleUs / 1000, 1), rows };
}

/** The `k` functions with the most self time (idle left out), as `name file:line`. */
export function topSelf(p: CpuProfile, k: number, per?: number): ProfileRow[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const us = new Map<string, number>();
  let busyUs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const cf = byId.get(p.samples[i])?.callFrame;
    const dt = p.timeDeltas[i] ?? 0;
    if (!cf || dt === 0 || (cf.functionName === '(idle)' && cf.url === '')) continue;
    busyUs += dt;
    // Line numbers of .ts files are those of the transpiled text (tsx), so they are left out.
    const file = cf.url === '' ? '' : (fileOfUrl(cf.url) ?? cf.url);
    const where = file === '' ? '' : file.endsWith('.ts') ? ` ${file}` : ` ${file}:${cf.lineNumber + 1}`;
    const name = `${cf.functionName || '(anonymous)'}${where}`;
    us.set(name, (us.get(name) ?? 0) + dt);
  }
  return rowsOf(us, busyUs, per).slice(0, k);
}

/** Microseconds by name as rows, largest first. */
function rowsOf(us: Map<string, number>, busyUs: number, per: number | undefined): ProfileRow[] {
  return [...us]
    .sort((a, b) => b[1] - a[1])
    .map(([name, t]) => {
      const row: ProfileRow = { name, ms: round(t / 1000, 1), share: busyUs > 0 ? round(t / busyUs, 3) : 0 };
      if (per !== undefined && per > 0) row.usPer = round(t / per, 1);
      return row;
    });
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

/** Rows under `minShare` of the busy time are summed into one line. */
function printRows(all: ProfileRow[], minShare = 0): void {
  const rows = all.filter((r) => r.share >= minShare);
  const rest = all.filter((r) => r.share < minShare);
  if (rest.length > 0)
    rows.push({
      name: `${rest.length} more, each under ${(100 * minShare).toFixed(1)}%`,
      ms: round(
        rest.reduce((a, r) => a + r.ms, 0),
        1,
      ),
      share: round(
        rest.reduce((a, r) => a + r.share, 0),
        3,
      ),
      ...(rest[0].usPer === undefined
        ? {}
        : {
            usPer: round(
              rest.reduce((a, r) => a + r.usPer!, 0),
              1,
            ),
          }),
    });
  for (const r of rows)
    process.stdout.write(
      `${(100 * r.share).toFixed(1).padStart(6)}%  ${r.ms.toFixed(1).padStart(9)} ms${r.usPer === undefined ? '' : `  ${r.usPer.toFixed(1).padStart(8)} us`}  ${r.name}\n`,
    );
}

function main(argv: string[]): void {
  // Piped into head: a closed stdout ends the printing, not in an unhandled error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    throw e;
  });
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      per: { type: 'string' },
      top: { type: 'string' },
      by: { type: 'string' },
      phases: { type: 'string' },
      mode: { type: 'string' },
      target: { type: 'string' },
    },
  });
  const file = positionals[0];
  if (!file) {
    process.stderr.write(
      'usage: bench/cpu-profile.ts FILE.cpuprofile [--per N] [--top K] [--by layer|file] [--phases FILE [--mode M] [--target T]]\n',
    );
    process.exitCode = 2;
    return;
  }
  const read = fromFirstSample(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  let p: CpuProfile = read;
  let per = values.per === undefined ? undefined : Number(values.per);
  const phases = values.phases;
  if (phases) {
    const target = values.target ?? 'sequencer';
    const mode = values.mode;
    const windows = (JSON.parse(readFileSync(phases, 'utf8')) as ProfileWindow[]).filter(
      (w) => w.target === target && (mode === undefined || w.mode === mode),
    );
    if (windows.length === 0) {
      process.stderr.write(`no phase of ${target}${mode ? ` in mode ${mode}` : ''} in ${phases}\n`);
      process.exitCode = 2;
      return;
    }
    p = within(p, windows);
    per ??= windows.reduce((a, w) => a + w.events, 0);
  }
  const by = values.by === 'file' ? 'file' : 'layer';
  const s = timeBy(p, by, per);
  const lead = read.leadUs >= 1000 ? ` (the ${round(read.leadUs / 1000, 1)} ms before the first sample left out)` : '';
  process.stdout.write(`busy ${s.busyMs} ms, idle ${s.idleMs} ms${per ? `, ${per} units` : ''}${lead}\n`);
  printRows(s.rows, 0.005);
  const k = Number(values.top ?? 25);
  if (k > 0) {
    process.stdout.write(`\nself time, top ${k}:\n`);
    printRows(topSelf(p, k, per));
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main(process.argv.slice(2));
