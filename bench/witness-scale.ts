// bench/witness-scale.ts: the `witnessScale` section of bench/results.json (DESIGN §12a, §13):
// ONE `cookwala witness` child process admitting 40,000 logs by configuration (quick: 4,000),
// the fake sequencers in another child (bench/witness-client.ts, persistent libp2p streams): every
// log gets its first contact (untimed), then one round of add-checkpoint requests spread over all
// of them (timed: witnessScale.addCheckpointPerSec, every cosignature after a synced LevelDB
// commit). Then the witness is stopped and started again on its state (witnessScale.startupSeconds:
// spawn -> `listening`), and its peak RSS (VmHWM over both runs), its RSS after the restart and
// the state's size on disk are reported. Leaves out: logs/v0 list admission (the same admitted-log
// map; its fetch is measured nowhere here) and gossip (no peers).

import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { initWitnessDir, WITNESS_FILES } from '../witness/server/data-dir.ts';
import { readLogLines } from '../platform/logger.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { fakeLogs } from './witness-client.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STREAMS = 4;
const PREFIX = 'scale';
const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

async function startWitness(dir: string): Promise<{ proc: ChildProcess; addr: string; startupSeconds: number }> {
  const t0 = performance.now();
  const proc = spawn(process.execPath, ['bin/cookwala.js', 'witness', 'run', '--data', dir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let done = false;
  const addr = await new Promise<string>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      if (done) return;
      out += d;
      const l = readLogLines(out).find((r) => r.event === 'listening');
      if (l) {
        done = true;
        out = '';
        resolve((l.multiaddrs as string[])[0]);
      }
    });
    proc.stderr!.on('data', (d) => (out = (out + d).slice(-4000)));
    proc.once('exit', (code) => !done && reject(new Error(`witness exited with ${code}: ${out.slice(-2000)}`)));
  });
  return { proc, addr, startupSeconds: (performance.now() - t0) / 1000 };
}

const stop = (p: ChildProcess) =>
  new Promise<void>((r) => {
    p.once('exit', () => r());
    p.kill('SIGTERM');
  });

async function memOf(pid: number): Promise<{ rssMB: number; hwmMB: number }> {
  const s = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { rssMB: round(kb('VmRSS') / 1024, 1), hwmMB: round(kb('VmHWM') / 1024, 1) };
}

async function du(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true }))
    n += e.isDirectory() ? await du(join(dir, e.name)) : (await stat(join(dir, e.name))).size;
  return n;
}

type ClientRun = { ms: number; failures: number; codes: Record<string, { n: number; detail: string }>; requests: number };

function runClients(addr: string, logs: number): Promise<ClientRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', './bin/polyfill.ts', 'bench/witness-client.ts', addr, String(logs), '1', String(STREAMS), PREFIX],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let buf = '';
    let done: ClientRun | undefined;
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const m = JSON.parse(buf.slice(0, i)) as Partial<ClientRun> & { phase: string };
        buf = buf.slice(i + 1);
        if (m.phase === 'done') done = { ms: m.ms!, failures: m.failures!, codes: m.codes ?? {}, requests: m.requests! };
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 && done ? resolve(done) : reject(new Error(`witness-client exited ${code}`))));
  });
}

export async function run(ctx: { quick: boolean; logs?: number }): Promise<Record<string, unknown>> {
  const n = ctx.logs ?? (ctx.quick ? 4000 : 40_000);
  const load = loadavg().map((x) => round(x, 2));
  const dir = await makeTempDir('cookwala-bench-witness-scale-');
  try {
    await initWitnessDir(dir, { name: 'scale' });
    const cfgPath = join(dir, WITNESS_FILES.config);
    const cfg = JSON.parse(await readFile(cfgPath, 'utf8'));
    cfg.logs = fakeLogs(PREFIX, n).map((l) => ({ log: l.origin, sequencer: l.keyRecord }));
    await writeFile(cfgPath, JSON.stringify(cfg) + '\n');
    const configMB = round((await stat(cfgPath)).size / 2 ** 20, 1);

    const first = await startWitness(dir);
    const c = await runClients(first.addr, n);
    const m1 = await memOf(first.proc.pid!);
    await stop(first.proc);
    const stateBytes = await du(join(dir, WITNESS_FILES.state));

    const again = await startWitness(dir);
    const m2 = await memOf(again.proc.pid!);
    await stop(again.proc);
    const perSec = Math.round((c.requests / c.ms) * 1000);
    return {
      logs: n,
      addCheckpointPerSec: perSec,
      requests: c.requests,
      failures: c.failures,
      failureCodes: c.codes,
      streams: STREAMS,
      peakRssMB: Math.max(m1.hwmMB, m2.hwmMB),
      rssAfterRestartMB: m2.rssMB,
      rssPerLogKB: round((m2.rssMB * 1024) / n, 2),
      stateMB: round(stateBytes / 2 ** 20, 1),
      stateBytesPerLog: Math.round(stateBytes / n),
      configMB,
      firstStartupSeconds: round(first.startupSeconds, 2),
      startupSeconds: round(again.startupSeconds, 2),
      loadAvgAtStart: load,
      loadAvgAtEnd: loadavg().map((x) => round(x, 2)),
    };
  } finally {
    await removeDir(dir);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const logs = process.argv.find((a) => a.startsWith('--logs='))?.slice(7);
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick'), logs: logs ? Number(logs) : undefined }), null, 2));
}
