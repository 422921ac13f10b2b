// bench/monitor-child.ts: one monitor catch-up for bench/monitor.ts, in its own process so that its
// time and memory are its own: `node --import tsx bench/monitor-child.ts CONFIG STATE_DIR` runs what
// `cookwala monitor --once` runs (readMonitorConfig, createMonitor, one round over every log, the
// HTTP reads of monitor/http-get.ts, device signatures on the worker pool) from the state in STATE_DIR, and prints one JSON line
// {ms, cpuMs, entries, size, problems, peakRssMB, threadCpu, poolStats}: ms from the round's start to its end
// (process start-up left out, as bench/verify-child.ts leaves it out), cpuMs the whole process's CPU
// time, threadCpu its split by thread (bench/thread-cpu.ts), gc the collector's pauses (bench/gc-watch.ts), poolStats the signature pool's items and messages.
// Leaves out: the HTTP side (--listen). Its own log goes to stderr at level warn.

import { mkdir } from 'node:fs/promises';
import { createLogger, createSigPool } from '../platform/index.ts';
import { createMonitor, createMonitorMetrics, httpGet, readMonitorConfig } from '../monitor/index.ts';
import { peakRssMB } from './proc-cpu.ts';
import { watchThreadCpu } from './thread-cpu.ts';
import { watchGc } from './gc-watch.ts';
import pino from 'pino';

const [configPath, stateDir] = process.argv.slice(2);
await mkdir(stateDir, { recursive: true });
const config = await readMonitorConfig(configPath);
// The libuv pool is up (mkdir, the config): the threads started from here on are the pool's workers.
const threads = watchThreadCpu();
const gcWatch = watchGc();
const log = createLogger({ service: 'monitor', level: 'warn', destination: pino.destination({ dest: 2, sync: true }) });
const pool = createSigPool();
const monitor = createMonitor(
  { get: httpGet, verifyBatch: (items) => pool.verify(items), log, metrics: createMonitorMetrics(), stateDir, now: Date.now },
  config,
);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const r = await monitor.round({ repeat: true });
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const threadCpu = threads.stop();
const gc = gcWatch.stop();
const poolStats = { ...pool.stats, size: pool.size };
await pool.close();
let entries = 0;
let size = 0;
for (const f of monitor.followers) {
  size = f.state()?.size ?? 0;
}
for (const fs of r.byLog.values()) for (const f of fs) if (f.event === 'checkpoint_verified') entries += Number(f.entries ?? 0);
process.stdout.write(
  JSON.stringify({
    ms: Math.round(ms),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    entries,
    size,
    problems: r.problems,
    findings: [...r.byLog.values()]
      .flat()
      .filter((f) => f.event !== 'checkpoint_verified')
      .slice(0, 5),
    peakRssMB: peakRssMB(),
    threadCpu,
    gc,
    poolStats,
  }) + '\n',
);
