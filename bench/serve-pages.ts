// bench/serve-pages.ts: what a monitor's catch-up costs the sequencer serving it (docs/design.md §10,
// §13; docs/benchmarks.md "### monitor"). `npx tsx bench/serve-pages.ts [--data DIR] [--events N]
// [--checkout DIR ...] [--rounds R] [--prof DIR] [--out FILE]` fills a sequencer's data dir as
// bench/monitor.ts does (its fill: 16 devices, signed batches of 100; 10^5 events by default; kept
// in DIR and reused when DIR already holds a filled log), then in each round, for each checkout in
// turn (this one when none is given; alternating checkouts is how before and after are compared),
// starts that checkout's `cookwala sequencer` on the data dir, reads every page of
// `GET …/entries?from=&to=&payloads=1` (10,000 entries, as the monitor reads them) once with a
// plain node:http client that counts and drops the body, and reports the sequencer's CPU per entry
// over the reads (/proc, every thread, and split by thread), the bytes served (the same for every
// checkout, or the run fails) and, with --prof, a CPU profile of each sequencer (`--cpu-prof`,
// read with `bench/cpu-profile.ts FILE --phases DIR/phases.json`, the reads' window alone). Left out: the monitor's side
// (bench/monitor.ts measures the whole catch-up). Invariant: every checkout serves the same data
// dir and the same requests, one sequencer at a time.

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { request, Agent } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ChildProcess } from 'node:child_process';
import { initDataDir } from '../sequencer/data-dir.ts';
import { freePort } from '../testkit/net.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import { threadCpuMs } from './proc-cpu.ts';
import { startChild } from './monitor.ts';
import { httpClient, LOG, logPath, procCpuMs, registerAndFill } from './monitor-log.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAGE = 10_000;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Starts `checkout`'s sequencer on `data`; resolves once it listens. */
async function sequencer(checkout: string, data: string, prof?: string): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = await startChild(
    [
      ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []),
      join(checkout, 'bin/cookwala.js'),
      'sequencer',
      '--data',
      data,
      '--port',
      String(port),
    ],
    undefined,
    checkout,
  );
  return { child, port };
}

/** Stops a sequencer with SIGTERM (a profile is written at a clean exit only), SIGKILL after 15 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  child.kill('SIGKILL');
}

/** One GET whose body is counted and hashed, then dropped. */
function getPage(agent: Agent, port: number, path: string): Promise<{ status: number; bytes: number; lines: number; sha: string }> {
  return new Promise((res, rej) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (r) => {
      let bytes = 0;
      let lines = 0;
      const h = createHash('sha256');
      r.on('data', (c: Buffer) => {
        bytes += c.length;
        h.update(c);
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) lines++;
      });
      r.on('end', () => res({ status: r.statusCode ?? 0, bytes, lines, sha: h.digest('hex') }));
      r.on('error', rej);
    });
    req.on('error', rej);
    req.end();
  });
}

/** Fills `data` with `events` events through this checkout's sequencer, unless it already holds them. */
async function ensureFilled(data: string, events: number): Promise<number> {
  const marker = join(data, 'serve-pages.json');
  if (existsSync(marker)) return (JSON.parse(await readFile(marker, 'utf8')) as { size: number }).size;
  await initDataDir({ dir: data, logs: [LOG], mode: 'hash_only' });
  const token = (await readFile(join(data, 'operator.token'), 'utf8')).trim();
  const { child, port } = await sequencer(ROOT, data);
  try {
    const http = httpClient(port);
    const { size } = await registerAndFill(http, token, events);
    http.close();
    await writeFile(marker, JSON.stringify({ size }));
    return size;
  } finally {
    await stop(child);
  }
}

interface Run {
  checkout: string;
  round: number;
  ms: number;
  cpuUsPerEntry: number;
  threadsUsPerEntry: Record<string, number>;
  bytes: number;
  sha: string;
}

/** Reads every page of 1..size once from `checkout`'s sequencer; its CPU over the reads. */
async function servePages(checkout: string, data: string, size: number, roundNo: number, prof?: string): Promise<Run> {
  const { child, port } = await sequencer(checkout, data, prof);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const pid = child.pid!;
    const path = (from: number, to: number) => `${logPath('/entries')}?from=${from}&to=${to}&payloads=1`;
    // One small read first, so that the start-up's lazy work (route compilation, first store reads) is not counted.
    const warm = await getPage(agent, port, path(1, 10));
    if (warm.status !== 200) throw new Error(`entries: ${warm.status}`);
    const t0 = threadCpuMs(pid);
    const cpu0 = procCpuMs(pid);
    const start = performance.now();
    const startUs = Number(process.hrtime.bigint() / 1000n);
    const whole = createHash('sha256');
    let bytes = 0;
    for (let from = 1; from <= size; from += PAGE) {
      const to = Math.min(size, from + PAGE - 1);
      const r = await getPage(agent, port, path(from, to));
      if (r.status !== 200) throw new Error(`entries ${from}-${to}: ${r.status}`);
      if (r.lines < to - from + 1) throw new Error(`entries ${from}-${to}: ${r.lines} lines`);
      bytes += r.bytes;
      whole.update(r.sha);
    }
    const ms = performance.now() - start;
    const endUs = Number(process.hrtime.bigint() / 1000n);
    // The reads' window on the profiles' clock, for `bench/cpu-profile.ts FILE --phases DIR/phases.json`.
    if (prof) await mkdir(prof, { recursive: true });
    if (prof)
      await writeFile(join(prof, 'phases.json'), JSON.stringify([{ target: 'sequencer', mode: 'serve', events: size, startUs, endUs }]));
    const cpu = procCpuMs(pid) - cpu0;
    const t1 = threadCpuMs(pid);
    const threads: Record<string, number> = {};
    for (const [k, v] of t1) {
      const d = v - (t0.get(k) ?? 0);
      if (d <= 0) continue;
      const name = k.includes('(main)') ? 'main' : k.replace(/#\d+$/, '');
      threads[name] = round((threads[name] ?? 0) + (1000 * d) / size);
    }
    return {
      checkout,
      round: roundNo,
      ms: Math.round(ms),
      cpuUsPerEntry: round((1000 * cpu) / size),
      threadsUsPerEntry: threads,
      bytes,
      sha: whole.digest('hex'),
    };
  } finally {
    agent.destroy();
    await stop(child);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: 'string' },
      events: { type: 'string', default: '100000' },
      checkout: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '2' },
      prof: { type: 'string' },
      out: { type: 'string' },
    },
  });
  const events = Number(values.events);
  const rounds = Number(values.rounds);
  if (!Number.isSafeInteger(events) || events < 1) throw new Error(`--events is a positive integer, not ${values.events}`);
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`--rounds is a positive integer, not ${values.rounds}`);
  const data = values.data ? resolve(values.data) : join(await makeTempDir('cookwala-bench-serve-'), 'data');
  const checkouts = (values.checkout?.length ? values.checkout : [ROOT]).map((c) => resolve(c));
  const size = await ensureFilled(data, events);
  const runs: Run[] = [];
  for (let r = 0; r < rounds; r++) {
    // The order of the checkouts turns each round, so neither always goes first.
    const order = r % 2 === 0 ? checkouts : [...checkouts].reverse();
    for (const [i, c] of order.entries()) {
      const prof = values.prof ? join(resolve(values.prof), `r${r}-${checkouts.indexOf(c)}`) : undefined;
      const run = await servePages(c, data, size, r, prof);
      runs.push(run);
      console.error(JSON.stringify({ event: 'serve_pages_run', order: i, ...run }));
    }
  }
  const shas = new Set(runs.map((r) => r.sha));
  if (shas.size !== 1) throw new Error(`the checkouts served different bytes: ${[...shas].join(' ')}`);
  const out = { events, size, page: PAGE, data, bytesPerEntry: round(runs[0].bytes / size), runs };
  const text = JSON.stringify(out, null, 2);
  if (values.out) await writeFile(values.out, text + '\n');
  console.log(text);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
