// bench/monitor-static.ts: the monitor section's catch-up from a static copy of the log
// (bench/monitor.ts; docs/monitoring.md "Static tiles"; docs/design.md §13). `cookwala tiles --url
// SEQUENCER --log ORIGIN --entries --out DIR` copies the log's whole read path as files (the CLI, as
// an auditor runs it; its time is copySeconds), Debian's nginx serves DIR on 127.0.0.1
// (testkit/nginx.ts: one worker, sendfile), and the same interleaved pairs as the section's headline: `cookwala verify` on the
// exported bundle, then a monitor whose config names the copy (`tiles`, no `url`) catching up from
// an empty state, on the same two cores. ratioToVerify is the monitor's entries/s over verify's; the
// CPU an entry of the monitor, of nginx (its worker's /proc times) and of the sequencer meanwhile.
// Leaves out: hosts without an nginx binary (no pairs; `skipped` says why). Invariant: nginx is
// stopped however the pairs end.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nginxBinary, startNginx } from '../testkit/nginx.ts';
import { measurePairs } from './pairs.ts';
import { procCpuMs } from './monitor-log.ts';
import { catchUpRows, usPerEntry, type ChildRun } from './monitor-apart.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

function cli(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['bin/cookwala.js', ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    c.once('error', reject);
    c.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cookwala ${args[0]} exited ${code}`))));
  });
}

/** The pid of nginx's one worker process (the child of its master). */
const workerOf = (master: number) => Number(readFileSync(`/proc/${master}/task/${master}/children`, 'utf8').trim().split(/\s+/)[0]);

/**
 * The static copy's rows: `base` is the sequencer's URL, `runVerify` and `runMonitor` the
 * section's own children (the latter given the config to follow).
 */
export async function fromStaticCopy(
  o: { dir: string; base: string; log: string; policy: string; pageEntries?: number },
  runVerify: () => Promise<{ entries: number; ms: number; cpuMs: number }>,
  runMonitor: (config: string) => Promise<ChildRun & { serveCpuMs: number }>,
) {
  const bin = nginxBinary();
  if (!bin) return { skipped: 'no nginx binary in /usr/sbin or /usr/bin' };
  const copy = join(o.dir, 'static');
  const t0 = performance.now();
  await cli(['tiles', '--url', o.base, '--log', o.log, '--entries', '--out', copy]);
  const copySeconds = round((performance.now() - t0) / 1000, 1);
  await mkdir(join(o.dir, 'nginx'), { recursive: true });
  const ng = await startNginx(bin, copy, join(o.dir, 'nginx'), 'checkpoint');
  const worker = workerOf(ng.pid);
  try {
    const config = join(o.dir, 'monitor-static.json');
    await writeFile(
      config,
      JSON.stringify({
        kind: 'MonitorConfig',
        logs: [{ origin: o.log, kind: 'cookwala', tiles: ng.url, policy: o.policy }],
        intervalMs: 1000,
        ...(o.pageEntries ? { pageEntries: o.pageEntries } : {}),
      }),
    );
    const verifyUs: number[] = [];
    const pairs = await measurePairs(
      3,
      async () => {
        const r = await runVerify();
        verifyUs.push(usPerEntry(r.cpuMs, r.entries));
        return Math.round((r.entries * 1000) / r.ms);
      },
      async () => {
        const nginx0 = procCpuMs(worker);
        const r = await runMonitor(config);
        return { value: Math.round((r.entries * 1000) / r.ms), extra: { ...r, nginxCpuMs: procCpuMs(worker) - nginx0 } };
      },
    );
    const m = pairs.median.extra!;
    return {
      how: 'cookwala tiles --entries copied the log; nginx (one worker) served the copy; verify and the monitor on the same cores',
      copySeconds,
      ...catchUpRows(pairs, verifyUs, (e) => ({ nginxCpuUsPerEntry: usPerEntry(e.nginxCpuMs, e.entries) })),
      nginxCpuUsPerEntry: usPerEntry(m.nginxCpuMs, m.entries),
      sequencerCpuUsPerEntry: usPerEntry(m.serveCpuMs, m.entries),
    };
  } finally {
    await ng.stop();
  }
}
