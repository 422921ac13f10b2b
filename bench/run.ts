// bench/run.ts: `npm run bench [-- --quick] [-- --only a,b] [-- --out FILE]`. Runs every section of docs/design.md §13 in
// one run, each measuring against limits measured in the same run, writes
// bench/results.json (merged: sections not run keep their last result) and prints a table of the
// targets of docs/design.md §13, plus a line for every section
// whose limits disagreed by more than 20% (a `limitsAgree: false` anywhere in its result). Each
// section runs in a child process of its own (runSection), one after another. A `--quick` run writes its own untracked file instead (QUICK_RESULTS below), never bench/results.json, so
// results.json and the table of docs/benchmarks.md always hold full runs (`--out FILE` names another file, for
// people measuring side by side). A section that fails records its error
// instead of stopping the others.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

type Section = { run: (ctx: { quick: boolean; limits: Limits }) => Promise<Record<string, unknown>> };
export interface Limits {
  ed25519VerifyPerSecAllCores?: number;
}

const here = dirname(fileURLToPath(import.meta.url));
const RESULTS = join(here, 'results.json');
const QUICK_RESULTS = join(here, 'results.quick.json');

const SECTIONS: Record<string, () => Promise<Section>> = {
  crypto: () => import('./crypto.ts'),
  // ML-DSA-44 per backend, and the witness answering with both keys against its crypto
  mldsa: () => import('./mldsa.ts'),
  append: () => import('./append.ts'),
  proof: async () => ({ run: (await import('./proof.ts')).runProof }),
  ingest: () => import('./ingest.ts'),
  verify: () => import('./verify.ts'),
  // only the hostile inputs of the verify section; merged into results.verify
  verifyHostile: () => import('./verify-hostile.ts'),
  // opt-in (`--only verify7`, about 30 minutes on 2 cores, and about 10 more for the floor's one pair): one run over
  // 10^7 events, merged into results.verify.at1e7
  verify7: async () => ({
    run: async () => (await import('./verify.ts')).run({ quick: false, sizes: [10_000_000], hostile: false, pairs: 1 }),
  }),
  slowConnections: () => import('./slow-connections.ts'),
  checkpoint: () => import('./checkpoint.ts'),
  witness: () => import('./witness.ts'),
  c2sp: () => import('./c2sp.ts'),
  // only the sequencer's append -> C2SP-quorum checkpoint latency (c2sp.ts runs it too); merged into results.c2sp
  c2spCheckpoint: () => import('./c2sp-checkpoint.ts'),
  strictJson: () => import('./strict-json.ts'),
  browser: () => import('./browser.ts'),
  // PostgreSQL logstore driver beside LevelDB, and take-over of two sequencers
  postgres: () => import('./postgres.ts'),
  // many logs on one sequencer, and one witness for 40,000 logs
  logs: () => import('./logs.ts'),
  export: () => import('./export.ts'),
  witnessScale: () => import('./witness-scale.ts'),
  // the auditor's monitor: catch-up vs `cookwala verify` on the same log, steady-state CPU, state size
  monitor: () => import('./monitor.ts'),
};

// key path, target predicate (given the whole results, for targets relative to another key), text
type Target = [string, (v: number, results: Record<string, unknown>) => boolean, string];
const TARGETS: Target[] = [
  ['ingest.eventsPerSec', (v) => v >= 10_000, '>= 10,000 events/s'],
  ['verify.eventsPerSec', () => true, '(reported)'],
  ['verify.hostilePeakRssMB', (v) => v <= 256, '<= 256 MB'],
  ['slowConnections.p99Ratio', (v) => v <= 2, '<= 2 (p99 under flood / alone)'],
  ['slowConnections.slow.stillOpen', (v) => v === 0, '0 slow ones left'],
  ['checkpoint.p50Ms', () => true, '(reported)'],
  ['witness.addCheckpointPerSec', (v) => v >= 2000, '>= 2,000/s'],
  ['c2sp.witnessAddCheckpointPerSec', (v) => v >= 2000, '>= 2,000/s'],
  ['c2sp.checkpointP50Ms', () => true, '(reported)'],
  ['c2sp.checkpointP99Ms', (v) => v <= 1000, '<= 1,000 ms'],
  ['proof.inclusionMs', (v) => v < 1, '< 1 ms'],
  ['crypto.ed25519VerifyPerSecAllCores', () => true, '(limit)'],
  ['strictJson.event800.ratio', () => true, '(reported: vs JSON.parse)'],
  ['strictJson.line1MB.ratio', () => true, '(reported: vs JSON.parse)'],
  ['browser.verifyEventsPerSec', () => true, '(reported)'],
  ['browser.ratioToCli', (v) => v >= 0.5, '>= 0.5'],
  ['browser.peakJsHeapMB', () => true, '(reported)'],
  ['postgres.ingestEventsPerSec', () => true, '(reported)'],
  ['postgres.ratioToLevel', () => true, '(reported: vs LevelDB, same run)'],
  ['logs.peakRssMB', (v) => v <= 2048, '<= 2,048 MB'],
  ['logs.startupSeconds', (v) => v <= 10, '<= 10 s'],
  ['logs.ratioToSingleLog', (v) => v >= 0.9, '>= 0.9 (10 logs / 1)'],
  ['logs.spreadRatioToSingleLog', () => true, '(reported: all logs / 1)'],
  ['witnessScale.peakRssMB', (v) => v <= 1024, '<= 1,024 MB'],
  ['witnessScale.startupSeconds', (v) => v <= 10, '<= 10 s'],
  ['witnessScale.addCheckpointPerSec', (v) => v >= 1000, '>= 1,000/s'],
  ['postgres.takeoverMs', () => true, '(reported: SIGKILL -> first 201)'],
  ['export.ratioToCurl', (v) => v >= 0.5, '>= 0.5 (export --url vs curl, same URL)'],
  ['monitor.ratioToVerify', (v) => v >= 0.9, '>= 0.9 (catch-up 10^6 vs verify, same log)'],
  ['monitor.entriesPerSec', () => true, '(reported: catch-up entries/s)'],
  ['monitor.cpuRatioToVerify', () => true, "(reported: verify's CPU/entry over the monitor's)"],
  ['monitor.ratioToVerifyServedApart', () => true, '(reported: the same, sequencer on its own core)'],
  ['monitor.ratioToVerifyFromCopy', () => true, '(reported: the same, read from a static copy behind nginx)'],
  ['monitor.steadyCpuUsPerEntry', () => true, '(reported: CPU us per new entry, following)'],
  ['monitor.stateBytesAt1e6', () => true, '(reported: state file bytes at 10^6)'],
  ['monitor.stateBytesAt1e7', () => true, '(reported: state file bytes at 10^7)'],
  ['export.rssGrowthMB', (v) => v < 32, '< 32 MB (peak RSS: full size minus a tenth of it)'],
  // docs/design.md §13: ratios measured in interleaved pairs against their limits (bench/pairs.ts)
  ['ingest.ratioToFloor', (v) => v >= 0.85, ">= 0.85 (batches: ours / the floor's ratio)"],
  ['ingest.ratioToVerifyLimit', () => true, '(reported: vs the signature limit)'],
  ['ingest.singleEventsPerSec', (v) => v >= 6000, '>= 6,000/s'],
  ['ingest.singleP99Ms', () => true, '(reported)'],
  ['ingest.singleClients', () => true, '(reported: clients in flight for the two above)'],
  ['ingest.singleByClients.64.eventsPerSec', () => true, '(reported: 64 clients)'],
  ['ingest.singleByClients.64.p99Ms', () => true, '(reported: 64 clients)'],
  ['ingest.singleByClients.256.eventsPerSec', () => true, '(reported: 256 clients)'],
  ['ingest.singleByClients.256.p99Ms', () => true, '(reported: 256 clients)'],
  ['ingest.floor.sequencerBesidesSignatureUsPerEvent', () => true, '(reported: ours, CPU us/event)'],
  ['ingest.floor.budgetUsPerEvent', () => true, '(reported: what 0.85 of the floor leaves)'],
  ['ingest.floor.cpuUsPerEvent', () => true, '(reported: the floor, us/event)'],
  ['ingest.floor.ratioBound', () => true, "(reported: the floor's ratio)"],
  ['ingest.floor.single.sequencerBesidesSignatureUsPerPost', () => true, '(reported: ours, CPU us/post)'],
  ['ingest.floor.single.budgetUsPerPost', () => true, '(reported: what 6,000/s leaves)'],
  ['ingest.floor.single.cpuUsPerPost', () => true, '(reported: the floor, us/post)'],
  ['ingest.floor.single.boundPostsPerSec', () => true, "(reported: the floor's posts/s)"],
  // Open loop (bench/ingest-latency.ts): Poisson arrivals at 50% and 80% of the best rate of the run.
  ['ingest.latency.single50.p50Ms', () => true, '(reported: single posts, 50% load)'],
  ['ingest.latency.single50.p99Ms', (v) => v <= 50, '<= 50 ms (single posts, 50% load)'],
  ['ingest.latency.single50.p999Ms', () => true, '(reported: single posts, 50% load)'],
  ['ingest.latency.single80.p50Ms', () => true, '(reported: single posts, 80% load)'],
  ['ingest.latency.single80.p99Ms', () => true, '(reported: single posts, 80% load)'],
  ['ingest.latency.single80.p999Ms', () => true, '(reported: single posts, 80% load)'],
  ['ingest.latency.batch50.p50Ms', () => true, '(reported: batches, 50% load)'],
  ['ingest.latency.batch50.p99Ms', (v) => v <= 50, '<= 50 ms (batches of 100, 50% load)'],
  ['ingest.latency.batch50.p999Ms', () => true, '(reported: batches, 50% load)'],
  ['ingest.latency.batch80.p50Ms', () => true, '(reported: batches, 80% load)'],
  ['ingest.latency.batch80.p99Ms', () => true, '(reported: batches, 80% load)'],
  ['ingest.latency.batch80.p999Ms', () => true, '(reported: batches, 80% load)'],
  ['verify.ratioToVerifyLimit', (v) => v >= 0.9, '>= 0.9'],
  ['verify.floor.ratioBound', () => true, "(reported: the floor's ratio)"],
  ['verify.floor.besidesSignatureUsPerEvent', () => true, '(reported: the floor, us/event)'],
  ['verify.floor.oursBesidesSignatureUsPerEvent', () => true, '(reported: ours, CPU us/event)'],
  ['verify.floor.budgetUsPerEvent', () => true, '(reported: what 0.9 leaves)'],
  ['verify.peakRssMB', (v) => v <= 256, '<= 256 MB'],
  ['append.ratioToFloor', (v) => v >= 0.85, '>= 0.85 (vs the LevelDB floor, synced)'],
  ['append.cpuPerBlockRatioToFloor', () => true, '(reported: CPU/block vs the floor)'],
  ['append.floor.floorCpuPerBlockRatioToHypercore', () => true, "(reported: the floor's CPU/block vs hypercore)"],
  ['append.cpuPerBlockRatioToHypercore', (v) => v <= 1, '<= 1 (CPU/block vs hypercore)'],
  ['append.syncedRatioToHypercore', (v) => v >= 1.5, '>= 1.5 (both synced)'],
  ['append.unsyncedRatioToHypercore', () => true, '(reported: both unsynced)'],
  ['append.steadyState.cpuPerBlockRatioToHypercore', (v) => v <= 1, '<= 1 (steady state: runs of 300,000 blocks)'],
  ['append.steadyState.ratioToHypercore', (v) => v >= 1.5, '>= 1.5 (steady state, both synced)'],
  ['witness.ratioToCryptoLimit', (v) => v >= 0.7, '>= 0.7'],
  // docs/design.md §13: the witness over HTTP too; CPU per request is what bench:ab compares (docs/benchmarks.md)
  ['c2sp.witnessRatioToCryptoLimit', (v) => v >= 0.7, '>= 0.7 (tlog-witness HTTP)'],
  ['witness.cpuUsPerRequest', () => true, '(reported: witness CPU us/request, libp2p)'],
  ['c2sp.witnessCpuUsPerRequest', () => true, '(reported: witness CPU us/request, C2SP HTTP)'],
  // ML-DSA-44 (docs/post-quantum.md): per backend, node:crypto on Node 24 when this Node lacks it
  ['mldsa.backends.noble.signPerSec', () => true, '(reported: noble, signs/s)'],
  ['mldsa.backends.noble.verifyPerSec', () => true, '(reported: noble, verifies/s)'],
  ['mldsa.backends.node.signPerSec', () => true, '(reported: node:crypto, signs/s)'],
  ['mldsa.backends.node.verifyPerSec', () => true, '(reported: node:crypto, verifies/s)'],
  ['mldsa.witnessBothKeysPerSec', () => true, '(reported: add-checkpoint/s, 2 keys)'],
  ['mldsa.ratioToCryptoLimit', () => true, '(reported: vs its crypto limit)'],
  ['witness.withLogNote.ratioToCryptoLimit', (v) => v >= 0.7, '>= 0.7 (checkpoints with the log note signature)'],
  [
    'checkpoint.p99Ms',
    (v, r) => typeof get(r, 'checkpoint.intervalMs') === 'number' && v <= (get(r, 'checkpoint.intervalMs') as number) + 50,
    '<= interval + 50 ms',
  ],
];

function get(o: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((a, k) => (a && typeof a === 'object' ? (a as Record<string, unknown>)[k] : undefined), o);
}

/**
 * Every `limitsAgree: false` in the results, one line per section: the paths where it was found and
 * their limitSpread (max/min of that figure's limits). The `pairs` lists are not searched.
 */
export function limitsDisagree(results: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const [section, r] of Object.entries(results)) {
    const found: string[] = [];
    const walk = (o: unknown, at: string, depth: number) => {
      if (!o || typeof o !== 'object' || Array.isArray(o) || depth > 4) return;
      const x = o as Record<string, unknown>;
      if (x.limitsAgree === false) found.push(`${at} (limitSpread ${String(x.limitSpread ?? '?')})`);
      for (const [k, v] of Object.entries(x)) if (k !== 'pairs') walk(v, `${at}.${k}`, depth + 1);
    };
    walk(r, section, 0);
    if (found.length > 0) lines.push(`${section}: ${found.join(', ')}`);
  }
  return lines;
}

/**
 * The monitor's pairs served apart from the run before, dated, when this run left them out
 * (COOKWALA_BENCH_MONITOR_APART=0, bench/monitor.ts): like the opt-in 10^7 verify run, a
 * measurement of its own that a shorter run does not erase.
 */
export function keptServedApart(before: unknown, now: Record<string, unknown>): Record<string, unknown> {
  const b = before as { servedApart?: Record<string, unknown>; measuredAt?: string } | undefined;
  if (now.servedApart !== undefined || b?.servedApart === undefined) return {};
  const servedApart: Record<string, unknown> = { ...b.servedApart, measuredAt: b.servedApart.measuredAt ?? b.measuredAt };
  return { servedApart, ratioToVerifyServedApart: servedApart.ratioToVerify };
}

/**
 * One section's result. Each runs in a child process of its own (this file with --section), so
 * no section measures the leftovers of those before it: their heap (a grown old generation makes
 * every later collection dearer), stores, workers or timers: the witness section run after all
 * the others in one process spent visibly more CPU a request than alone. COOKWALA_BENCH_IN_PROCESS=1 runs them all in this process.
 */
async function runSection(name: string, quick: boolean, limits: Limits): Promise<Record<string, unknown>> {
  if (process.env.COOKWALA_BENCH_IN_PROCESS === '1') return (await SECTIONS[name]()).run({ quick, limits });
  const dir = await mkdtemp(join(tmpdir(), 'cookwala-bench-section-'));
  const out = join(dir, 'result.json');
  try {
    const args = [...process.execArgv, fileURLToPath(import.meta.url), '--section', name, '--result', out, ...(quick ? ['--quick'] : [])];
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        stdio: ['ignore', 'inherit', 'inherit'],
        env: { ...process.env, COOKWALA_BENCH_LIMITS: JSON.stringify(limits) },
      });
      child.on('error', reject);
      child.on('exit', (c, sig) => resolve(sig ? -1 : c));
    });
    const text = await readFile(out, 'utf8').catch(() => undefined);
    if (code !== 0 || text === undefined) throw new Error(`section ${name}: its process exited ${code} without a result`);
    const r = JSON.parse(text) as { ok: true; value: Record<string, unknown> } | { ok: false; error: string };
    if (!r.ok) throw new Error(r.error);
    return r.value;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The child side of runSection: run one section, write {ok, value | error} to the result file, exit. */
async function sectionChild(argv: string[]): Promise<number> {
  const name = argv[argv.indexOf('--section') + 1];
  const out = argv[argv.indexOf('--result') + 1];
  const limits = JSON.parse(process.env.COOKWALA_BENCH_LIMITS ?? '{}') as Limits;
  let result: unknown;
  try {
    result = { ok: true, value: await (await SECTIONS[name]()).run({ quick: argv.includes('--quick'), limits }) };
  } catch (e) {
    result = { ok: false, error: String((e as Error)?.stack ?? e) };
  }
  await writeFile(out, JSON.stringify(result));
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const quick = argv.includes('--quick');
  const onlyIdx = argv.indexOf('--only');
  const only =
    onlyIdx >= 0
      ? argv[onlyIdx + 1].split(',')
      : Object.keys(SECTIONS).filter((s) => s !== 'verifyHostile' && s !== 'c2spCheckpoint' && s !== 'verify7'); // the verify and c2sp sections run them
  const outIdx = argv.indexOf('--out');
  const file = outIdx >= 0 ? argv[outIdx + 1] : quick ? QUICK_RESULTS : RESULTS;
  let results: Record<string, unknown> = {};
  try {
    results = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    results = {};
  }
  const limits: Limits = {};
  const order = only.includes('crypto') ? ['crypto', ...only.filter((s) => s !== 'crypto')] : only;
  for (const name of order) {
    const load = SECTIONS[name];
    if (!load) {
      console.error(`unknown section ${name}`);
      return 2;
    }
    process.stderr.write(`bench: ${name}${quick ? ' (quick)' : ''}…\n`);
    const t0 = Date.now();
    try {
      const r = await runSection(name, quick, limits);
      if (name === 'crypto') limits.ed25519VerifyPerSecAllCores = r.ed25519VerifyPerSecAllCores as number;
      if (name === 'verifyHostile')
        results.verify = {
          ...(results.verify as object | undefined),
          ...r,
          hostileMeasuredAt: new Date().toISOString(),
          hostileQuick: quick,
        };
      else if (name === 'verify7')
        results.verify = { ...(results.verify as object | undefined), at1e7: { ...r, measuredAt: new Date().toISOString() } };
      else if (name === 'c2spCheckpoint')
        results.c2sp = {
          ...(results.c2sp as object | undefined),
          ...r,
          checkpointMeasuredAt: new Date().toISOString(),
          checkpointQuick: quick,
        };
      else {
        // The opt-in 10^7 verify run (verify7) is kept when the verify section runs again: it is
        // its own, dated, measurement.
        const at1e7 = name === 'verify' ? (results.verify as { at1e7?: unknown } | undefined)?.at1e7 : undefined;
        results[name] = {
          ...r,
          ...(at1e7 !== undefined ? { at1e7 } : {}),
          ...(name === 'monitor' ? keptServedApart(results.monitor, r) : {}),
          quick,
          measuredAt: new Date().toISOString(),
          seconds: Math.round((Date.now() - t0) / 100) / 10,
        };
      }
    } catch (e) {
      results[name] = {
        error: String((e as Error)?.stack ?? e)
          .split('\n')
          .slice(0, 3)
          .join(' | '),
        quick,
        measuredAt: new Date().toISOString(),
      };
    }
    await writeFile(file, JSON.stringify(results, null, 2) + '\n');
  }
  const rows = TARGETS.map(([k, okf, text]) => {
    const v = get(results, k);
    const verdict = typeof v === 'number' ? (okf(v, results) ? 'ok' : 'SHORT') : 'not run';
    return `${k.padEnd(36)} ${String(v ?? '-').padStart(12)}  ${text.padEnd(34)} ${verdict}`;
  });
  console.log(`${'key'.padEnd(36)} ${'value'.padStart(12)}  ${'target'.padEnd(34)} verdict\n${rows.join('\n')}`);
  const disagree = limitsDisagree(results);
  if (disagree.length > 0) console.log('');
  for (const d of disagree) console.log(`limits disagree by more than 20%: ${d}`);
  console.log(`\nwritten: ${file}`);
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  // A section's child exits as soon as its result is written: whatever it left running ends with it.
  if (argv.includes('--section')) process.exit(await sectionChild(argv));
  process.exitCode = await main(argv);
}
