// bench/witness-client.ts: the fake sequencers of the `witness` section, in their own process so
// that the figure is the witness's own CPU and not also its clients' (in a deployment sequencers
// are other machines). `node --import tsx --import ./bin/polyfill.ts bench/witness-client.ts
// MULTIADDR LOGS ROUNDS STREAMS PREFIX [PHASES] [note|plain] [chained|rounds]` builds LOGS fake logs named PREFIX-i (their keys
// derive from their names, so the witness process admits the same ones), gives every log its first
// contact (descriptor, oldSeq 0) and builds PHASES x ROUNDS rounds of requests before any clock
// starts (with `note`, checkpoints carrying the log's note signature too, as our sequencers send); then per phase (with PHASES > 1 first printing {"phase":"ready"} and waiting for a "go"
// line on stdin, so bench/witness.ts measures its limit between phases: interleaved pairs) it
// prints {"phase":"start"}, sends the phase's rounds over STREAMS persistent libp2p streams (log i
// always on stream i % STREAMS), and prints {"phase":"done", ms, failures, codes, requests} at the end.
// With `rounds` (the default) each round is sent whole (WINDOW in flight per stream) and answered
// before the next, printing {"phase":"round", round, ms, failures, requests} after each; with
// `chained` every log sends its next request once its last is answered (chainLogs: no barrier).
// With COOKWALA_BENCH_REPORT=1 every cosignature of the second and later rounds is printed
// ({"phase":"cosigned", log, seq}: bench/witness-scale.ts kills the witness mid-round and checks
// each against the state left). Also exports buildRound and drive for bench/witness.ts.

import '../bin/polyfill.ts';
import { fileURLToPath } from 'node:url';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { createP2pNode } from '../witness/wire/p2p-node.ts';
import { createWitnessConnection, cosignatureOf } from '../witness/client/connection.ts';
import type { AddCheckpointRequest } from '../witness/wire/messages.ts';
import { createFakeLog, type FakeLog } from '../testkit/witness.ts';
import { withLogNoteSignature } from '../verifier/documents/checkpoint.ts';

export const WINDOW = 256;
const REPORT = process.env.COOKWALA_BENCH_REPORT === '1';
/** Reports start with the second timed round (the first is the throughput figure). */
let reportRound = false;

export function fakeLogs(prefix: string, n: number): FakeLog[] {
  return Array.from({ length: n }, (_, i) => createFakeLog(`bench.example.org/${prefix}-${i}`, `bench-seq-${prefix}-${i}`));
}

/**
 * One add-checkpoint request per log, each log grown by `entries` since its last request; with
 * `logNote` its checkpoint also carries the log's C2SP note signature, as our sequencers send it
 * (withLogNoteSignature, docs/design.md §4): the witness then checks two signatures per request.
 */
export async function buildRound(logs: FakeLog[], entries: number, logNote = false): Promise<AddCheckpointRequest[]> {
  const out: AddCheckpointRequest[] = [];
  for (const l of logs) {
    const old = l.size;
    l.append(entries);
    if (!logNote) out.push(await l.request(old));
    else {
      const cp = await l.checkpoint();
      out.push(await l.request(old, withLogNoteSignature(cp, l.signer, cp.signature[0].signedAt)));
    }
  }
  return out;
}

/** Failures by code (with the first detail of each), printed by the bench so a failure is never only a count. */
export const failureCodes = new Map<string, { n: number; detail: string }>();

function noteFailure(code: string, detail: string): void {
  const f = failureCodes.get(code) ?? { n: 0, detail: detail.slice(0, 200) };
  f.n++;
  failureCodes.set(code, f);
}

/**
 * `send` over `items`, started in order, at most `window` at once: `window` loops pulling the next
 * item. (A window kept with Promise.race over the promises in flight costs O(window) per item:
 * CPU the bench's clients would take from the witness at a window of 256.)
 */
export async function inWindow<T>(items: readonly T[], window: number, send: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(window, items.length) }, async () => {
      while (next < items.length) await send(items[next++]);
    }),
  );
}

/** Send all requests over `conns` (log i always on conn i % n, in order), WINDOW in flight per conn; returns the failures. */
export async function drive(conns: ReturnType<typeof createWitnessConnection>[], reqs: AddCheckpointRequest[]): Promise<number> {
  let failures = 0;
  const lanes = conns.map((c, i) => reqs.filter((_, j) => j % conns.length === i).map((r) => ({ c, r })));
  await Promise.all(
    lanes.map((lane) =>
      inWindow(lane, WINDOW, async ({ c, r }) => {
        const x = await c.request(r, { timeoutMs: 60_000 });
        const k = cosignatureOf(x);
        // COOKWALA_BENCH_REPORT=1: every cosignature received is reported (the witnessScale
        // kill step checks each against the state the killed witness left).
        if (k.ok && REPORT && reportRound)
          process.stdout.write(JSON.stringify({ phase: 'cosigned', log: r.checkpoint.log, seq: r.checkpoint.seq }) + '\n');
        if (!k.ok) {
          failures++;
          noteFailure(k.code, k.detail);
        }
      }),
    ),
  );
  return failures;
}

/**
 * Send every log's requests of `rounds` in round order, each as soon as the log's previous one is
 * answered: one request in flight per log and no barrier between rounds, as independent
 * sequencers send their checkpoints (a round barrier across all logs leaves the witness's cores
 * idle while the round's last requests drain; the libp2p and C2SP sections both measure this way).
 */
export async function chainLogs<T>(rounds: readonly (readonly T[])[], send: (req: T, log: number) => Promise<void>): Promise<void> {
  const n = rounds[0]?.length ?? 0;
  await Promise.all(
    Array.from({ length: n }, async (_, j) => {
      for (const reqs of rounds) await send(reqs[j], j);
    }),
  );
}

/** driveChained: chainLogs over `conns` (log i always on conn i % n); returns the failures. */
export async function driveChained(conns: ReturnType<typeof createWitnessConnection>[], rounds: AddCheckpointRequest[][]): Promise<number> {
  let failures = 0;
  await chainLogs(rounds, async (r, j) => {
    const k = cosignatureOf(await conns[j % conns.length].request(r, { timeoutMs: 60_000 }));
    if (!k.ok) {
      failures++;
      noteFailure(k.code, k.detail);
    }
  });
  return failures;
}

/** Lines from stdin, one at a time: the bench process says "go" before each timed phase. */
export function stdinLines(): () => Promise<string | undefined> {
  let buf = '';
  const lines: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
    wake?.();
  });
  process.stdin.on('end', () => {
    ended = true;
    wake?.();
  });
  return async () => {
    while (lines.length === 0 && !ended) await new Promise<void>((r) => (wake = r));
    return lines.shift();
  };
}

async function main(
  addr: string,
  nLogs: number,
  rounds: number,
  streams: number,
  prefix: string,
  phases: number,
  logNote: boolean,
  chained: boolean,
): Promise<void> {
  const logs = fakeLogs(prefix, nLogs);
  const clients = await Promise.all(
    Array.from({ length: streams }, async () => createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: [] })),
  );
  const conns = clients.map((n) => createWitnessConnection(n, addr));
  const nextLine = phases > 1 ? stdinLines() : undefined;
  try {
    const first = await drive(conns, await buildRound(logs, 4, logNote));
    if (first > 0) throw new Error(`${first} first-contact requests failed: ${JSON.stringify(Object.fromEntries(failureCodes))}`);
    const planned: AddCheckpointRequest[][][] = [];
    for (let p = 0; p < phases; p++) {
      const phase: AddCheckpointRequest[][] = [];
      for (let r = 0; r < rounds; r++) phase.push(await buildRound(logs, 3, logNote));
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
      let failures = 0;
      if (chained) failures = await driveChained(conns, planned[p]);
      else
        for (const [i, reqs] of planned[p].entries()) {
          const r0 = performance.now();
          const f = await drive(conns, reqs);
          failures += f;
          const round = p * rounds + i;
          process.stdout.write(
            JSON.stringify({ phase: 'round', round, ms: performance.now() - r0, failures: f, requests: reqs.length }) + '\n',
          );
          reportRound = true;
        }
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const codes = Object.fromEntries(failureCodes);
      const clientCpuMs = (cpu.user + cpu.system) / 1000;
      process.stdout.write(JSON.stringify({ phase: 'done', index: p, ms, failures, codes, requests: rounds * nLogs, clientCpuMs }) + '\n');
    }
  } finally {
    for (const c of conns) await c.close();
    for (const n of clients) await n.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [addr, logs, rounds, streams, prefix, phases, note, mode] = process.argv.slice(2);
  if (mode !== undefined && mode !== 'chained' && mode !== 'rounds') throw new Error(`witness-client: mode ${mode}: chained or rounds`);
  main(addr, Number(logs), Number(rounds), Number(streams), prefix, Number(phases ?? 1), note === 'note', mode === 'chained').then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`witness-client: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
