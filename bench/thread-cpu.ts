// bench/thread-cpu.ts: this process's CPU time split by kind of thread, for the monitor and verify
// children of bench/monitor.ts ("where the time goes", docs/design.md §13). Node names every thread
// `node`, so threads are told apart by when they appeared: the main thread; the threads present
// when the watch started (V8's platform threads, which run the concurrent garbage collector and
// compiler, and libuv's pool, which the caller starts first with a file operation); and the threads
// that appeared after it, the signature workers of platform/sig-pool.ts. Each thread is read from
// /proc every `intervalMs` and at the end, so a worker terminated before the end keeps what it used
// up to its last reading (it is idle by then: the pool closes after its last verdict). Leaves out:
// other systems (every group reads 0).

import { threadCpuMs } from './proc-cpu.ts';

export interface ThreadCpu {
  /** CPU ms since the watch started: the main thread, the threads started since (workers), the rest. */
  mainMs: number;
  workersMs: number;
  otherMs: number;
  /** How many threads started after the watch (the pool's workers). */
  workers: number;
}

const tidOf = (name: string) => name.slice(name.indexOf('#') + 1).split(' ')[0];

export function watchThreadCpu(intervalMs = 50): { stop(): ThreadCpu } {
  const start = new Map<string, number>();
  for (const [k, v] of threadCpuMs()) start.set(tidOf(k), v);
  const last = new Map<string, number>();
  const sample = () => {
    for (const [k, v] of threadCpuMs()) last.set(tidOf(k), v);
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      const out: ThreadCpu = { mainMs: 0, workersMs: 0, otherMs: 0, workers: 0 };
      const main = String(process.pid);
      for (const [tid, v] of last) {
        const was = start.get(tid);
        const d = v - (was ?? 0);
        if (tid === main) out.mainMs += d;
        else if (was === undefined) {
          out.workersMs += d;
          out.workers++;
        } else out.otherMs += d;
      }
      return out;
    },
  };
}
