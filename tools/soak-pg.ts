// tools/soak-pg.ts: the PostgreSQL mode of the soak (`npm run soak -- --postgres`, docs/design.md §12a,
// §14): two `cookwala sequencer --store postgres://…` children (tools/pg-procs.ts) on a
// throwaway cluster of the soak's own (testkit/pg-cluster.ts; the shared test cluster is never
// touched), under the load of device clients that follow `leader` as the README tells clients to,
// and faults drawn from the seed: SIGKILL of the leader (restarted), SIGSTOP of the leader (SIGCONT
// after a lease and a half) and a restart of the database. After every fault the load must make
// progress again. Counted as failures: an answer other than 200/201/503 (so a 409 out_of_order
// from a process that does not lead, or a 500 during the restart), a 503 without Retry-After, and
// at the end any acknowledged event not in the log exactly once at its acknowledged seq.
// Bounded: `faults` faults or `durationMs`, whichever first. Never imported by production code.

import { deviceKey, type TestKey } from '../testkit/index.ts';
import { eventStream } from '../testkit/index.ts';
import { logPath } from '../testkit/index.ts';
import { freePort } from '../testkit/index.ts';
import { startPgCluster } from '../testkit/index.ts';
import { exitOf, prepareDataDirs, startPgSequencer, type Proc } from './pg-procs.ts';
import { makeTempDir, removeDir } from '../testkit/index.ts';
import { prng } from '../executor/index.ts';
import { openPostgresLogStore } from '../logstore/postgres/index.ts';

const LOG = 'soak.example/missions/pg';
const LEASE_MS = 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type PgFault = 'kill' | 'stop' | 'restart';

export interface PgSoakSummary {
  seed: number;
  faults: Record<PgFault, number>;
  durationMs: number;
  acknowledged: number;
  entries: number;
  notLeader: number;
  unavailable: number;
  failures: string[];
}

export async function runPgSoak(o: {
  faults: number;
  durationMs: number;
  seed?: number;
  clients?: number;
  say?: (line: string) => void;
  signal?: AbortSignal;
}): Promise<PgSoakSummary> {
  const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rand = prng(seed);
  const say = o.say ?? (() => undefined);
  const t0 = Date.now();
  const deadline = t0 + o.durationMs;
  const failures: string[] = [];
  const counts: Record<PgFault, number> = { kill: 0, stop: 0, restart: 0 };
  const cluster = await startPgCluster();
  const base = await makeTempDir('cookwala-soak-pg-');
  const devices: TestKey[] = Array.from({ length: o.clients ?? 4 }, (_, i) => deviceKey(700 + i));
  const acks: Array<{ source: string; id: string; seq: number }> = [];
  let notLeader = 0;
  let unavailable = 0;
  let stop = false;
  const procs: Partial<Record<'A' | 'B', Proc>> = {};
  try {
    const { dirA, dirB } = await prepareDataDirs(base, cluster.url, LOG, devices, LEASE_MS);
    const dirs = { A: dirA, B: dirB };
    const ports = { A: await freePort(), B: await freePort() };
    const start = async (n: 'A' | 'B') => (procs[n] = await startPgSequencer(n, dirs[n], ports[n], cluster.url, LEASE_MS));
    await start('A');
    await start('B');
    const byUrl = (u: unknown) => (u === procs.A?.url ? 'A' : u === procs.B?.url ? 'B' : undefined);
    let lastLeader: 'A' | 'B' = 'A';

    const client = async (d: TestKey, idx: number) => {
      const s = eventStream(d);
      let target: 'A' | 'B' = idx % 2 === 0 ? 'A' : 'B';
      for (let n = 0; !stop; n++) {
        const ce = s.next(`soak-${idx}`);
        for (let attempt = 0; !stop; attempt++) {
          if (attempt > 20_000) throw new Error(`client ${idx}: no answer after 20000 attempts`);
          const p = procs[target];
          let r: Response;
          try {
            r = await fetch(`${p!.url}${logPath(LOG, '/events')}`, {
              method: 'POST',
              headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `${d.record.kid}-${n}` },
              body: JSON.stringify(ce),
              signal: AbortSignal.timeout(2 * LEASE_MS),
            });
          } catch {
            target = target === 'A' ? 'B' : 'A';
            await sleep(20);
            continue;
          }
          const b = (await r.json().catch(() => ({}))) as { code?: string; leader?: string; seq?: number };
          if (r.status === 201 || r.status === 200) {
            acks.push({ source: ce.source, id: ce.id, seq: b.seq! });
            lastLeader = target;
            break;
          }
          if (r.status !== 503) {
            failures.push(`${target} answered ${r.status} ${b.code}`);
            break;
          }
          if (r.headers.get('retry-after') === null) failures.push(`${target}: 503 ${b.code} without Retry-After`);
          if (b.code === 'not_leader') {
            notLeader++;
            target = byUrl(b.leader) ?? (target === 'A' ? 'B' : 'A');
          } else unavailable++;
          await sleep(20);
        }
      }
    };
    const load = devices.map((d, i) => client(d, i));
    const failed = Promise.race(load.map((l) => l.then(() => new Promise<never>(() => undefined)))).catch((e: unknown) => {
      failures.push(`load: ${(e as Error).message}`);
    });

    const progress = async (what: string) => {
      const want = acks.length + 50;
      const until = Date.now() + 60_000;
      while (acks.length < want && Date.now() < until && failures.length === 0) await sleep(50);
      if (acks.length < want) failures.push(`no progress within 60 s after ${what}`);
    };
    await progress('start');
    const kinds: PgFault[] = ['kill', 'stop', 'restart'];
    for (let i = 0; i < o.faults && Date.now() < deadline && !o.signal?.aborted && failures.length === 0; i++) {
      const kind = kinds[Math.floor(rand() * kinds.length)];
      const victim = lastLeader;
      const child = procs[victim]!.child;
      if (kind === 'kill') {
        child.kill('SIGKILL');
        await exitOf(child);
        await progress(`SIGKILL of ${victim}`);
        await start(victim);
      } else if (kind === 'stop') {
        child.kill('SIGSTOP');
        await sleep(LEASE_MS * 1.5);
        child.kill('SIGCONT');
        await progress(`SIGSTOP of ${victim}`);
      } else {
        await cluster.restart();
        await progress('a database restart');
      }
      counts[kind]++;
      say(`soak --postgres: fault ${i + 1} ${kind} (${kind === 'restart' ? 'database' : victim}); ${acks.length} acknowledged`);
    }
    stop = true;
    await Promise.race([Promise.allSettled(load), failed]);
    const store = await openPostgresLogStore({ url: cluster.url, log: LOG, leaseMs: LEASE_MS });
    let entries = 0;
    try {
      const seen = new Map<string, number[]>();
      for await (const e of store.entries(1, store.head().seq)) {
        entries++;
        const k = `${e.ce.source}\n${e.ce.id}`;
        seen.set(k, [...(seen.get(k) ?? []), e.seq]);
      }
      for (const a of acks) {
        const at = seen.get(`${a.source}\n${a.id}`) ?? [];
        if (at.length !== 1 || at[0] !== a.seq) failures.push(`${a.id} acknowledged at ${a.seq}, in the log at [${at.join(', ')}]`);
      }
    } finally {
      await store.close();
    }
    return { seed, faults: counts, durationMs: Date.now() - t0, acknowledged: acks.length, entries, notLeader, unavailable, failures };
  } finally {
    stop = true;
    for (const p of [procs.A, procs.B]) {
      if (p && p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGCONT');
        p.child.kill('SIGKILL');
        await exitOf(p.child);
      }
    }
    await cluster.destroy();
    await removeDir(base);
  }
}

export function pgSummaryLine(s: PgSoakSummary): string {
  const f = s.faults;
  return `soak --postgres: seed ${s.seed}; ${f.kill + f.stop + f.restart} faults (${f.kill} SIGKILL, ${f.stop} SIGSTOP, ${f.restart} database restarts) in ${(s.durationMs / 1000).toFixed(0)} s; ${s.acknowledged} acknowledged, ${s.entries} entries; ${s.notLeader} not_leader redirects, ${s.unavailable} store_unavailable; ${s.failures.length} failures`;
}
