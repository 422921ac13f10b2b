// bench/proc-cpu.ts: CPU time of a process's threads from /proc (Linux: each task's comm, utime +
// stime in clock ticks of 10 ms), for the benches' "where the time goes" (DESIGN §13). Leaves out:
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
