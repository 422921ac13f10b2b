// bench/slow-connections.ts: the `slowConnections` section of bench/results.json (docs/design.md §13): well-behaved clients keep
// their normal p99 while many slow connections try to hold the sequencer, and the slow ones are
// shed. A sequencer with its default bounds (platform/http-limits.ts) listens on loopback; 8
// well-behaved keep-alive clients from 127.0.0.2 GET /.well-known/cookwala.json in a loop, first
// alone (baseline p50/p99) then while bench/slow-clients-child.ts opens `slow` connections (10,000,
// quick 2,000; fewer when the fd limit is lower) from 20 other loopback addresses, each dripping
// its headers a byte a second. Reported: the p99 during the flood against the baseline p99 (ratio),
// errors seen by well-behaved clients, and what happened to the slow ones (503 at once beyond the
// caps, 408 once headersTimeout passed, still open when the run ended: target 0). Loopback only,
// bounded in count and time (at most about 50 s; slow ones still open after 40 s are counted as stillOpen).

import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSequencer } from '../testkit/sequencer.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 100) / 100 : NaN;
}

async function wellBehaved(port: number, ms: number, workers = 8): Promise<{ lat: number[]; errors: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: workers, localAddress: '127.0.0.2' });
  const lat: number[] = [];
  let errors = 0;
  const end = Date.now() + ms;
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const req = request({ host: '127.0.0.1', port, path: '/.well-known/cookwala.json', agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) lat.push(performance.now() - t0);
          else errors++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  agent.destroy();
  return { lat, errors };
}

export async function run(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const t = await startSequencer({ listen: true, logs: ['bench.example/slow'] });
  try {
    const port = Number(new URL(t.url!).port);
    const slow = ctx.quick ? 2000 : 10_000;
    const base = await wellBehaved(port, 4000);
    const addrs = Array.from({ length: 20 }, (_, i) => `127.0.1.${i + 1}`).join(',');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(HERE, 'slow-clients-child.ts'), String(port), String(slow), '40', addrs],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const done = new Promise<void>((r) => child.on('close', () => r()));
    await new Promise((r) => setTimeout(r, 1500)); // the flood is connecting
    const during = await wellBehaved(port, 8000);
    await done;
    const slowResult = JSON.parse(out.trim().split('\n').pop() ?? '{}');
    const p99Base = percentile(base.lat, 99);
    const p99During = percentile(during.lat, 99);
    return {
      slowConnections: slow,
      baselineP50Ms: percentile(base.lat, 50),
      baselineP99Ms: p99Base,
      duringP50Ms: percentile(during.lat, 50),
      duringP99Ms: p99During,
      p99Ratio: Math.round((p99During / p99Base) * 100) / 100,
      wellBehavedRequests: during.lat.length,
      wellBehavedErrors: during.errors + base.errors,
      slow: slowResult,
    };
  } finally {
    await t.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
