// bench/ingest.ts: the `ingest` section of bench/results.json (DESIGN §13). A real `cookwala
// sequencer` child process listens on 127.0.0.1; this process plays many devices over keep-alive
// HTTP (node:http Agent): first single structured posts, then batches of 100, every event signed
// by its device with a registered Ed25519 key (signed before the clock starts), every
// acknowledgement checked (201, or 200 with every result 201) — an ack means the entry was
// fsync'd. The limit, node:crypto Ed25519 verify/s on all cores (worker threads), is measured in
// the same run before the sequencer starts. eventsPerSec is the better of the two modes (both are
// reported); "where the time goes" comes from the sequencer's own /metrics (batch sizes, synced
// append latency) and the CPU seconds of both processes (/proc on Linux).

import { spawn, type ChildProcess } from 'node:child_process';
import { request, Agent } from 'node:http';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { verifyPerSecAllCores } from './crypto.ts';
import { initDataDir } from '../sequencer/data-dir.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { freePort } from '../testkit/net.ts';
import { readLogLines } from '../platform/logger.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOG = 'bench.example/missions/ingest';
const BATCH = 100;

export interface BenchCtx {
  quick: boolean;
}

function startSequencer(dir: string, port: number): Promise<ChildProcess> {
  const prof = process.env.COOKWALA_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.COOKWALA_BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...prof, 'bin/cookwala.js', 'sequencer', '--data', dir, '--port', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (readLogLines(out).some((r) => r.event === 'listening')) resolve(child);
    });
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`sequencer exited with ${code}: ${out}`)));
  });
}

/** utime + stime of a process in seconds (Linux /proc; 0 elsewhere). */
async function cpuSeconds(pid: number): Promise<number> {
  try {
    const f = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

interface Client {
  post(path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; body: string }>;
  get(path: string): Promise<string>;
  close(): void;
}

function httpClient(port: number, sockets: number): Client {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  const call = (method: string, path: string, body?: Buffer, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method, path, agent, headers: body ? { ...headers, 'content-length': String(body.length) } : headers },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return {
    post: (path, body, headers) => call('POST', path, body, headers),
    get: async (path) => (await call('GET', path)).body,
    close: () => agent.destroy(),
  };
}

function metric(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(name + '{') || line.startsWith(name + ' ')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}

const round = (x: number, d = 0) => Math.round(x * 10 ** d) / 10 ** d;

export async function run(ctx: BenchCtx): Promise<Record<string, unknown>> {
  const singles = ctx.quick ? 3_000 : 20_000;
  const batched = ctx.quick ? 20_000 : 200_000;
  const clients = 64;
  const verifyLimit = await verifyPerSecAllCores(ctx.quick ? 500 : 2000);

  const dir = await makeTempDir('cookwala-bench-ingest-');
  const devices = Array.from({ length: clients }, (_, i) => deviceKey(1000 + i));
  // Sign everything before the clock starts: the bench measures the sequencer, not the devices.
  const single: Buffer[][] = devices.map(() => []);
  const batches: Buffer[][] = devices.map(() => []);
  devices.forEach((d, i) => {
    const s = eventStream(d);
    for (let n = 0; n < singles / clients; n++)
      single[i].push(Buffer.from(JSON.stringify(s.next(`exec-${i}`, { data: { step: n, tempC: 92.5, medium: 'water' } }))));
    for (let n = 0; n < batched / clients / BATCH; n++) {
      const evs = Array.from({ length: BATCH }, (_, k) =>
        s.next(`exec-${i}`, { data: { step: n * BATCH + k, tempC: 92.5, medium: 'water' } }),
      );
      batches[i].push(Buffer.from(JSON.stringify(evs)));
    }
  });

  await initDataDir({ dir, logs: [LOG], mode: 'hash_only' });
  const token = (await readFile(join(dir, 'operator.token'), 'utf8')).trim();
  const port = await freePort();
  const child = await startSequencer(dir, port);
  const http = httpClient(port, clients);
  const path = `/v1/logs/${encodeURIComponent(LOG)}`;
  try {
    for (const d of devices) {
      const r = await http.post(`${path}/keys`, Buffer.from(JSON.stringify(d.record)), {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
      });
      if (r.status !== 201) throw new Error(`key registration: ${r.status} ${r.body}`);
    }
    let keyN = 0;
    async function phase(bodies: Buffer[][], contentType: string, perBody: number) {
      const cpu0 = process.cpuUsage();
      const seqCpu0 = await cpuSeconds(child.pid!);
      const t0 = performance.now();
      await Promise.all(
        bodies.map(async (list) => {
          for (const body of list) {
            const r = await http.post(`${path}/events`, body, { 'content-type': contentType, 'idempotency-key': `b-${keyN++}` });
            const ok =
              perBody === 1
                ? r.status === 201
                : r.status === 200 && (JSON.parse(r.body).results as Array<{ status: number }>).every((x) => x.status === 201);
            if (!ok) throw new Error(`not acknowledged: ${r.status} ${r.body.slice(0, 300)}`);
          }
        }),
      );
      const secs = (performance.now() - t0) / 1000;
      const events = bodies.reduce((a, l) => a + l.length, 0) * perBody;
      const cpu = process.cpuUsage(cpu0);
      return {
        events,
        secs,
        perSec: Math.round(events / secs),
        clientCpu: (cpu.user + cpu.system) / 1e6,
        sequencerCpu: (await cpuSeconds(child.pid!)) - seqCpu0,
      };
    }
    const s = await phase(single, 'application/cloudevents+json', 1);
    const before = await http.get('/metrics');
    const b = await phase(batches, 'application/cloudevents-batch+json', BATCH);
    const after = await http.get('/metrics');
    const d = (name: string) => metric(after, name) - metric(before, name);
    const best = b.perSec >= s.perSec ? b : s;
    return {
      eventsPerSec: best.perSec,
      eventsPerSecMode: best === b ? 'batch' : 'single',
      batchEventsPerSec: b.perSec,
      singleEventsPerSec: s.perSec,
      verifyPerSecAllCores: verifyLimit,
      ratioToVerifyLimit: round(best.perSec / verifyLimit, 2),
      clients,
      events: s.events + b.events,
      cores: availableParallelism(),
      whereTheTimeGoes: {
        batchPhase: {
          seconds: round(b.secs, 2),
          sequencerCpuSeconds: round(b.sequencerCpu, 2),
          clientCpuSeconds: round(b.clientCpu, 2),
          groupCommits: d('cookwala_batches_total'),
          meanEntriesPerCommit: round(d('cookwala_batch_size_sum') / Math.max(1, d('cookwala_batch_size_count')), 1),
          meanSyncedAppendMs: round((1000 * d('cookwala_fsync_seconds_sum')) / Math.max(1, d('cookwala_fsync_seconds_count')), 2),
          syncedAppendShareOfWall: round(d('cookwala_fsync_seconds_sum') / b.secs, 2),
        },
        singlePhase: { seconds: round(s.secs, 2), sequencerCpuSeconds: round(s.sequencerCpu, 2), clientCpuSeconds: round(s.clientCpu, 2) },
      },
    };
  } finally {
    http.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
