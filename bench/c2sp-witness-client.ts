// bench/c2sp-witness-client.ts: the C2SP logs of the `c2sp` section's witness measurement, in their
// own process so the figure is the witness's CPU, not also its clients'. `node --import tsx
// bench/c2sp-witness-client.ts URL LOGS ROUNDS SOCKETS PREFIX [PHASES] [chained|rounds]` builds LOGS independent C2SP logs
// (testkit/c2sp-log.ts: node:crypto Ed25519 notes, RFC 6962 proofs; keys derived from the names,
// so the witness process admits the same vkeys), gives each its first cosignature (old 0),
// builds PHASES x ROUNDS rounds of add-checkpoint bodies (each log grown by 3) before any clock
// starts, and per phase (with PHASES > 1 after {"phase":"ready"} and a "go" line on stdin: the
// bench measures its limit in between, interleaved pairs) prints {"phase":"start"}, POSTs them over SOCKETS keep-alive
// connections of a minimal HTTP/1.1 client (bench/raw-http-client.ts: a fraction of node:http's CPU), one
// log's requests in order: with `rounds` (the default) a round at a time, WINDOW in flight; with
// `chained` every log sends its next once its last is answered (chainLogs: no barrier). It prints {"phase":"done", ms, failures, requests, statuses,
// clientCpuMs} (clientCpuMs: this process's CPU over the phase).

import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { SpecLog, specSigner } from '../testkit/c2sp-log.ts';
import { chainLogs, inWindow, stdinLines } from './witness-client.ts';
import { createRawHttpClient, postBytes, type RawHttpClient } from './raw-http-client.ts';

export const WINDOW = 256;

export function c2spBenchLogs(prefix: string, n: number): SpecLog[] {
  return Array.from({ length: n }, (_, i) => {
    const origin = `bench.example.org/c2sp/${prefix}-${i}`;
    return new SpecLog(origin, specSigner(origin, createHash('sha256').update(`bench-c2sp:${origin}`).digest()));
  });
}

/** Send one round (one request per log), WINDOW in flight; returns the status counts. */
async function drive(client: RawHttpClient, requests: Buffer[]): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  await inWindow(requests, WINDOW, async (b) => {
    const s = await client.send(b);
    statuses[s] = (statuses[s] ?? 0) + 1;
  });
  return statuses;
}

/** One POST /add-checkpoint per log (each grown by `grow`), as the bytes the client writes. */
function round(url: URL, logs: SpecLog[], grow: number, sizes: number[]): Buffer[] {
  return logs.map((l, i) => {
    const old = sizes[i];
    l.append(grow);
    sizes[i] = l.leaves.length;
    return postBytes(url.hostname, Number(url.port), '/add-checkpoint', 'text/plain', l.request(old, sizes[i]));
  });
}

async function main(
  base: string,
  n: number,
  rounds: number,
  sockets: number,
  prefix: string,
  phases: number,
  chained: boolean,
): Promise<void> {
  const url = new URL(base);
  const client = createRawHttpClient(url.hostname, Number(url.port), sockets);
  const logs = c2spBenchLogs(prefix, n);
  const sizes = logs.map(() => 0);
  const nextLine = phases > 1 ? stdinLines() : undefined;
  const first = await drive(client, round(url, logs, 4, sizes));
  if ((first[200] ?? 0) !== n) throw new Error(`first contact: ${JSON.stringify(first)}`);
  const planned: Buffer[][][] = [];
  for (let p = 0; p < phases; p++) {
    const phase: Buffer[][] = [];
    for (let r = 0; r < rounds; r++) phase.push(round(url, logs, 3, sizes));
    planned.push(phase);
  }
  for (let p = 0; p < phases; p++) {
    // With several phases, each waits for the bench's "go" (it measures its limit meanwhile).
    if (nextLine) {
      process.stdout.write(JSON.stringify({ phase: 'ready', index: p }) + '\n');
      if ((await nextLine()) !== 'go') throw new Error('the bench process went away');
    }
    process.stdout.write(JSON.stringify({ phase: 'start', index: p }) + '\n');
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const statuses: Record<number, number> = {};
    if (chained)
      await chainLogs(planned[p], async (b) => {
        const s = await client.send(b);
        statuses[s] = (statuses[s] ?? 0) + 1;
      });
    else
      for (const bodies of planned[p])
        for (const [s, c] of Object.entries(await drive(client, bodies))) statuses[Number(s)] = (statuses[Number(s)] ?? 0) + c;
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const requests = rounds * n;
    const clientCpuMs = (cpu.user + cpu.system) / 1000;
    process.stdout.write(
      JSON.stringify({ phase: 'done', index: p, ms, requests, failures: requests - (statuses[200] ?? 0), statuses, clientCpuMs }) + '\n',
    );
  }
  client.close();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, logs, rounds, sockets, prefix, phases, mode] = process.argv.slice(2);
  if (mode !== undefined && mode !== 'chained' && mode !== 'rounds')
    throw new Error(`c2sp-witness-client: mode ${mode}: chained or rounds`);
  main(url, Number(logs), Number(rounds), Number(sockets), prefix, Number(phases ?? 1), mode === 'chained').then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`c2sp-witness-client: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
