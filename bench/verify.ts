// bench/verify.ts: the `verify` section of bench/results.json (docs/design.md §13):
// the offline verifier over generated bundles (testkit/log-generator.ts: real signatures, erasures,
// checkpoints cosigned by 3 witnesses) of 10^5 and 10^6 events (quick: 10^4 and 10^5), each
// verified in a child process (bench/verify-child.ts, the code path of `cookwala verify`, started
// with the heap flags the command runs under: bin/heap-bounds.js) that reports its wall time, CPU
// time and peak RSS. The largest bundle is verified in interleaved pairs
// with its limit, node:crypto Ed25519 verify/s on all cores (bench/pairs.ts: limit, verify, limit,
// verify, …, 3 pairs), and the median pair's ratio is reported with the spreads; the smaller bundle
// is verified once (first, which also warms the page cache) for the flatness of memory. peakRssMB is
// the largest peak of the verify child over all runs of the largest bundle. Targets: ratio >= 0.9,
// peak RSS <= 256 MB and flat as the bundle grows. The hostile inputs are bench/verify-hostile.ts.
// The floor (bench/verify-floor-child.ts: JSON.parse, one hash a line and every signature, with
// none of the verifier's other checks) is measured over the same bundle in pairs of its own, and
// `floor.ratioBound` is the most any verifier doing more could reach on the host.

import { createWriteStream } from 'node:fs';
import { rm, writeFile, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { join, dirname } from 'node:path';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { generateLog } from '../testkit/log-generator.ts';
import { verifyPerSecAllCores } from './crypto.ts';
import { measurePairs } from './pairs.ts';
import { runHostile } from './verify-hostile.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { runJsonChild } from './json-child.ts';
import { BOUNDED_HEAP } from '../bin/heap-bounds.js';
import type { FloorResult } from './verify-floor-child.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

interface ChildResult {
  ms: number;
  entries: number;
  exitCode: number;
  failures: number;
  peakRssMB: number;
  cpuMs?: number;
  startRssMB?: number;
  heapMB?: number;
  externalMB?: number;
  idSetBytes?: number;
}

async function writeBundle(dir: string, events: number): Promise<{ file: string; policy: string; genMs: number; bytes: number }> {
  const t0 = performance.now();
  const g = generateLog(benchLogShape(events));
  const file = join(dir, `bundle-${events}.ndjson`);
  const policy = join(dir, `policy-${events}.json`);
  const ws = createWriteStream(file);
  let buf = '';
  for (const line of g.lines()) {
    buf += line;
    if (buf.length > 1 << 20) {
      if (!ws.write(buf)) await once(ws, 'drain');
      buf = '';
    }
  }
  ws.write(buf);
  await new Promise<void>((r) => ws.end(r));
  await writeFile(policy, JSON.stringify(g.policy));
  return { file, policy, genMs: Math.round(performance.now() - t0), bytes: (await stat(file)).size };
}

/**
 * COOKWALA_BENCH_CPU_PROF=DIR: each verify child writes V8 CPU profiles (one a thread; its event
 * loop's ends in .0.001.cpuprofile) to DIR/verify, for bench/cpu-profile.ts --per ENTRIES.
 */
function verifyInChild(file: string, policy: string): Promise<ChildResult> {
  const prof = process.env.COOKWALA_BENCH_CPU_PROF;
  return runJsonChild(join(HERE, 'verify-child.ts'), [file, policy], 'verify', [
    ...BOUNDED_HEAP.verify,
    ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${join(prof, 'verify')}`] : []),
  ]);
}

function floorInChild(file: string): Promise<FloorResult> {
  return runJsonChild(join(HERE, 'verify-floor-child.ts'), [file], 'verify floor');
}

/** The 0.9 of docs/design.md §13 for offline verify. */
/** The generated log the verify, browser and main-thread measurements read: one shape for all. */
export function benchLogShape(events: number) {
  return { events, checkpointEvery: Math.max(1000, Math.floor(events / 100)), eraseEvery: 1000, devices: 16, subjectsPerDevice: 8 };
}

export const VERIFY_TARGET = 0.9;

/**
 * What the floor says of ours (pure arithmetic, verify-floor.test.ts): one signature's CPU on `cores`
 * at the limit, the CPU per event of ours and of the floor besides it, what the target leaves
 * besides it (signature x (1/0.9 - 1)), and ours as a share of the floor's ratio.
 */
export function verifyFloorSummary(o: {
  events: number;
  cores: number;
  ours: { ratio: number; limit: number; cpuMs: number };
  floor: {
    ratio: number;
    limit: number;
    eventsPerSec: number;
    cpuMs: number;
    ratioSpread: number[];
    limitsAgree: boolean;
    peakRssMB: number;
  };
}) {
  const signature = (1e6 * o.cores) / o.floor.limit;
  const ours = (1000 * o.ours.cpuMs) / o.events;
  const floor = (1000 * o.floor.cpuMs) / o.events;
  return {
    eventsPerSec: o.floor.eventsPerSec,
    ratioBound: o.floor.ratio,
    ratioSpread: o.floor.ratioSpread,
    limitsAgree: o.floor.limitsAgree,
    peakRssMB: o.floor.peakRssMB,
    signatureCpuUsPerEvent: round(signature, 1),
    cpuUsPerEvent: round(floor, 1),
    besidesSignatureUsPerEvent: round(floor - signature, 1),
    oursCpuUsPerEvent: round(ours, 1),
    oursBesidesSignatureUsPerEvent: round(ours - (1e6 * o.cores) / o.ours.limit, 1),
    budgetUsPerEvent: round(signature * (1 / VERIFY_TARGET - 1), 1),
    oursShareOfBound: round(o.ours.ratio / o.floor.ratio, 3),
  };
}

export interface VerifyBenchCtx {
  quick: boolean;
  /** Bundle sizes, smallest first (default 10^5 and 10^6; quick 10^4 and 10^5); the last is paired. */
  sizes?: number[];
  /** Run the hostile inputs too (default true). */
  hostile?: boolean;
  /** Pairs of (limit, verify) on the largest bundle (default 3). */
  pairs?: number;
}

const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

export async function run(ctx: VerifyBenchCtx): Promise<Record<string, unknown>> {
  const sizes = ctx.sizes ?? (ctx.quick ? [10_000, 100_000] : [100_000, 1_000_000]);
  const limitMs = ctx.quick ? 300 : 1000;
  const dir = await makeTempDir('cookwala-bench-verify-');
  try {
    const bundles: Array<{ events: number; file: string; policy: string; genMs: number; bytes: number }> = [];
    for (const events of sizes) bundles.push({ events, ...(await writeBundle(dir, events)) });
    const checked = async (b: (typeof bundles)[number]) => {
      const r = await verifyInChild(b.file, b.policy);
      if (r.exitCode !== 0) throw new Error(`the generated bundle of ${b.events} events did not verify (${r.failures} failures)`);
      return r;
    };
    const others = [];
    for (const b of bundles.slice(0, -1)) {
      others.push({ ...(await checked(b)), events: b.events, genMs: b.genMs, bytes: b.bytes });
      await rm(b.file, { force: true });
    }
    const bigBundle = bundles[bundles.length - 1];
    const pairs = await measurePairs(
      ctx.pairs ?? 3,
      () => verifyPerSecAllCores(limitMs),
      async () => {
        const r = await checked(bigBundle);
        return { value: Math.round((bigBundle.events * 1000) / r.ms), extra: r };
      },
    );
    // The floor (verify-floor-child.ts) over the same bundle, in pairs with the limit of its own.
    const floorPairs = await measurePairs(
      ctx.pairs ?? 3,
      () => verifyPerSecAllCores(limitMs),
      async () => {
        const r = await floorInChild(bigBundle.file);
        if (r.good !== r.entries) throw new Error(`the verify floor found ${r.entries - r.good} bad signatures in the generated bundle`);
        return { value: Math.round((bigBundle.events * 1000) / r.ms), extra: r };
      },
    );
    const big = { ...pairs.median.extra!, events: bigBundle.events, genMs: bigBundle.genMs, bytes: bigBundle.bytes };
    const small = others[0] ?? big;
    const peakRssMB = Math.max(...pairs.pairs.map((p) => p.extra!.peakRssMB));
    return {
      eventsPerSec: pairs.median.figure,
      verifyPerSecAllCores: pairs.median.limit,
      ratioToVerifyLimit: pairs.ratio,
      ratioSpread: pairs.ratioSpread,
      limitSpread: pairs.limitSpread,
      limitsAgree: pairs.limitsAgree,
      pairs: pairs.pairs.length,
      pairList: pairs.pairs.map((p) => ({
        limit: p.limit,
        eventsPerSec: p.figure,
        ratio: p.ratio,
        ms: p.extra!.ms,
        cpuMs: p.extra!.cpuMs,
        peakRssMB: p.extra!.peakRssMB,
      })),
      peakRssMB,
      floor: verifyFloorSummary({
        events: bigBundle.events,
        cores: availableParallelism(),
        ours: { ratio: pairs.ratio, limit: pairs.median.limit, cpuMs: big.cpuMs ?? 0 },
        floor: {
          ratio: floorPairs.ratio,
          limit: floorPairs.median.limit,
          eventsPerSec: floorPairs.median.figure,
          cpuMs: floorPairs.median.extra!.cpuMs,
          ratioSpread: floorPairs.ratioSpread,
          limitsAgree: floorPairs.limitsAgree,
          peakRssMB: floorPairs.median.extra!.peakRssMB,
        },
      }),
      medianPairPeakRssMB: big.peakRssMB,
      [`peakRssMBAt${small.events === 100_000 ? '1e5' : small.events === 10_000 ? '1e4' : small.events}`]: small.peakRssMB,
      peakRssMBAt1e5: [...others, big].find((r) => r.events === 100_000)?.peakRssMB,
      rssGrowth: round(peakRssMB / small.peakRssMB, 2),
      events: big.events,
      runs: [...others, big].map((r) => ({
        events: r.events,
        entries: r.entries,
        ms: r.ms,
        eventsPerSec: Math.round((r.events * 1000) / r.ms),
        cpuMs: r.cpuMs,
        peakRssMB: r.peakRssMB,
        // what the peak is made of: Node + tsx + modules before verifying, main heap, ArrayBuffers
        startRssMB: r.startRssMB,
        heapMB: r.heapMB,
        externalMB: r.externalMB,
        idSetBytes: r.idSetBytes,
        bundleMB: Math.round(r.bytes / 1e5) / 10,
        generateMs: r.genMs,
      })),
      // hostilePeakRssMB and the hostile cases (bench/verify-hostile.ts)
      ...(ctx.hostile === false ? {} : await runHostile(ctx)),
    };
  } finally {
    await removeDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
