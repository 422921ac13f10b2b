// tools/pg-failover.ts: two real `cookwala sequencer --store postgres://…` child processes for
// one log on one PostgreSQL database (tools/pg-procs.ts), under load, with the leader killed
// (SIGKILL) or paused (SIGSTOP, SIGCONT after the other took over), or the database itself
// restarted under them (`restart`: the caller's own cluster, testkit/pg-cluster.ts) (docs/design.md
// §12a, §14). Readers run beside the writers (checkpoint, entries, an inclusion proof at both
// processes): a read may answer 200, 404 (no checkpoint yet) or 503 with Retry-After, never anything
// else. Shared by test/postgres-failover.test.ts (which asserts on what this returns) and the bench
// (takeoverMs). Clients behave like device outboxes: each request retried unchanged until answered;
// a 503 not_leader sends the client to the leader it names (else to the other process), a refused
// or timed-out connection to the other process. Leaves out the assertions and the processes' setup.
// Invariant: only 201/200 answers are recorded as acknowledged, each with the process that gave it
// and when.

import { deviceKey, type TestKey } from '../testkit/index.ts';
import { eventStream } from '../testkit/index.ts';
import { logPath } from '../testkit/index.ts';
import { freePort } from '../testkit/index.ts';
import { exitOf, prepareDataDirs, startPgSequencer, type Proc } from './pg-procs.ts';
import type { Checkpoint } from '../verifier/documents/index.ts';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';

export interface Ack {
  status: number;
  ce: CloudEvent;
  seq: number;
  hash: string;
  eventHash: string;
  by: 'A' | 'B';
  at: number;
}

export interface FailoverRun {
  acks: Ack[];
  /** Answers other than 201/200/503 (must stay empty). */
  unexpected: string[];
  /** Checkpoints served by either process while the load ran. */
  served: Checkpoint[];
  /** Which process led first (the victim) and which took over. */
  victim: 'A' | 'B';
  survivor: Proc;
  /** kill (or stop) -> first 201 from the new leader, ms. */
  takeoverMs: number;
  /** SIGSTOP runs: the resumed old leader's answer to a new event, with its body. */
  resumedAnswer?: { status: number; code?: string; leader?: string };
  /** SIGSTOP runs: its answer to an event far out of order for a subject the load used (judged only by a leader). */
  resumedOutOfOrder?: { status: number; code?: string; leader?: string };
  /** Both processes (their output: every log line). */
  procs: Record<'A' | 'B', Proc>;
  /** The devices that drove the load (their sources are the load's). */
  devices: TestKey[];
  /** Reads answered (by status) at either process while the load ran. */
  reads: Record<string, number>;
  /** 503 not_leader answers per process (the standby's redirects). */
  notLeaderBy: Record<'A' | 'B', number>;
  /** Number of acknowledgements per process. */
  acksBy: Record<'A' | 'B', number>;
  dirs: string[];
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Start A then B, drive load through both, kill or stop the leader once `before` events are
 * acknowledged, and (after the survivor acknowledged `after` more) stop the load.
 */
export async function runFailover(o: {
  base: string;
  storeUrl: string;
  log: string;
  signal: 'SIGKILL' | 'SIGSTOP' | 'restart';
  leaseMs: number;
  /** `restart` runs: stop and start the database (the caller's own cluster). */
  restartDatabase?: () => Promise<void>;
  /** Merged into both processes' config.json (e.g. heartbeatIntervalMs). */
  config?: Record<string, unknown>;
  clients?: number;
  before?: number;
  after?: number;
}): Promise<FailoverRun> {
  const clients = o.clients ?? 4;
  const devices = Array.from({ length: clients }, (_, i) => deviceKey(500 + i));
  const { dirA, dirB } = await prepareDataDirs(o.base, o.storeUrl, o.log, devices, o.leaseMs, o.config);
  const A = await startPgSequencer('A', dirA, await freePort(), o.storeUrl, o.leaseMs);
  const B = await startPgSequencer('B', dirB, await freePort(), o.storeUrl, o.leaseMs);
  const procs = { A, B };
  const other = (n: 'A' | 'B'): 'A' | 'B' => (n === 'A' ? 'B' : 'A');
  const byUrl = (u: string | undefined): 'A' | 'B' | undefined => (u === A.url ? 'A' : u === B.url ? 'B' : undefined);

  const acks: Ack[] = [];
  const unexpected: string[] = [];
  const served: Checkpoint[] = [];
  const listeners = new Set<() => void>();
  /** Resolves once pred holds (checked at every acknowledgement): an event, not a poll. */
  const when = (pred: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!pred()) return;
        listeners.delete(check);
        resolve();
      };
      listeners.add(check);
      check();
    });
  let stop = false;
  const notLeaderBy = { A: 0, B: 0 };

  async function client(d: TestKey, idx: number): Promise<void> {
    const s = eventStream(d);
    let target: 'A' | 'B' = idx % 2 === 0 ? 'A' : 'B';
    // The process this client last failed to reach: a standby naming it as leader (its view of the
    // lease row is not updated until it wins) is asked again rather than followed back to it.
    let unreachable: 'A' | 'B' | undefined;
    let n = 0;
    while (!stop) {
      const batch = n % 3 === 2;
      const events = batch ? [s.next(`exec-${idx}`), s.next(`exec-${idx}`)] : [s.next(`exec-${idx}`)];
      const key = `${d.record.kid}-${n++}`;
      for (let attempt = 0; !stop; attempt++) {
        if (attempt > 5000) throw new Error(`client ${idx}: no answer after 5000 attempts`);
        const by = target;
        let res: Response;
        try {
          res = await fetch(`${procs[by].url}${logPath(o.log, '/events')}`, {
            method: 'POST',
            headers: {
              'content-type': batch ? 'application/cloudevents-batch+json' : 'application/cloudevents+json',
              'idempotency-key': key,
            },
            body: JSON.stringify(batch ? events : events[0]),
            signal: AbortSignal.timeout(Math.max(1000, o.leaseMs)),
          });
        } catch {
          unreachable = by;
          target = other(by); // down, paused or reset: the outcome is unknown, resend the same request elsewhere
          await sleep(10);
          continue;
        }
        const body = (await res.json().catch(() => ({}))) as Record<string, unknown> & { results?: unknown[] };
        if (unreachable === by) unreachable = undefined;
        if (res.status === 503) {
          if (body.code === 'not_leader') notLeaderBy[by]++;
          const named = byUrl(body.leader as string | undefined) ?? other(by);
          target = body.code !== 'not_leader' ? by : named === unreachable ? by : named;
          // Asked once more here; a second redirect to it is followed (it was slow, not gone).
          if (body.code === 'not_leader' && named === unreachable) unreachable = undefined;
          await sleep(10);
          continue;
        }
        const results = (batch && res.status === 200 ? body.results : [{ ...body, status: res.status }]) as Array<{
          status: number;
          seq: number;
          hash: string;
          eventHash: string;
          code?: string;
          leader?: string;
        }>;
        // A batch answered per event: a not_leader inside means nothing of it was written; resend whole.
        if (results.some((r) => r.status === 503)) {
          target = byUrl(results.find((r) => r.status === 503)?.leader) ?? other(by);
          await sleep(10);
          continue;
        }
        const at = Date.now();
        results.forEach((r, i) => {
          if (r.status === 201 || r.status === 200)
            acks.push({ status: r.status, ce: events[i], seq: r.seq, hash: r.hash, eventHash: r.eventHash, by, at });
          else unexpected.push(`${by} ${r.status} ${r.code}`);
        });
        for (const l of [...listeners]) l();
        break;
      }
    }
  }

  const reads: Record<string, number> = {};
  /** One read: 200, 404 or a 503 with Retry-After; anything else is unexpected. */
  async function read(p: Proc, path: string): Promise<Response | undefined> {
    let r: Response;
    try {
      r = await fetch(`${p.url}${logPath(o.log, path)}`, { signal: AbortSignal.timeout(Math.max(1000, o.leaseMs)) });
    } catch {
      return undefined; // down or paused
    }
    reads[r.status] = (reads[r.status] ?? 0) + 1;
    if (r.status !== 200 && r.status !== 404 && r.status !== 503) unexpected.push(`${p.name} GET ${path}: ${r.status} ${await r.text()}`);
    else if (r.status === 503 && r.headers.get('retry-after') === null) unexpected.push(`${p.name} GET ${path}: 503 without Retry-After`);
    return r;
  }

  async function watcher(p: Proc): Promise<void> {
    while (!stop) {
      const r = await read(p, '/checkpoint');
      if (r?.status === 200) {
        const cp = (await r.json()) as Checkpoint;
        served.push(cp);
        if (cp.seq > 1) await read(p, `/proof/inclusion?seq=1&size=${cp.seq}`);
      } else await r?.body?.cancel();
      const e = await read(p, '/entries?from=1&to=20');
      await e?.body?.cancel();
      await sleep(50);
    }
  }

  const load = [...devices.map((d, i) => client(d, i)), watcher(A), watcher(B)];
  const failed = new Promise<never>((_, reject) => {
    for (const l of load) l.catch(reject);
  });
  failed.catch(() => undefined);
  try {
    return await Promise.race([failed, orchestrate()]);
  } catch (e) {
    stop = true;
    for (const p of [A, B]) {
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
    }
    await Promise.allSettled(load);
    throw e;
  }

  async function orchestrate(): Promise<FailoverRun> {
    const before = o.before ?? 60;
    await when(() => acks.filter((a) => a.status === 201).length >= before);
    const victim = acks.find((a) => a.status === 201)!.by;
    let survivorName = other(victim);
    const t0 = Date.now();
    let takeoverMs: number;
    if (o.signal === 'restart') {
      await o.restartDatabase!();
      await when(() => acks.some((a) => a.status === 201 && a.at > t0));
      const first = acks.find((a) => a.status === 201 && a.at > t0)!;
      takeoverMs = first.at - t0;
      survivorName = first.by;
    } else {
      procs[victim].child.kill(o.signal);
      if (o.signal === 'SIGKILL') await exitOf(procs[victim].child);
      await when(() => acks.some((a) => a.by === survivorName && a.status === 201 && a.at > t0));
      takeoverMs = acks.find((a) => a.by === survivorName && a.status === 201 && a.at > t0)!.at - t0;
    }
    let resumedAnswer: FailoverRun['resumedAnswer'];
    let resumedOutOfOrder: FailoverRun['resumedOutOfOrder'];
    if (o.signal === 'SIGSTOP') {
      procs[victim].child.kill('SIGCONT');
      // The resumed old leader is asked to sequence a new event: it must refuse (its lease is gone).
      const probe = eventStream(devices[0]).next('probe-after-resume', { id: `probe-${Date.now()}` });
      // A keep-alive socket the resumed process closes as its overdue timers fire is a network
      // error, not an answer: resend the same request (as a device would) until it answers.
      const probeKey = `probe-${Date.now()}`;
      let r: Response | undefined;
      let lastError: unknown;
      for (let i = 0; i < 50 && !r; i++) {
        r = await fetch(`${procs[victim].url}${logPath(o.log, '/events')}`, {
          method: 'POST',
          headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': probeKey, connection: 'close' },
          body: JSON.stringify(probe),
        }).catch((e: unknown) => {
          lastError = e;
          return undefined;
        });
        if (!r) await sleep(50);
      }
      if (!r)
        throw new Error(
          `the resumed old leader ${victim} did not answer (${(lastError as Error)?.message}; exit ${procs[victim].child.exitCode}): ${procs[victim].output().slice(-3000)}`,
        );
      const b = (await r.json().catch(() => ({}))) as { code?: string; leader?: string };
      resumedAnswer = { status: r.status, code: b.code, leader: b.leader };
      // An event far out of order for a subject the load used: only a leader may judge its order.
      const ahead = eventStream(devices[0]).next('exec-0', { cookwalaseq: 1_000_000, id: `ahead-${Date.now()}` });
      const r2 = await fetch(`${procs[victim].url}${logPath(o.log, '/events')}`, {
        method: 'POST',
        headers: { 'content-type': 'application/cloudevents+json', 'idempotency-key': `ahead-${Date.now()}`, connection: 'close' },
        body: JSON.stringify(ahead),
      });
      const b2 = (await r2.json().catch(() => ({}))) as { code?: string; leader?: string };
      resumedOutOfOrder = { status: r2.status, code: b2.code, leader: b2.leader };
    }
    const afterCount = acks.length + (o.after ?? 60);
    await when(() => acks.length >= afterCount);
    stop = true;
    await Promise.all(load);
    const survivor = procs[survivorName];
    const acksBy = { A: acks.filter((a) => a.by === 'A').length, B: acks.filter((a) => a.by === 'B').length };
    return {
      acks,
      unexpected,
      served,
      victim,
      survivor,
      takeoverMs,
      resumedAnswer,
      resumedOutOfOrder,
      procs,
      devices,
      reads,
      acksBy,
      notLeaderBy,
      dirs: [dirA, dirB],
      async stop() {
        for (const p of [A, B]) {
          if (p.child.exitCode === null && p.child.signalCode === null) {
            p.child.kill('SIGCONT');
            p.child.kill('SIGTERM');
          }
        }
        await Promise.all([exitOf(A.child), exitOf(B.child)]);
      },
    };
  }
}
