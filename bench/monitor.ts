// bench/monitor.ts: the `monitor` section of bench/results.json (docs/design.md §13,
// docs/monitoring.md). One of our logs served by a real `cookwala sequencer` child process
// (LevelDB, hash_only, quorum 0, checkpoints every second), filled over HTTP with 10^6 events
// (quick: 10^4) in signed batches of 100 from 16 devices, then exported as a bundle
// (`cookwala export --url`). Measured:
// 1. catch-up, in interleaved pairs (bench/pairs.ts; a quick run in pages of 1,000 entries): `cookwala verify` on the exported bundle
//    (bench/verify-child.ts, the limit) and a monitor catching up the same log from an empty state
//    (bench/monitor-child.ts, what `cookwala monitor --once` runs, reading the sequencer over
//    HTTP); ratioToVerify = the monitor's entries/s over verify's (target >= 0.9), with the CPU
//    per entry of each (catchUpCpuUsPerEntry, verifyCpuUsPerEntry) and of the sequencer serving
//    the monitor's reads meanwhile (catchUpServeCpuUsPerEntry, /proc), on the same cores; cpuRatioToVerify is
//    verify's CPU an entry over the monitor's; then the same pairs with the log served apart (the sequencer
//    on cores of its own, bench/monitor-apart.ts): ratioToVerifyServedApart; then the same pairs with
//    the monitor reading a static copy of the log (`cookwala tiles --entries`) that nginx serves,
//    on the same cores (bench/monitor-static.ts): ratioToVerifyFromCopy;
// 2. steady state: a `cookwala monitor` child that has caught up follows the log while events
//    trickle in (TRICKLE_PER_SEC in batches of 10); its process CPU time (/proc) over the entries
//    it verified in that time is cpuUsPerEntry;
// 3. state size on disk: the state file after the catch-up (stateBytes at the log's size), and at
//    10^7 entries a state of the monitor built at that size from the caught-up one: the Merkle
//    frontier of 10^7 leaves (one node per set bit of the size, its hashes from a frontier over
//    synthetic leaves), the subject list at its cap and the (source, id) window full; everything
//    else in it does not depend on the size. The quick run also measures 10^5 for the state size.
// COOKWALA_BENCH_MONITOR_EVENTS=N fills the log with N events instead (10^5 profiles the
// catch-up at a size its start-up does not dominate, in a few minutes); the catch-up then reads
// full pages of 10,000, as the full run does, even with --quick. With COOKWALA_BENCH_CPU_PROF=DIR
// the verify children write their profiles too (DIR/verify), beside the monitor's (DIR/monitor).
// Each child also reports its CPU by thread (bench/thread-cpu.ts: main, signature workers, the
// rest), per entry in pairList and verifyThreadsUsPerEntry, and its collector's pauses
// (bench/gc-watch.ts); COOKWALA_BENCH_MONITOR_ALT=DIR adds a
// before/after comparison with another checkout's monitor on the same log (bench/monitor-ab.ts);
// COOKWALA_BENCH_MONITOR_APART=0 leaves out the pairs served apart (at 10^6 entries, two thirds of
// the section's time: each side then runs on one core); COOKWALA_BENCH_MONITOR_COPY=0 those from the
// static copy.
// Leaves out: witnesses (quorum 0: the cosignature checks are the checkpoint's, per step, not per
// entry), erasures.

import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { initDataDir } from '../sequencer/data-dir.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { freePort } from '../testkit/net.ts';
import { readLogLines } from '../platform/logger.ts';
import { statePath, type LogState } from '../monitor/index.ts';
import { measurePairs } from './pairs.ts';
import { stateBytesAt } from './monitor-state-size.ts';
import { runJsonChild } from './json-child.ts';
import type { ThreadCpu } from './thread-cpu.ts';
import type { GcPauses } from './gc-watch.ts';
import { abRounds, altDir, threadsPerEntry } from './monitor-ab.ts';
import { servedApart } from './monitor-apart.ts';
import { fromStaticCopy } from './monitor-static.ts';
import { httpClient, LOG, logPath, procCpuMs, registerAndFill, servedSize, waitFor } from './monitor-log.ts';

export { LOG } from './monitor-log.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HERE = fileURLToPath(new URL('.', import.meta.url));
export const TRICKLE_PER_SEC = 200;
export const MONITOR_TARGET = 0.9;
const QUICK_PAGE_ENTRIES = 1000;
const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

interface VerifyResult {
  ms: number;
  cpuMs: number;
  entries: number;
  exitCode: number;
  failures: number;
  peakRssMB: number;
  threadCpu?: ThreadCpu;
  gc?: GcPauses;
}
interface MonitorResult {
  ms: number;
  cpuMs: number;
  entries: number;
  size: number;
  problems: number;
  findings: unknown[];
  peakRssMB: number;
  threadCpu?: ThreadCpu;
  poolStats?: { items: number; messages: number; size: number };
}

/** A child node process of this checkout (or of `cwd`); resolved at its first `listening` line (when `listening`). */
export function startChild(args: string[], onLine?: (r: Record<string, unknown>) => void, cwd = ROOT): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let buf = '';
  let err = '';
  let up = false;
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      buf += d;
      const cut = buf.lastIndexOf('\n');
      if (cut < 0) return;
      const text = buf.slice(0, cut + 1);
      buf = buf.slice(cut + 1);
      for (const r of readLogLines(text)) {
        onLine?.(r as unknown as Record<string, unknown>);
        if (!up && r.event === 'listening') {
          up = true;
          resolve(child);
        }
      }
    });
    child.stderr!.on('data', (d) => (err = (err + d).slice(-4000)));
    child.once('exit', (code) => reject(new Error(`${args.slice(0, 3).join(' ')} exited with ${code}: ${err}`)));
  });
}

/** COOKWALA_BENCH_MONITOR_EVENTS: the log's size for a profile at a chosen scale (see the header). */
function eventsKnob(): number | undefined {
  const v = process.env.COOKWALA_BENCH_MONITOR_EVENTS;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`COOKWALA_BENCH_MONITOR_EVENTS is a positive integer, not ${v}`);
  return n;
}

export async function run(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const knob = eventsKnob();
  const events = knob ?? (ctx.quick ? 10_000 : 1_000_000);
  const trickleSeconds = ctx.quick ? 5 : 20;
  const dir = await makeTempDir('cookwala-bench-monitor-');
  let seq: ChildProcess | undefined;
  let follower: ChildProcess | undefined;
  const data = join(dir, 'data');
  try {
    await initDataDir({ dir: data, logs: [LOG], mode: 'hash_only' });
    const token = (await readFile(join(data, 'operator.token'), 'utf8')).trim();
    const port = await freePort();
    // COOKWALA_BENCH_CPU_PROF=DIR: the sequencer's profile too (DIR/monitor-sequencer; it covers the fill as well).
    const seqProf = process.env.COOKWALA_BENCH_CPU_PROF;
    seq = await startChild([
      ...(seqProf ? ['--cpu-prof', `--cpu-prof-dir=${join(seqProf, 'monitor-sequencer')}`] : []),
      'bin/cookwala.js',
      'sequencer',
      '--data',
      data,
      '--port',
      String(port),
    ]);
    const base = `http://127.0.0.1:${port}`;
    const http = httpClient(port);
    const { streams, fillSeconds, size } = await registerAndFill(http, token, events);
    const policy = join(data, 'policy.json');
    const bundle = join(dir, 'bundle.ndjson');
    await new Promise<void>((resolve, reject) => {
      const c = spawn(process.execPath, ['bin/cookwala.js', 'export', '--url', base, '--log', LOG, '--out', bundle], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      c.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`export exited ${code}`))));
    });
    const config = join(dir, 'monitor.json');
    await writeFile(
      config,
      JSON.stringify({
        kind: 'MonitorConfig',
        logs: [{ origin: LOG, kind: 'cookwala', url: base, policy }],
        intervalMs: 1000,
        // A quick run reads its 10^4 entries in ten pages, not one, so that reading a page while
        // checking the one before shows as it does over the hundred pages of 10^6.
        // A size set by COOKWALA_BENCH_MONITOR_EVENTS reads full pages.
        ...(ctx.quick && knob === undefined ? { pageEntries: QUICK_PAGE_ENTRIES } : {}),
      }),
    );
    let run = 0;
    const stateDirs: string[] = [];
    const verifyCpuUs: number[] = [];
    const verifyThreads: Array<ReturnType<typeof threadsPerEntry>> = [];
    const runVerify = async (cpus?: string) => {
      const prof = process.env.COOKWALA_BENCH_CPU_PROF;
      const r = await runJsonChild<VerifyResult>(
        join(HERE, 'verify-child.ts'),
        [bundle, policy],
        'verify',
        prof ? ['--cpu-prof', `--cpu-prof-dir=${join(prof, 'verify')}`] : [],
        process.execPath,
        cpus,
      );
      if (r.exitCode !== 0) throw new Error(`the exported bundle did not verify (${r.failures} failures)`);
      return r;
    };
    const runMonitor = async (script = join(HERE, 'monitor-child.ts'), nodeArgs: string[] = [], cpus?: string, cfg = config) => {
      const state = join(dir, `state-${run++}`);
      stateDirs.push(state);
      const prof = process.env.COOKWALA_BENCH_CPU_PROF;
      const serve0 = procCpuMs(seq!.pid!);
      const r = await runJsonChild<MonitorResult>(
        script,
        [cfg, state],
        'monitor',
        [...nodeArgs, ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${join(prof, 'monitor')}`] : [])],
        process.execPath,
        cpus,
      );
      const serveCpuMs = procCpuMs(seq!.pid!) - serve0;
      if (r.problems !== 0 || r.size < size) throw new Error(`the monitor did not catch up cleanly: ${JSON.stringify(r)}`);
      return { ...r, serveCpuMs };
    };
    const pairs = await measurePairs(
      3,
      async () => {
        const r = await runVerify();
        verifyCpuUs.push((1000 * r.cpuMs) / r.entries);
        verifyThreads.push(threadsPerEntry(r.threadCpu, r.entries));
        return Math.round((r.entries * 1000) / r.ms);
      },
      async () => {
        const r = await runMonitor();
        return { value: Math.round((r.entries * 1000) / r.ms), extra: r };
      },
    );
    const apart = process.env.COOKWALA_BENCH_MONITOR_APART === '0' ? undefined : await servedApart(seq.pid!, runVerify, runMonitor);
    const fromCopy =
      process.env.COOKWALA_BENCH_MONITOR_COPY === '0'
        ? undefined
        : await fromStaticCopy(
            {
              dir,
              base,
              log: LOG,
              policy,
              pageEntries: ctx.quick && knob === undefined ? QUICK_PAGE_ENTRIES : undefined,
            },
            runVerify,
            (cfg) => runMonitor(undefined, [], undefined, cfg),
          );
    const alt = altDir();
    const ab = alt ? await abRounds(alt, runVerify, runMonitor, join(HERE, 'monitor-child.ts')) : undefined;
    const caughtUp = stateDirs[stateDirs.length - 1];
    const stateFile = statePath(caughtUp, LOG);
    const stateBytes = (await stat(stateFile)).size;
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as LogState;

    // Steady state: the CLI monitor follows while events trickle in.
    let verifiedTo = 0;
    let verifiedEntries = 0;
    const reported: unknown[] = [];
    const mport = await freePort();
    follower = await startChild(
      ['bin/cookwala.js', 'monitor', '--config', config, '--state', caughtUp, '--listen', `127.0.0.1:${mport}`],
      (r) => {
        if (r.event === 'checkpoint_verified') {
          verifiedTo = Number(r.seq);
          verifiedEntries += Number(r.entries);
        }
        if (r.level === 'warn' || r.level === 'error') reported.push(r);
      },
    );
    const cpu0 = procCpuMs(follower.pid!);
    const counted0 = verifiedEntries;
    const every = 50;
    const perTick = Math.max(1, Math.round((TRICKLE_PER_SEC * every) / 1000));
    let posted = 0;
    const tEnd = Date.now() + trickleSeconds * 1000;
    let tick = 0;
    while (Date.now() < tEnd) {
      const s = streams[tick % streams.length];
      const body = Buffer.from(JSON.stringify(Array.from({ length: perTick }, (_, k) => s.next(`t-${tick % 64}`, { data: { step: k } }))));
      const r = await http.call('POST', logPath('/events'), body, {
        'content-type': 'application/cloudevents-batch+json',
        'idempotency-key': `t-${tick++}`,
      });
      if (r.status !== 200) throw new Error(`trickle: ${r.status} ${r.body.slice(0, 200)}`);
      posted += perTick;
      await new Promise((res) => setTimeout(res, every)); // the trickle's own pace
    }
    const last = size + posted;
    await waitFor('the monitor to verify the trickle', 60_000, async () =>
      (await servedSize(http)) >= last && verifiedTo >= last ? true : undefined,
    );
    const cpu1 = procCpuMs(follower.pid!);
    if (reported.length > 0) throw new Error(`the following monitor reported ${JSON.stringify(reported.slice(0, 3))}`);
    const steadyEntries = verifiedEntries - counted0;
    follower.kill('SIGTERM');
    http.close();

    const at1e7 = await stateBytesAt(join(dir, 'state-1e7'), state, 10_000_000, 10_000);
    const atQuick = ctx.quick ? await stateBytesAt(join(dir, 'state-1e5'), state, 100_000, 10_000) : undefined;
    const m = pairs.median.extra!;
    return {
      events,
      size,
      fillSeconds: round(fillSeconds, 1),
      entriesPerSec: pairs.median.figure,
      verifyEntriesPerSec: pairs.median.limit,
      ratioToVerify: pairs.ratio,
      ratioSpread: pairs.ratioSpread,
      limitSpread: pairs.limitSpread,
      limitsAgree: pairs.limitsAgree,
      pairList: pairs.pairs.map((p) => ({
        verifyEntriesPerSec: p.limit,
        entriesPerSec: p.figure,
        ratio: p.ratio,
        ms: p.extra!.ms,
        cpuMs: p.extra!.cpuMs,
        serveCpuMs: p.extra!.serveCpuMs,
        peakRssMB: p.extra!.peakRssMB,
        threadsUsPerEntry: threadsPerEntry(p.extra!.threadCpu, p.extra!.entries),
        checksPerMessage: p.extra!.poolStats ? round(p.extra!.poolStats.items / Math.max(1, p.extra!.poolStats.messages), 1) : undefined,
      })),
      verifyThreadsUsPerEntry: verifyThreads,
      ...(ab ? { ab } : {}),
      catchUpCpuUsPerEntry: round((1000 * m.cpuMs) / m.entries, 1),
      catchUpServeCpuUsPerEntry: round((1000 * m.serveCpuMs) / m.entries, 1),
      verifyCpuUsPerEntry: round(verifyCpuUs.sort((a, b) => a - b)[verifyCpuUs.length >> 1], 1),
      cpuRatioToVerify: round(verifyCpuUs[verifyCpuUs.length >> 1] / ((1000 * m.cpuMs) / m.entries), 3),
      catchUpPeakRssMB: m.peakRssMB,
      ...(apart ? { ratioToVerifyServedApart: apart.ratioToVerify, servedApart: apart } : {}),
      ...(fromCopy ? { ...('ratioToVerify' in fromCopy ? { ratioToVerifyFromCopy: fromCopy.ratioToVerify } : {}), fromCopy } : {}),
      steady: {
        perSec: TRICKLE_PER_SEC,
        seconds: trickleSeconds,
        entries: steadyEntries,
        cpuMs: cpu1 - cpu0,
      },
      steadyCpuUsPerEntry: steadyEntries > 0 ? round((1000 * (cpu1 - cpu0)) / steadyEntries, 1) : undefined,
      [knob !== undefined ? 'stateBytesAtEvents' : ctx.quick ? 'stateBytesAt1e4' : 'stateBytesAt1e6']: stateBytes,
      ...(atQuick !== undefined ? { stateBytesAt1e5: atQuick } : {}),
      stateBytesAt1e7: at1e7,
      stateBytesAt1e7How: 'built from the caught-up state: frontier of 10^7 leaves, subjects at their cap, (source, id) window full',
    };
  } finally {
    follower?.kill('SIGKILL');
    if (seq && process.env.COOKWALA_BENCH_CPU_PROF && seq.exitCode === null) {
      // A profile is written at a clean exit only.
      const exited = new Promise((r) => seq!.once('exit', r));
      seq.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
    }
    seq?.kill('SIGKILL');
    await rm(join(dir, 'bundle.ndjson'), { force: true });
    await removeDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
