// bench/monitor-apart.ts: the monitor section's catch-up with the log served apart (bench/monitor.ts,
// docs/design.md §13). The same interleaved pairs as the section's headline (`cookwala verify` on the
// exported bundle, then a monitor catching up the same log from an empty state), with the running
// sequencer held to the cores from 1 on (`taskset -a -p`: every thread of the process) and both
// children started on core 0 (`taskset -c 0`), as when an auditor's monitor reads a log served from
// another machine: the sequencer's work serving the pages then takes nothing from the monitor's core.
// Each child sees one core (os.availableParallelism() follows the affinity), so verify and the
// monitor each run one signature worker beside their main thread. Leaves out: hosts with fewer than
// two cores (no rows). Invariant: the sequencer's affinity is given back to every core however the
// pairs end.

import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { measurePairs, type PairsResult } from './pairs.ts';
import type { ThreadCpu } from './thread-cpu.ts';
import { threadsPerEntry } from './monitor-ab.ts';

/** Where the children run: one core, the first. */
export const CHILD_CPUS = '0';

function setAffinity(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/**
 * Pairs of `limit` (verify) and `figure` (the monitor), each given the cores its child runs on, while
 * the process `servePid` serves from the other cores. Undefined on a host with one core.
 */
export async function pairsServedApart<E>(
  servePid: number,
  n: number,
  limit: (cpus: string) => Promise<number>,
  figure: (cpus: string) => Promise<{ value: number; extra: E }>,
): Promise<PairsResult<E> | undefined> {
  const cores = availableParallelism();
  if (cores < 2) return undefined;
  setAffinity(servePid, `1-${cores - 1}`);
  try {
    return await measurePairs(
      n,
      () => limit(CHILD_CPUS),
      () => figure(CHILD_CPUS),
    );
  } finally {
    setAffinity(servePid, `0-${cores - 1}`);
  }
}

export interface ChildRun {
  entries: number;
  ms: number;
  cpuMs: number;
  threadCpu?: ThreadCpu;
}

const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;
export const usPerEntry = (ms: number, entries: number) => round((1000 * ms) / entries, 1);

/** The section's served-apart rows: three pairs, the ratio of the median pair and each side's CPU an entry. */
export async function servedApart(
  servePid: number,
  runVerify: (cpus?: string) => Promise<ChildRun>,
  runMonitor: (script?: string, nodeArgs?: string[], cpus?: string) => Promise<ChildRun & { serveCpuMs: number }>,
) {
  const verifyUs: number[] = [];
  const pairs = await pairsServedApart(
    servePid,
    3,
    async (cpus) => {
      const r = await runVerify(cpus);
      verifyUs.push(usPerEntry(r.cpuMs, r.entries));
      return Math.round((r.entries * 1000) / r.ms);
    },
    async (cpus) => {
      const r = await runMonitor(undefined, [], cpus);
      return { value: Math.round((r.entries * 1000) / r.ms), extra: r };
    },
  );
  if (!pairs) return undefined;
  const m = pairs.median.extra!;
  return {
    how: `sequencer on cores 1.., verify and the monitor each on core ${CHILD_CPUS} (taskset)`,
    ...catchUpRows(pairs, verifyUs, () => ({})),
    serveCpuUsPerEntry: usPerEntry(m.serveCpuMs, m.entries),
  };
}

/**
 * The rows every set of catch-up pairs reports (this file's, bench/monitor-static.ts's): the ratio
 * of the median pair and the spreads, each side's rate and CPU an entry, and per pair those
 * figures with `more` of the pair's own.
 */
export function catchUpRows<E extends ChildRun>(pairs: PairsResult<E>, verifyUs: number[], more: (e: E) => Record<string, unknown>) {
  const m = pairs.median.extra!;
  return {
    ratioToVerify: pairs.ratio,
    ratioSpread: pairs.ratioSpread,
    limitSpread: pairs.limitSpread,
    limitsAgree: pairs.limitsAgree,
    entriesPerSec: pairs.median.figure,
    verifyEntriesPerSec: pairs.median.limit,
    cpuUsPerEntry: usPerEntry(m.cpuMs, m.entries),
    verifyCpuUsPerEntry: [...verifyUs].sort((a, b) => a - b)[verifyUs.length >> 1],
    pairList: pairs.pairs.map((p) => ({
      verifyEntriesPerSec: p.limit,
      entriesPerSec: p.figure,
      ratio: p.ratio,
      cpuUsPerEntry: usPerEntry(p.extra!.cpuMs, p.extra!.entries),
      ...more(p.extra!),
      threadsUsPerEntry: threadsPerEntry(p.extra!.threadCpu, p.extra!.entries),
    })),
  };
}
