// bench/gc-watch.ts: the garbage collector's pauses on this process's main thread, by kind, for
// the monitor and verify children of bench/monitor.ts ("where the time goes", docs/design.md §13):
// node:perf_hooks 'gc' entries counted and summed from start to stop. Leaves out: the collector's
// concurrent work on V8's platform threads (bench/thread-cpu.ts counts those threads as "other").

import { constants, PerformanceObserver } from 'node:perf_hooks';

export interface GcPauses {
  scavenges: number;
  scavengeMs: number;
  markCompacts: number;
  markCompactMs: number;
  otherMs: number;
}

export function watchGc(): { stop(): GcPauses } {
  const out: GcPauses = { scavenges: 0, scavengeMs: 0, markCompacts: 0, markCompactMs: 0, otherMs: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
        out.scavenges++;
        out.scavengeMs += e.duration;
      } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
        out.markCompacts++;
        out.markCompactMs += e.duration;
      } else out.otherMs += e.duration;
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      obs.disconnect();
      const r = (x: number) => Math.round(x);
      return { ...out, scavengeMs: r(out.scavengeMs), markCompactMs: r(out.markCompactMs), otherMs: r(out.otherMs) };
    },
  };
}
