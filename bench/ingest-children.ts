// bench/ingest-children.ts: the child processes of the ingest section (bench/ingest.ts,
// docs/design.md §13): the sequencer (`cookwala sequencer` of this checkout) and the floor, each
// resolved once it logs `listening`, with the node options and arguments of the bench's knobs
// (COOKWALA_BENCH_SEQ_NODE_OPTIONS for both, COOKWALA_BENCH_SEQ_NODE_ARGS and
// COOKWALA_BENCH_CPU_PROF for the sequencer); a keep-alive node:http client for key registration
// and /metrics, a metric family's sum, and a process's CPU seconds from /proc. Left out: the timed
// posts (bench/raw-http-client.ts).

import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { benchHttpClient } from './http-client.ts';
import { readLogLines } from '../platform/logger.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export function startSequencer(dir: string, port: number): Promise<ChildProcess> {
  const prof = process.env.COOKWALA_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.COOKWALA_BENCH_CPU_PROF}`] : [];
  const extra = process.env.COOKWALA_BENCH_SEQ_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return startChild([...prof, ...extra, 'bin/cookwala.js', 'sequencer', '--data', dir, '--port', String(port)]);
}

/**
 * A child node process of this checkout, resolved once it logs `listening`; the sequencer and the
 * floor alike get COOKWALA_BENCH_SEQ_NODE_OPTIONS (none by default), so the floor's bound is
 * measured under the same collector settings.
 */
export function startChild(args: string[]): Promise<ChildProcess> {
  const mine = process.env.COOKWALA_BENCH_SEQ_NODE_OPTIONS;
  const nodeOptions = [process.env.NODE_OPTIONS, mine].filter(Boolean).join(' ');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (readLogLines(out).some((r) => r.event === 'listening')) resolve(child);
    });
    child.stderr!.on('data', (d) => (out += d));
    child.once('exit', (code, signal) => {
      const why = `${args.join(' ')} exited with ${code ?? signal}: ${out.slice(-4000)}`;
      reject(new Error(why));
      // After it listened: a child that fails mid-section says why, on stderr (a stop asked for is quiet).
      if (code !== 0 && signal !== 'SIGTERM') process.stderr.write(why + '\n');
    });
  });
}

/** utime + stime of a process in seconds (Linux /proc; 0 elsewhere). */
export async function cpuSeconds(pid: number): Promise<number> {
  try {
    const f = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}

export interface Client {
  post(path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; body: string }>;
  get(path: string): Promise<string>;
  close(): void;
}

export function httpClient(port: number, sockets: number): Client {
  const { call, close } = benchHttpClient(port, sockets);
  return {
    post: (path, body, headers) => call('POST', path, body, headers),
    // A GET is asked once more when the keep-alive socket it took had been closed by the server
    // while idle (its close not yet read by a busy load generator): the read changes nothing.
    get: async (path) => (await call('GET', path).catch(() => call('GET', path))).body,
    close,
  };
}

export function metric(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n'))
    if (line.startsWith(name + '{') || line.startsWith(name + ' ')) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  return sum;
}
