// testkit/process-tree.ts: a command run as a user runs it, with the peak of its whole process
// tree's resident memory, for the bench and the memory tests: the sum of VmRSS over the process
// and every descendant, sampled every 20 ms from /proc (what `verify.hostilePeakRssMB` of
// docs/design.md §13 bounds, since `cookwala verify` is a parent that starts a heap-bounded child
// and the signature workers are threads of that child), and beside it the sum over every process
// seen of its own peak (VmHWM, kept by the kernel), which no sampling interval can miss: an upper
// bound of the tree's peak, the figure a test asserts on. Leaves out: a descendant that lives less
// than one sampling interval, and a process's growth in the last interval before it ends.
// Invariant: only the tree of the child it started is read; nothing is signalled.

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface TreeRun {
  exitCode: number;
  ms: number;
  peakTreeRssMB: number;
  /** The sum of each process's own peak resident memory (VmHWM, last read while it lived). */
  peakTreeHwmMB: number;
  stdout: string;
}

/** Pids of `root` and every descendant, read from /proc. */
export function processTree(root: number): number[] {
  const parent = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(ppid, [...(parent.get(ppid) ?? []), Number(d)]);
    } catch {
      // ended while read
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const k of parent.get(p) ?? []) walk(k);
  };
  walk(root);
  return out;
}

/** Summed VmRSS of the tree under `root`, in KiB; with `hwm`, each process's VmHWM (KiB) is kept there too. */
export function treeRssKiB(root: number, hwm?: Map<number, number>): number {
  let sum = 0;
  for (const p of processTree(root)) {
    try {
      const status = readFileSync(`/proc/${p}/status`, 'utf8');
      const m = /VmRSS:\s+(\d+)/.exec(status);
      if (m) sum += Number(m[1]);
      const h = /VmHWM:\s+(\d+)/.exec(status);
      if (h && hwm) hwm.set(p, Math.max(hwm.get(p) ?? 0, Number(h[1])));
    } catch {
      // ended while read
    }
  }
  return sum;
}

const mb = (kib: number) => Math.round((kib / 1024) * 10) / 10;

/** Runs `node args…` (stderr inherited) and samples its tree until it exits. */
export function runMeasuredTree(args: readonly string[]): Promise<TreeRun> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    let peak = 0;
    const hwm = new Map<number, number>();
    child.stdout.on('data', (d) => (stdout += d));
    const iv = setInterval(() => (peak = Math.max(peak, treeRssKiB(child.pid!, hwm))), 20);
    child.on('error', (e) => {
      clearInterval(iv);
      reject(e);
    });
    child.on('close', (code) => {
      clearInterval(iv);
      let hwmSum = 0;
      for (const v of hwm.values()) hwmSum += v;
      resolve({ exitCode: code ?? -1, ms: performance.now() - t0, peakTreeRssMB: mb(peak), peakTreeHwmMB: mb(hwmSum), stdout });
    });
  });
}
