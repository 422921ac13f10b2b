// bench/monitor-ab.ts: a before/after comparison of the monitor's catch-up on one log, for the
// monitor section (bench/monitor.ts, docs/design.md §13). With COOKWALA_BENCH_MONITOR_ALT=DIR (another
// checkout, node_modules linked, whose bench/monitor-child.ts is the "before"), the section runs
// rounds of three children on the same log and sequencer: `cookwala verify` on the bundle, this
// checkout's monitor and DIR's, the order of the two monitors swapped every round (this first in
// even rounds), so both see the machine's noise alike. Each monitor is reported with its ratio to the
// verify of its round, its CPU per entry (process, and by thread where the child reports it: main,
// signature workers, the rest), the collector's pauses on its main thread and the sequencer's CPU
// serving it; verify's with the same split. Rounds:
// COOKWALA_BENCH_MONITOR_AB_ROUNDS (default 3). COOKWALA_BENCH_MONITOR_THIS_ARGS gives node flags to
// this checkout's monitor only (DIR may then be this same checkout, to judge a flag). Leaves out: a verdict (the figures are printed and
// recorded; judge them by their spread).

import { join } from 'node:path';
import type { ThreadCpu } from './thread-cpu.ts';
import type { GcPauses } from './gc-watch.ts';

const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

/** A child's CPU per entry by thread (bench/thread-cpu.ts), us. */
export function threadsPerEntry(t: ThreadCpu | undefined, entries: number) {
  if (!t || entries <= 0) return undefined;
  const us = (ms: number) => round((1000 * ms) / entries, 1);
  return { main: us(t.mainMs), workers: us(t.workersMs), other: us(t.otherMs), workerThreads: t.workers };
}

export interface AbMonitorRun {
  ms: number;
  cpuMs: number;
  entries: number;
  serveCpuMs: number;
  threadCpu?: ThreadCpu;
  gc?: GcPauses;
}

export function altDir(): string | undefined {
  const d = process.env.COOKWALA_BENCH_MONITOR_ALT;
  return d === undefined || d === '' ? undefined : d;
}

export async function abRounds(
  alt: string,
  runVerify: () => Promise<{ ms: number; entries: number; cpuMs: number; threadCpu?: ThreadCpu; gc?: GcPauses }>,
  runMonitor: (script: string, nodeArgs?: string[]) => Promise<AbMonitorRun>,
  thisScript: string,
) {
  const rounds = Number(process.env.COOKWALA_BENCH_MONITOR_AB_ROUNDS ?? 3);
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error('COOKWALA_BENCH_MONITOR_AB_ROUNDS is a positive integer');
  const altScript = join(alt, 'bench', 'monitor-child.ts');
  const thisArgs = (process.env.COOKWALA_BENCH_MONITOR_THIS_ARGS ?? '').split(' ').filter((a) => a !== '');
  const out = [];
  for (let i = 0; i < rounds; i++) {
    const v = await runVerify();
    const verifyRate = (v.entries * 1000) / v.ms;
    const side = async (script: string) => {
      const r = await runMonitor(script, script === thisScript ? thisArgs : []);
      return {
        ratio: round((r.entries * 1000) / r.ms / verifyRate, 3),
        cpuUsPerEntry: round((1000 * r.cpuMs) / r.entries, 1),
        serveCpuUsPerEntry: round((1000 * r.serveCpuMs) / r.entries, 1),
        threadsUsPerEntry: threadsPerEntry(r.threadCpu, r.entries),
        gc: r.gc,
      };
    };
    const first = i % 2 === 0 ? thisScript : altScript;
    const a = await side(first);
    const b = await side(first === thisScript ? altScript : thisScript);
    const [mine, theirs] = first === thisScript ? [a, b] : [b, a];
    out.push({
      verify: {
        cpuUsPerEntry: round((1000 * v.cpuMs) / v.entries, 1),
        threadsUsPerEntry: threadsPerEntry(v.threadCpu, v.entries),
        gc: v.gc,
      },
      this: mine,
      alt: theirs,
      thisFirst: first === thisScript,
    });
    process.stderr.write(`monitor a/b round ${i + 1}: ${JSON.stringify(out[out.length - 1])}\n`);
  }
  return { alt, rounds: out };
}
