// bench/logs.ts: the `logs` section of bench/results.json (docs/design.md §12a, §13): one `cookwala
// sequencer` child process hosting 1,000 and then 10,000 logs (quick: 100 and 500) under its
// memory budget (--memory-budget 2048), driven over keep-alive HTTP from this process. Per size:
// the stores are created on first use (config.json lists the logs; each log's device-key file is
// a copy of the first's, the records being signed by the same sequencer key), then
// 1. spread: one batch of 20 events to every log (all logs opened, most closed again at the cap);
// 2. restart: start-up time (spawn -> `listening`) with every store on disk, RSS per idle log
//    against a one-log sequencer, file descriptors;
// 3. interleaved pairs (3): batches of 100 to one log, then the same number concentrated on 10
//    logs; the median pair's ratio is logs.ratioToSingleLog.
// Peak RSS is the child's VmHWM (kernel high-water mark), fds are sampled from /proc every 100 ms.
// Leaves out: witnessing (quorum 0). Every acknowledgement is checked (200 with every result 201).

import { spawn, type ChildProcess } from 'node:child_process';
import { benchHttpClient, type BenchHttp } from './http-client.ts';
import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadavg } from 'node:os';
import { initDataDir, deviceKeysFile } from '../sequencer/data-dir.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { freePort } from '../testkit/net.ts';
import { readLogLines } from '../platform/logger.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BATCH = 100;
const SPREAD_BATCH = 20;
const SOCKETS = 16;
const BUDGET_MB = 2048;
const logName = (i: number) => `bench.example/logs/l-${i}`;
const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Child {
  proc: ChildProcess;
  startupSeconds: number;
  stop(): Promise<void>;
}

async function startSequencer(dir: string, port: number): Promise<Child> {
  const t0 = performance.now();
  const proc = spawn(
    process.execPath,
    ['bin/cookwala.js', 'sequencer', '--data', dir, '--port', String(port), '--memory-budget', String(BUDGET_MB)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, COOKWALA_LOG_LEVEL: 'info' } },
  );
  let out = '';
  let listening = false;
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      if (listening) return;
      out += d;
      if (readLogLines(out).some((r) => r.event === 'listening')) {
        listening = true;
        out = '';
        resolve();
      }
    });
    proc.stderr!.on('data', (d) => (out = (out + d).slice(-4000)));
    proc.once('exit', (code) => reject(new Error(`sequencer exited with ${code}: ${out.slice(-2000)}`)));
  });
  const startupSeconds = (performance.now() - t0) / 1000;
  return {
    proc,
    startupSeconds,
    stop: () =>
      new Promise<void>((r) => {
        proc.once('exit', () => r());
        proc.kill('SIGTERM');
      }),
  };
}

async function status(pid: number): Promise<{ rssMB: number; hwmMB: number; fds: number }> {
  const s = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  const fds = (await readdir(`/proc/${pid}/fd`)).length;
  return { rssMB: round(kb('VmRSS') / 1024, 1), hwmMB: round(kb('VmHWM') / 1024, 1), fds };
}

/** Sample the child's fds every 100 ms until stopped; returns the maximum seen. */
function sampleFds(pid: number): { stop(): Promise<number> } {
  let max = 0;
  const timer = setInterval(
    () =>
      void status(pid).then(
        (s) => (max = Math.max(max, s.fds)),
        () => undefined,
      ),
    100,
  );
  return {
    async stop() {
      clearInterval(timer);
      max = Math.max(max, (await status(pid)).fds);
      return max;
    },
  };
}

const httpClient = (port: number): BenchHttp => benchHttpClient(port, SOCKETS);

type Http = BenchHttp;
let keyN = 0;

/** POST every (log, body) with SOCKETS in flight; every event must be acknowledged 201. */
async function drive(
  http: Http,
  work: Array<[string, Buffer]>,
  perBody: number,
): Promise<{ events: number; secs: number; perSec: number }> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SOCKETS }, async () => {
      while (next < work.length) {
        const [log, body] = work[next++];
        const r = await http.call('POST', `/v1/logs/${encodeURIComponent(log)}/events`, body, {
          'content-type': 'application/cloudevents-batch+json',
          'idempotency-key': `l-${keyN++}`,
        });
        const ok = r.status === 200 && (JSON.parse(r.body).results as Array<{ status: number }>).every((x) => x.status === 201);
        if (!ok) throw new Error(`not acknowledged (${log}): ${r.status} ${r.body.slice(0, 300)}`);
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const events = work.length * perBody;
  return { events, secs: round(secs, 2), perSec: Math.round(events / secs) };
}

/** Batches of `size` events, each with its own subject (so their order across logs never matters). */
function signBatches(n: number, size: number, tag: string): Buffer[] {
  const dev = deviceKey(77);
  const s = eventStream(dev);
  return Array.from({ length: n }, (_, b) =>
    Buffer.from(JSON.stringify(Array.from({ length: size }, (_, k) => s.next(`${tag}-${b}`, { data: { step: k, tempC: 92.5 } })))),
  );
}

async function runSize(n: number, bodies: { spread: Buffer; pairs: Buffer[][] }): Promise<Record<string, unknown>> {
  const dir = await makeTempDir('cookwala-bench-logs-');
  try {
    await initDataDir({ dir, logs: [logName(0)], mode: 'hash_only' });
    const token = (await readFile(join(dir, 'operator.token'), 'utf8')).trim();
    const port = await freePort();
    // A one-log sequencer: the baseline for RSS per idle log.
    let child = await startSequencer(dir, port);
    let http = httpClient(port);
    const r = await http.call(
      'POST',
      `/v1/logs/${encodeURIComponent(logName(0))}/keys`,
      Buffer.from(JSON.stringify(deviceKey(77).record)),
      { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    );
    if (r.status !== 201) throw new Error(`key registration: ${r.status} ${r.body}`);
    const baseline = await status(child.proc.pid!);
    const baselineStartup = child.startupSeconds;
    http.close();
    await child.stop();

    // N logs in config.json, each with the registered key; their stores are created on first use.
    const keys = deviceKeysFile(dir, logName(0));
    await mkdir(join(dir, 'device-keys'), { recursive: true });
    for (let i = 1; i < n; i++) await copyFile(keys, deviceKeysFile(dir, logName(i)));
    const cfgPath = join(dir, 'config.json');
    const cfg = JSON.parse(await readFile(cfgPath, 'utf8'));
    cfg.logs = Array.from({ length: n }, (_, i) => ({ log: logName(i), mode: 'hash_only' }));
    await writeFile(cfgPath, JSON.stringify(cfg, null, 2) + '\n');

    child = await startSequencer(dir, port);
    http = httpClient(port);
    let fds = sampleFds(child.proc.pid!);
    const spread = await drive(
      http,
      Array.from({ length: n }, (_, i): [string, Buffer] => [logName(i), bodies.spread]),
      SPREAD_BATCH,
    );
    const spreadFds = await fds.stop();
    const spreadStatus = await status(child.proc.pid!);
    http.close();
    await child.stop();

    // Restart with every store on disk: start-up time and idle memory.
    child = await startSequencer(dir, port);
    const idle = await status(child.proc.pid!);
    http = httpClient(port);
    fds = sampleFds(child.proc.pid!);
    const pairs: Array<{ single: number; concentrated: number; ratio: number }> = [];
    for (const [p, batches] of bodies.pairs.entries()) {
      const half = batches.length / 2;
      const single = await drive(
        http,
        batches.slice(0, half).map((b): [string, Buffer] => [logName(0), b]),
        BATCH,
      );
      const conc = await drive(
        http,
        batches.slice(half).map((b, k): [string, Buffer] => [logName(1 + (k % 10)), b]),
        BATCH,
      );
      pairs.push({ single: single.perSec, concentrated: conc.perSec, ratio: round(conc.perSec / single.perSec, 3) });
      process.stderr.write(`bench logs ${n}: pair ${p + 1}: one log ${single.perSec}/s, ten logs ${conc.perSec}/s\n`);
    }
    const pairFds = await fds.stop();
    const end = await status(child.proc.pid!);
    const list = JSON.parse((await http.call('GET', '/v1/logs?limit=1000')).body) as { total: number };
    http.close();
    await child.stop();
    const ratios = pairs.map((x) => x.ratio);
    const mid = pairs.find((x) => x.ratio === median(ratios))!;
    return {
      logs: n,
      listed: list.total,
      peakRssMB: Math.max(spreadStatus.hwmMB, end.hwmMB),
      spreadPeakRssMB: spreadStatus.hwmMB,
      baselineRssMB: baseline.rssMB,
      idleRssMB: idle.rssMB,
      rssPerIdleLogKB: round(((idle.rssMB - baseline.rssMB) * 1024) / n, 1),
      startupSeconds: round(child.startupSeconds, 2),
      oneLogStartupSeconds: round(baselineStartup, 2),
      idleFds: idle.fds,
      maxFds: Math.max(spreadFds, pairFds),
      spreadEventsPerSec: spread.perSec,
      spreadSeconds: spread.secs,
      singleLogEventsPerSec: mid.single,
      concentratedEventsPerSec: mid.concentrated,
      ratioToSingleLog: mid.ratio,
      spreadRatioToSingleLog: round(spread.perSec / mid.single, 3),
      ratioSpread: [Math.min(...ratios), Math.max(...ratios)],
      pairs,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run(ctx: { quick: boolean; sizes?: number[] }): Promise<Record<string, unknown>> {
  const sizes = ctx.sizes ?? (ctx.quick ? [100, 500] : [1000, 10_000]);
  const perPhase = ctx.quick ? 20 : 100; // batches of 100 per phase of a pair
  const bodies = {
    spread: signBatches(1, SPREAD_BATCH, 'spread')[0],
    pairs: [0, 1, 2].map((p) => signBatches(2 * perPhase, BATCH, `pair${p}`)),
  };
  const load = loadavg().map((x) => round(x, 2));
  const bySize: Record<string, Record<string, unknown>> = {};
  for (const n of sizes) {
    process.stderr.write(`bench logs: ${n} logs…\n`);
    bySize[String(n)] = await runSize(n, bodies);
  }
  const big = bySize[String(sizes.at(-1))];
  return {
    peakRssMB: Math.max(...Object.values(bySize).map((s) => s.peakRssMB as number)),
    startupSeconds: big.startupSeconds,
    ratioToSingleLog: big.ratioToSingleLog,
    spreadRatioToSingleLog: big.spreadRatioToSingleLog,
    rssPerIdleLogKB: big.rssPerIdleLogKB,
    maxFds: big.maxFds,
    memoryBudgetMB: BUDGET_MB,
    loadAvgAtStart: load,
    loadAvgAtEnd: loadavg().map((x) => round(x, 2)),
    sizes: bySize,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = process.argv
    .find((a) => a.startsWith('--sizes='))
    ?.slice(8)
    .split(',')
    .map(Number);
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick'), sizes }), null, 2));
}
