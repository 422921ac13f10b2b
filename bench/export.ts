// bench/export.ts: the `export` section of bench/results.json (docs/design.md §8, §13): `cookwala export
// --url` against `curl -o` on the same URL, in interleaved pairs (bench/pairs.ts: curl, export,
// curl, export, …), ratio = export's bytes/s over curl's. The URL is served by this process: the
// two routes the export reads (GET /.well-known/cookwala.json, GET /v1/logs/{log}/bundle), the
// bundle being 10^6 NDJSON lines of an entry's size (quick: 2·10^5) written from memory with
// backpressure, so the server is never the limit and both clients get the same bytes. Each run is
// timed from the bundle request's arrival to the client's exit (the process start-up and the
// probe before it are left out; the export's rename and its process's exit are in). The export's peak RSS
// (VmHWM, sampled every 20 ms) is measured at the full size and at a tenth of it: flat memory
// means the two differ by less than RSS_FLAT_MB (rssGrowthMB). Leaves out: the sequencer's own bundle route
// (the sequencer serves the same bytes to both clients; its speed is not the client's).

import { spawn } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from '../testkit/tmp.ts';
import { measurePairs } from './pairs.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOG = 'bench.example/export/m-1';
export const RSS_FLAT_MB = 32;
const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

/** One bundle line of a typical entry's size (about 180 bytes). */
const LINE = Buffer.from(
  `${JSON.stringify({
    kind: 'entry',
    seq: 1,
    prev: `sha256:${'a'.repeat(43)}`,
    hash: `sha256:${'b'.repeat(43)}`,
    eventHash: `sha256:${'c'.repeat(43)}`,
  })}\n`,
);

interface Served {
  url: string;
  server: Server;
  /** performance.now() at the arrival of each bundle request, in order. */
  arrivals: number[];
  setLines(n: number): void;
}

function writeBody(res: ServerResponse, total: number): void {
  const block = Buffer.alloc(Math.floor((1024 * 1024) / LINE.length) * LINE.length);
  for (let i = 0; i < block.length; i += LINE.length) LINE.copy(block, i);
  let left = total;
  const pump = () => {
    while (left > 0) {
      const n = Math.min(left, block.length);
      left -= n;
      const ok = res.write(n === block.length ? block : block.subarray(0, n));
      if (left === 0) return void res.end();
      if (!ok) return void res.once('drain', pump);
    }
  };
  pump();
}

async function serve(): Promise<Served> {
  let lines = 0;
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    if (req.url === '/.well-known/cookwala.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ keys: [{ role: 'sequencer' }], logs: [LOG] }));
    }
    if (req.url === `/v1/logs/${encodeURIComponent(LOG)}/bundle`) {
      arrivals.push(performance.now());
      const total = lines * LINE.length;
      res.writeHead(200, { 'content-type': 'application/x-ndjson', 'content-length': total });
      return writeBody(res, total);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  const port = a && typeof a === 'object' ? a.port : 0;
  return { url: `http://127.0.0.1:${port}`, server, arrivals, setLines: (n) => void (lines = n) };
}

/** Run a client to completion: seconds from the bundle request's arrival to its exit, and its peak RSS (MB). */
async function client(s: Served, cmd: string, args: string[]): Promise<{ seconds: number; peakRssMB: number }> {
  const before = s.arrivals.length;
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err = (err + d).slice(-2000)));
  let hwm = 0;
  const sample = setInterval(() => {
    readFile(`/proc/${child.pid}/status`, 'utf8').then(
      (t) => (hwm = Math.max(hwm, Number(/VmHWM:\s+(\d+)/.exec(t)?.[1] ?? 0))),
      () => undefined,
    );
  }, 20);
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  const end = performance.now();
  clearInterval(sample);
  if (code !== 0) throw new Error(`${cmd} exited ${code}: ${err}`);
  if (s.arrivals.length !== before + 1) throw new Error(`${cmd} did not ask for the bundle once`);
  return { seconds: (end - s.arrivals[before]) / 1000, peakRssMB: round(hwm / 1024, 1) };
}

export async function run({ quick }: { quick: boolean }): Promise<Record<string, unknown>> {
  const lines = quick ? 200_000 : 1_000_000;
  const dir = await makeTempDir('cookwala-bench-export-');
  const s = await serve();
  try {
    const bytes = lines * LINE.length;
    const curlOut = join(dir, 'curl.ndjson');
    const exportOut = join(dir, 'export.ndjson');
    const exportArgs = ['bin/cookwala.js', 'export', '--url', s.url, '--log', LOG, '--out', exportOut];
    s.setLines(lines);
    const curlRun = async () => {
      const r = await client(s, 'curl', ['-sS', '--fail', '-o', curlOut, `${s.url}/v1/logs/${encodeURIComponent(LOG)}/bundle`]);
      if ((await stat(curlOut)).size !== bytes) throw new Error('curl wrote another size');
      await rm(curlOut);
      return r;
    };
    let exportRss = 0;
    const exportRun = async () => {
      const r = await client(s, process.execPath, exportArgs);
      if ((await stat(exportOut)).size !== bytes) throw new Error('export wrote another size');
      await rm(exportOut);
      exportRss = Math.max(exportRss, r.peakRssMB);
      return r;
    };
    const pairs = await measurePairs(
      3,
      async () => bytes / (await curlRun()).seconds,
      async () => bytes / (await exportRun()).seconds,
    );
    s.setLines(Math.floor(lines / 10));
    const small = await client(s, process.execPath, exportArgs);
    await rm(exportOut, { force: true });
    const mbps = (x: number) => round(x / (1024 * 1024), 1);
    return {
      lines,
      bytes,
      ratioToCurl: pairs.ratio,
      ratioSpread: pairs.ratioSpread,
      limitsAgree: pairs.limitsAgree,
      curlMBps: mbps(pairs.median.limit),
      exportMBps: mbps(pairs.median.figure),
      peakRssMB: exportRss,
      peakRssMBTenth: small.peakRssMB,
      rssGrowthMB: round(exportRss - small.peakRssMB, 1),
      pairs: pairs.pairs.map((p) => ({ curlMBps: mbps(p.limit), exportMBps: mbps(p.figure), ratio: p.ratio })),
    };
  } finally {
    await new Promise((r) => s.server.close(r));
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
