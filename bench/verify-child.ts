// bench/verify-child.ts: one verification run for bench/verify.ts, in its own process so that its
// peak memory is its own: `node --import tsx bench/verify-child.ts BUNDLE POLICY [WORKERS]` runs
// exactly what `cookwala verify` runs (verifyBundleFile: streaming reader, worker pool) and prints
// one JSON line {ms, cpuMs, entries, exitCode, failures, peakRssMB, startRssMB, heapMB, externalMB,
// idSetBytes, threadCpu}: cpuMs is the CPU time of the whole process (every thread: reader, workers, GC),
// threadCpu its split into the main thread, the signature workers and the rest (bench/thread-cpu.ts),
// gc the collector's pauses on the main thread (bench/gc-watch.ts),
// peakRssMB the kernel's high-water mark of resident memory (VmHWM, workers included;
// process.resourceUsage().maxRSS where /proc is absent), startRssMB that mark before verifying (Node,
// tsx and the modules), heapMB and externalMB the largest main-thread heap and external
// (ArrayBuffer) memory sampled every 250 ms: what the peak is made of (docs/design.md §13).

import { peakRssMB } from './proc-cpu.ts';
import { verifyBundleFile } from '../auditor/verify.ts';
import { stat } from 'node:fs/promises';
import { watchThreadCpu } from './thread-cpu.ts';
import { watchGc } from './gc-watch.ts';

const [file, policy, workers] = process.argv.slice(2);
const startRssMB = peakRssMB();
const most = { heap: 0, external: 0 };
const sample = () => {
  const m = process.memoryUsage();
  most.heap = Math.max(most.heap, m.heapTotal);
  most.external = Math.max(most.external, m.external);
};
const sampler = setInterval(sample, 250);
await stat(file); // libuv's pool starts here, so bench/thread-cpu.ts counts it apart from the workers
const threads = watchThreadCpu();
const gcWatch = watchGc();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const r = await verifyBundleFile(file, { policyPath: policy, workers: workers === undefined ? undefined : Number(workers) });
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const threadCpu = threads.stop();
const gc = gcWatch.stop();
clearInterval(sampler);
sample();
const mb = (b: number) => Math.round(b / 1e5) / 10;
process.stdout.write(
  JSON.stringify({
    ms: Math.round(ms),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    entries: r.entries,
    exitCode: r.exitCode,
    failures: r.failuresTotal,
    peakRssMB: peakRssMB(),
    startRssMB,
    heapMB: mb(most.heap),
    externalMB: mb(most.external),
    idSetBytes: r.memory.idSetBytes,
    threadCpu,
    gc,
  }) + '\n',
);
