// bench/proc-cpu.ts: CPU time of a process's threads from /proc (Linux: each task's comm, utime +
// stime in clock ticks of 10 ms), for the benches' "where the time goes" (docs/design.md §13), and a main
// thread's scheduler counters (schedstat: ns on a core and ns waiting in the run queue, as the
// kernel's sched-stats document them; involuntary switches from status), and this process's peak
// resident memory (VmHWM, every thread included). Leaves out:
// other systems (an empty map); a thread that ended between two readings loses its time.

import { readdirSync, readFileSync } from 'node:fs';

/** CPU ms per thread of process `pid` (this one by default), by `name#tid`, the main thread marked `(main)`. */
export function threadCpuMs(pid: number = process.pid): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}#${tid}${tid === String(pid) ? ' (main)' : ''}`;
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
      } catch {
        // the thread ended
      }
    }
  } catch {
    // not Linux
  }
  return out;
}

/** Microseconds per unit (request, event) by thread between two readings, threads that used none left out. */
export function threadCpuUsPer(before: Map<string, number>, after: Map<string, number>, units: number): Record<string, number> {
  const us: Record<string, number> = {};
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0) us[k] = Math.round((d * 1000) / units);
  }
  return us;
}

/** A thread's scheduler counters (Linux /proc/PID/task/TID/schedstat and status). */
export interface SchedSample {
  /** ns on a core, and ns runnable but waiting for one (the run queue). */
  runNs: number;
  waitNs: number;
  /** times the thread was taken off its core while still runnable. */
  involuntary: number;
}

/** The main thread's counters of process `pid`, or undefined where /proc has none. */
export function mainThreadSched(pid: number): SchedSample | undefined {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
    const inv = /^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(status);
    if (!Number.isFinite(run) || !Number.isFinite(wait) || !inv) return undefined;
    return { runNs: run, waitNs: wait, involuntary: Number(inv[1]) };
  } catch {
    return undefined;
  }
}

/**
 * Between two samples over `seconds` of wall time and `units` requests or events: the share of the
 * wall time the thread was on a core, the share it was runnable but waiting for one, and how often
 * a unit it was taken off its core while runnable.
 */
export function schedBetween(a: SchedSample, b: SchedSample, seconds: number, units: number) {
  const wall = seconds * 1e9;
  return {
    onCoreShare: Math.round(((b.runNs - a.runNs) / wall) * 1000) / 1000,
    runQueueWaitShare: Math.round(((b.waitNs - a.waitNs) / wall) * 1000) / 1000,
    involuntarySwitchesPerUnit: Math.round(((b.involuntary - a.involuntary) / units) * 1000) / 1000,
  };
}

/** This process's peak resident memory in MB (the kernel's VmHWM; resourceUsage().maxRSS where /proc is absent). */
export function peakRssMB(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Math.round(Number(m[1]) / 102.4) / 10;
  } catch {
    // not Linux
  }
  return Math.round(process.resourceUsage().maxRSS / 102.4) / 10;
}
