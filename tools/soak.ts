// tools/soak.ts: the soak (docs/design.md §14 "kill -9 of the sequencer, a witness, or an
// executor at random points under load, many times"), run by `npm run soak` (tools/soak-cli.ts)
// and, short, by test/soak.test.ts. Real child processes on 127.0.0.1 (tools/soak-procs.ts: one
// `cookwala sequencer`, one `cookwala witness` it publishes through, one `cookwala executor
// --simulate 1`) under the mixed load of four device clients in this process
// (tools/soak-load.ts). At random moments one of the three processes (drawn from the seed) is
// SIGKILLed and restarted; after each restart the log is checked from the sequencer's HTTP API
// (tools/soak-audit.ts: the new entries in full, a sample of older ones, the whole log every
// FULL_EVERY kills and at the end): every acknowledged event exactly once at its acknowledged
// seq, seqs 1..n without a gap, every entry hash, link and device signature, the Merkle root at
// every checkpoint observed so far rebuilt leaf by leaf, one head per checkpoint seq (no fork),
// the published checkpoint never moving back, the witness's stored seq for the log never moving
// back, and no temp file of a dead process left in the data directories. At the end the executor
// is stopped and its store read: every event it wrote is in the log once or still pending in its
// outbox (none lost). Bounded: stops after `kills` kills or `durationMs`, whichever first. Never
// imported by production code.

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Entry } from '../verifier/documents/index.ts';
import type { Checkpoint } from '../verifier/documents/index.ts';
import { openExecutorStore } from '../executor/index.ts';
import { prng } from '../executor/index.ts';
import { deviceKey, type TestKey } from '../testkit/index.ts';
import { createLogAudit } from './soak-audit.ts';
import { prepareSoakCluster, type Proc } from './soak-procs.ts';
import { sleep, startSoakLoad, type LoadMode } from './soak-load.ts';
import { makeTempDir, removeDir } from '../testkit/index.ts';

const LOG = 'soak.example/missions/m-1';
const enc = encodeURIComponent(LOG);

export interface SoakOptions {
  kills: number;
  durationMs: number;
  seed?: number;
  /** Kill these kinds in turn instead of drawing them (the short test covers all three). */
  order?: Array<'sequencer' | 'witness' | 'executor'>;
  /** Progress lines (the CLI prints them); silent by default. */
  say?: (line: string) => void;
  /** Aborted (the CLI's SIGINT/SIGTERM): no more kills; the final checks run and every child is stopped. */
  signal?: AbortSignal;
}

export interface SoakSummary {
  seed: number;
  kills: { sequencer: number; witness: number; executor: number; total: number };
  killsPerMinute: number;
  durationMs: number;
  acknowledged: number;
  byMode: Record<LoadMode, number>;
  entries: number;
  checks: number;
  /** Checks that re-read the whole log from seq 1 (the others read what is new, and a sample). */
  fullChecks: number;
  publishedSeq: number;
  witnessSeq: number;
  executorEvents: { written: number; logged: number; pending: number };
  failures: string[];
}

/** Every FULL_EVERY kills (and at the end) the check re-reads the whole log from seq 1. */
const FULL_EVERY = 50;

export async function runSoak(o: SoakOptions): Promise<SoakSummary> {
  const seed = o.seed ?? Date.now() % 1e9;
  const rnd = prng(seed);
  const say = o.say ?? (() => undefined);
  const t0 = Date.now();
  const root = await makeTempDir('cookwala-soak-');
  const failures: string[] = [];
  const fail = (s: string) => {
    failures.push(s);
    say(`FAILURE: ${s}`);
  };
  const procs: Proc[] = [];
  const summary: SoakSummary = {
    seed,
    kills: { sequencer: 0, witness: 0, executor: 0, total: 0 },
    killsPerMinute: 0,
    durationMs: 0,
    acknowledged: 0,
    byMode: { single: 0, batch: 0, binary: 0, retry: 0 },
    entries: 0,
    checks: 0,
    fullChecks: 0,
    publishedSeq: 0,
    witnessSeq: 0,
    executorEvents: { written: 0, logged: 0, pending: 0 },
    failures,
  };
  try {
    // --- set up: sequencer data dir, one witness admitted to the log, a policy of quorum 1
    const c = await prepareSoakCluster(root, LOG, procs);
    const tStart = Date.now();
    await c.start('witness');
    await c.configureSequencer();
    const base = c.base;
    await c.start('sequencer');
    const devices: TestKey[] = Array.from({ length: 4 }, (_, i) => deviceKey(900 + i));
    for (const d of devices) {
      const r = await fetch(`${base}/v1/logs/${enc}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${c.token}` },
        body: JSON.stringify(d.record),
      });
      if (r.status !== 201 && r.status !== 200) throw new Error(`registering a device key: ${r.status}`);
    }
    await c.start('executor');

    say(`soak: set up in ${Date.now() - tStart} ms in ${root}`);
    // --- load: four device outboxes, mixed modes
    const load = startSoakLoad({ url: `${base}/v1/logs/${enc}/events`, devices, rnd, fail, byMode: summary.byMode });
    const acks = load.acks;

    // --- checks
    /** One page of entries from `from` (to `to`, or at most 10,000: the entries route's page). */
    const readPage = async (from: number, to?: number): Promise<{ entries: Entry[]; head: number }> => {
      const res = await fetch(`${base}/v1/logs/${enc}/entries?from=${from}${to === undefined ? '' : `&to=${to}`}`);
      const entries = (await res.text())
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Entry);
      return { entries, head: Number(res.headers.get('cookwala-head') ?? 0) };
    };
    /** The whole log, page by page. */
    const allEntries = async (): Promise<Entry[]> => {
      const out: Entry[] = [];
      for (;;) {
        const page = await readPage(out.length + 1);
        out.push(...page.entries);
        if (page.entries.length === 0 || out.length >= page.head) return out;
      }
    };
    const descriptor = (await (await fetch(`${base}/v1/logs/${enc}`)).json()) as { hash: string };
    const audit = createLogAudit({
      descriptorHash: descriptor.hash,
      keys: devices.map((x) => x.record),
      readPage,
      sample: (size) => Array.from({ length: Math.min(size, 8) }, () => 1 + Math.floor(rnd() * size)),
    });
    const observed = new Map<number, Checkpoint>();
    let publishedSeq = 0;
    let witnessSeq = 0;
    const watchCheckpoints = async () => {
      while (!load.stopped) {
        try {
          const r = await fetch(`${base}/v1/logs/${enc}/checkpoint`);
          if (r.status === 200) {
            const cp = (await r.json()) as Checkpoint;
            const seen = observed.get(cp.seq);
            if (seen && (seen.head !== cp.head || seen.root !== cp.root)) fail(`fork: two checkpoints at seq ${cp.seq}`);
            observed.set(cp.seq, cp);
            if (cp.seq < publishedSeq) fail(`checkpoint rollback: ${cp.seq} after ${publishedSeq}`);
            publishedSeq = Math.max(publishedSeq, cp.seq);
          }
        } catch {
          // down
        }
        await sleep(50);
      }
    };
    const watcher = watchCheckpoints();
    const deadTemps = async (dir: string, alive: number[]) => {
      for (const e of await readdir(dir, { recursive: true }).catch(() => [] as string[])) {
        const m = /\.tmp-(\d+)-/.exec(String(e));
        if (m && !alive.includes(Number(m[1]))) fail(`a temp file of a dead process is left: ${e}`);
      }
    };
    const check = async (after: string, full: boolean) => {
      summary.checks++;
      // Everything acknowledged or observed before the log is read must be in what is read.
      const acksNow = acks.slice();
      const observedNow = [...observed.values()];
      for (const f of await audit.check(acksNow, observedNow, full, after)) fail(f);
      summary.entries = audit.size;
      summary.fullChecks = audit.fullChecks;
      const witnessHttp = c.witnessHttp;
      if (witnessHttp) {
        try {
          const w = (await (await fetch(`${witnessHttp}/v1/logs`)).json()) as { logs: Array<{ log: string; seq: number | null }> };
          const seq = w.logs.find((l) => l.log === LOG)?.seq ?? 0;
          if (seq < witnessSeq) fail(`witness rollback: ${seq} after ${witnessSeq}`);
          witnessSeq = Math.max(witnessSeq, seq);
        } catch {
          // the witness is restarting
        }
      }
      const alive = [c.proc('sequencer'), c.proc('witness'), c.proc('executor')]
        .filter((p): p is Proc => !!p && p.proc.exitCode === null && p.proc.signalCode === null)
        .map((p) => p.proc.pid!);
      await deadTemps(c.dirs.sequencer, alive);
      await deadTemps(c.dirs.witness, alive);
      await deadTemps(c.dirs.executor, alive);
    };

    // --- kills
    while (summary.kills.total < o.kills && Date.now() - t0 < o.durationMs && failures.length === 0 && !o.signal?.aborted) {
      await load.moreAcks();
      const r = rnd();
      const kind = o.order ? o.order[summary.kills.total % o.order.length] : r < 0.5 ? 'sequencer' : r < 0.75 ? 'witness' : 'executor';
      const tk = Date.now();
      await sleep(50 + Math.floor(rnd() * 400));
      const victim = c.proc(kind)!;
      victim.proc.kill('SIGKILL');
      await victim.exited;
      summary.kills[kind]++;
      summary.kills.total++;
      try {
        await c.start(kind);
      } catch (e) {
        fail(`the ${kind} did not come back after kill ${summary.kills.total}: ${(e as Error).message.slice(0, 500)}`);
        break;
      }
      const tr = Date.now();
      await check(`kill ${summary.kills.total} (${kind})`, summary.kills.total % FULL_EVERY === 0);
      say(`kill ${summary.kills.total} ${kind}: waited+killed+restarted in ${tr - tk} ms, checked in ${Date.now() - tr} ms`);
      if (summary.kills.total % 10 === 0)
        say(
          `soak: ${summary.kills.total} kills, ${acks.length} acknowledged, ${summary.entries} entries, published ${publishedSeq}, ${failures.length} failures`,
        );
    }
    if (failures.length === 0) await load.moreAcks();
    load.halt();
    await Promise.all([load.done, watcher]);
    summary.acknowledged = acks.length;
    summary.publishedSeq = publishedSeq;
    summary.witnessSeq = witnessSeq;
    if (failures.length > 0) return summary;
    await check('the end', true);

    // --- the executor's events: each in the log once, or still pending in its outbox
    const executor = c.proc('executor')!;
    executor.proc.kill('SIGTERM');
    await executor.exited;
    const logged = new Map<string, number>();
    for (const e of await allEntries()) {
      logged.set(`${e.ce.source} ${e.ce.id}`, (logged.get(`${e.ce.source} ${e.ce.id}`) ?? 0) + 1);
    }
    for (const name of await readdir(join(c.dirs.executor, 'devices'))) {
      const store = await openExecutorStore(join(c.dirs.executor, 'devices', name, 'db'));
      try {
        const pending = await store.pendingCount();
        let missing = 0;
        for (const id of await store.executionIds()) {
          for (const e of await store.events(id)) {
            summary.executorEvents.written++;
            const n = logged.get(`${e.source} ${e.id}`) ?? 0;
            if (n > 1) fail(`executor event ${e.id} is in the log ${n} times`);
            if (n === 0) missing++;
            else summary.executorEvents.logged++;
          }
        }
        summary.executorEvents.pending += pending;
        if (missing > pending) fail(`executor ${name}: ${missing} events are neither in the log nor pending (${pending} pending): lost`);
      } finally {
        await store.close();
      }
    }
    summary.acknowledged = acks.length;
    summary.publishedSeq = publishedSeq;
    summary.witnessSeq = witnessSeq;
  } finally {
    for (const p of procs) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await removeDir(root);
    summary.durationMs = Date.now() - t0;
    summary.killsPerMinute = Math.round((summary.kills.total / (summary.durationMs / 60_000)) * 10) / 10;
  }
  return summary;
}

/** The one summary line `npm run soak` ends with. */
export function summaryLine(s: SoakSummary): string {
  return `soak: ${s.kills.total} kills (sequencer ${s.kills.sequencer}, witness ${s.kills.witness}, executor ${s.kills.executor}) in ${Math.round(s.durationMs / 1000)} s = ${s.killsPerMinute} kills/min; ${s.acknowledged} acknowledged (single ${s.byMode.single}, batch ${s.byMode.batch}, binary ${s.byMode.binary}; ${s.byMode.retry} retries answered 200), ${s.entries} entries, ${s.checks} checks (${s.fullChecks} of the whole log), published seq ${s.publishedSeq}, witness seq ${s.witnessSeq}; executor events ${s.executorEvents.written} written, ${s.executorEvents.logged} logged, ${s.executorEvents.pending} pending; ${s.failures.length === 0 ? 'no loss, duplicate, gap, fork, rollback or stale temp file' : `${s.failures.length} FAILURES`} (seed ${s.seed})`;
}
