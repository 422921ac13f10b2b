// bench/witness-client.ts: the fake sequencers of the `witness` section, in their own process so
// that the figure is the witness's own CPU and not also its clients' (in a deployment sequencers
// are other machines). `node --import tsx --import ./bin/polyfill.ts bench/witness-client.ts
// MULTIADDR LOGS ROUNDS STREAMS PREFIX` builds LOGS fake logs named PREFIX-i (their keys derive
// from their names, so the witness process admits the same ones), gives every log its first
// contact (descriptor, oldSeq 0) and builds ROUNDS rounds of requests before the clock starts, then
// prints {"phase":"start"}, sends the rounds over STREAMS persistent libp2p streams (log i always
// on stream i % STREAMS, WINDOW in flight per stream), and prints {"phase":"done", ms, failures,
// requests}. Also exports buildRound and drive for the in-process half of bench/witness.ts.

import '../bin/polyfill.ts';
import { fileURLToPath } from 'node:url';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { createP2pNode } from '../witness/wire/p2p-node.ts';
import { createWitnessConnection, cosignatureOf } from '../witness/client/connection.ts';
import type { AddCheckpointRequest } from '../witness/wire/messages.ts';
import { createFakeLog, type FakeLog } from '../testkit/witness.ts';

export const WINDOW = 256;

export function fakeLogs(prefix: string, n: number): FakeLog[] {
  return Array.from({ length: n }, (_, i) => createFakeLog(`bench.example.org/${prefix}-${i}`, `bench-seq-${prefix}-${i}`));
}

/** One add-checkpoint request per log, each log grown by `entries` since its last request. */
export async function buildRound(logs: FakeLog[], entries: number): Promise<AddCheckpointRequest[]> {
  const out: AddCheckpointRequest[] = [];
  for (const l of logs) {
    const old = l.size;
    l.append(entries);
    out.push(await l.request(old));
  }
  return out;
}

/** Failures by code (with the first detail of each), printed by the bench so a failure is never only a count. */
export const failureCodes = new Map<string, { n: number; detail: string }>();

/** Send all requests over `conns` (log i always on conn i % n, in order), WINDOW in flight per conn; returns the failures. */
export async function drive(conns: ReturnType<typeof createWitnessConnection>[], reqs: AddCheckpointRequest[]): Promise<number> {
  let failures = 0;
  const lanes = conns.map((c, i) => reqs.filter((_, j) => j % conns.length === i).map((r) => ({ c, r })));
  await Promise.all(
    lanes.map(async (lane) => {
      const inflight = new Set<Promise<void>>();
      for (const { c, r } of lane) {
        const p: Promise<void> = c.request(r, { timeoutMs: 60_000 }).then((x) => {
          const c = cosignatureOf(x);
          if (!c.ok) {
            failures++;
            const f = failureCodes.get(c.code) ?? { n: 0, detail: c.detail.slice(0, 200) };
            f.n++;
            failureCodes.set(c.code, f);
          }
          inflight.delete(p);
        });
        inflight.add(p);
        if (inflight.size >= WINDOW) await Promise.race(inflight);
      }
      await Promise.all(inflight);
    }),
  );
  return failures;
}

async function main(addr: string, nLogs: number, rounds: number, streams: number, prefix: string): Promise<void> {
  const logs = fakeLogs(prefix, nLogs);
  const clients = await Promise.all(
    Array.from({ length: streams }, async () => createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: [] })),
  );
  const conns = clients.map((n) => createWitnessConnection(n, addr));
  try {
    const first = await drive(conns, await buildRound(logs, 4));
    if (first > 0) throw new Error(`${first} first-contact requests failed: ${JSON.stringify(Object.fromEntries(failureCodes))}`);
    const planned: AddCheckpointRequest[][] = [];
    for (let r = 0; r < rounds; r++) planned.push(await buildRound(logs, 3));
    process.stdout.write(JSON.stringify({ phase: 'start' }) + '\n');
    const t0 = performance.now();
    let failures = 0;
    for (const reqs of planned) failures += await drive(conns, reqs);
    const ms = performance.now() - t0;
    const codes = Object.fromEntries(failureCodes);
    process.stdout.write(JSON.stringify({ phase: 'done', ms, failures, codes, requests: rounds * nLogs }) + '\n');
  } finally {
    for (const c of conns) await c.close();
    for (const n of clients) await n.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [addr, logs, rounds, streams, prefix] = process.argv.slice(2);
  main(addr, Number(logs), Number(rounds), Number(streams), prefix).then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`witness-client: ${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
