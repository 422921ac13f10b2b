// testkit/soak.ts: the soak (DESIGN §14 "kill -9 of the sequencer, a witness, or an
// executor at random points under load, many times"), run by `npm run soak` (testkit/soak-cli.ts)
// and, short, by test/soak.test.ts. Real child processes on 127.0.0.1: one `cookwala sequencer`
// (policy quorum 1, checkpoints every 100 ms), one `cookwala witness` it publishes through, one
// `cookwala executor --simulate 1` delivering through its outbox; and in this process four device
// clients under mixed load: single structured events, batches of two, binary-mode events, and
// retries of acknowledged events under a new Idempotency-Key (each must be answered 200 with the
// seq first acknowledged). A request whose answer is lost (a kill) is resent unchanged until
// answered. At random moments one of the three processes (drawn from the seed) is SIGKILLed and
// restarted; after each restart the log is checked from the sequencer's HTTP API (testkit/soak-
// audit.ts: the new entries in full, a sample of older ones, the whole log every FULL_EVERY kills
// and at the end): every acknowledged event exactly once at its acknowledged seq, seqs 1..n without
// a gap, every entry hash, link and device signature, the Merkle root at every checkpoint observed
// so far rebuilt leaf by leaf, one head per checkpoint seq (no fork), the published checkpoint never moving back,
// the witness's stored seq for the log never moving back, and no temp file of a dead process left
// in the data directories. At the end the executor is stopped and its store read: every event it
// wrote is in the log once or still pending in its outbox (none lost). Bounded: stops after
// `kills` kills or `durationMs`, whichever first. Never imported by production code.

import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { initDataDir } from '../sequencer/data-dir.ts';
import { initWitnessDir, loadWitnessDir, saveWitnessConfig } from '../witness/server/data-dir.ts';
import { admitLog } from '../witness/server/config.ts';
import { readWitnessPolicy } from '../verifier/documents/policy.ts';
import type { KeyRecord } from '../verifier/documents/keys.ts';
import type { Entry } from '../verifier/documents/entry.ts';
import type { Checkpoint } from '../verifier/documents/checkpoint.ts';
import { openExecutorStore } from '../executor/store.ts';
import { prng } from '../executor/missions.ts';
import { readLogLines } from '../platform/logger.ts';
import { deviceKey, type TestKey } from './keys.ts';
import { eventStream } from './events.ts';
import { freePort } from './net.ts';
import { createLogAudit, type AuditAck } from './soak-audit.ts';
import { readInfo } from './witness-procs.ts';
import { makeTempDir, removeDir } from './tmp.ts';
import { changes, waitFor } from './wait.ts';

const ROOT = join(import.meta.dirname, '..');
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
  byMode: Record<'single' | 'batch' | 'binary' | 'retry', number>;
  entries: number;
  checks: number;
  /** Checks that re-read the whole log from seq 1 (the others read what is new, and a sample). */
  fullChecks: number;
  publishedSeq: number;
  witnessSeq: number;
  executorEvents: { written: number; logged: number; pending: number };
  failures: string[];
}

interface Proc {
  proc: ChildProcess;
  out: string[];
  exited: Promise<void>;
  waitLine(pred: (l: string) => boolean, what: string, ms?: number): Promise<string>;
}

function spawnProc(args: string[]): Proc {
  const proc = spawn(process.execPath, [join(ROOT, 'bin/cookwala.js'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const output = changes();
  let buf = '';
  const take = (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    out.push(...parts);
    if (out.length > 2000) out.splice(0, out.length - 1000);
    output.notify();
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  let dead = false;
  const exited = new Promise<void>((r) =>
    proc.once('exit', () => {
      dead = true;
      output.notify();
      r();
    }),
  );
  const waitLine = (pred: (l: string) => boolean, what: string, ms = 60_000): Promise<string> => {
    let seen = 0;
    return waitFor(
      () => {
        for (; seen < out.length; seen++) if (pred(out[seen])) return out[seen];
        if (dead) throw new Error(`${args[0]} exited before ${what}:\n${out.slice(-20).join('\n')}`);
        return undefined;
      },
      { what, timeoutMs: ms, wake: output, detail: () => out.slice(-20).join('\n') },
    );
  };
  return { proc, out, exited, waitLine };
}

const listening = (l: string) => readLogLines(l).some((r) => r.event === 'listening');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Ack = AuditAck;

/** Every FULL_EVERY kills (and at the end) the check re-reads the whole log from seq 1. */
const FULL_EVERY = 50;

export async function runSoak(o: SoakOptions): Promise<SoakSummary> {
  const seed = o.seed ?? Date.now() % 1e9;
  const rnd = prng(seed);
  const say = o.say ?? (() => undefined);
  const t0 = Date.now();
  const root = await makeTempDir('cookwala-soak-');
  const seqDir = join(root, 'sequencer');
  const wDir = join(root, 'witness');
  const exDir = join(root, 'executor');
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
    await initDataDir({ dir: seqDir, logs: [LOG], mode: 'hash_only' });
    const token = (await readFile(join(seqDir, 'operator.token'), 'utf8')).trim();
    const seqKey = JSON.parse(await readFile(join(seqDir, 'sequencer.keyrecord.json'), 'utf8')) as KeyRecord;
    const wPort = await freePort();
    await initWitnessDir(wDir, { name: 'soak-w', listen: [`/ip4/127.0.0.1/tcp/${wPort}`] });
    const wd = await loadWitnessDir(wDir);
    const admitted = admitLog(wd.config, { log: LOG, sequencer: seqKey });
    if (!admitted.ok) throw new Error(admitted.detail);
    await saveWitnessConfig(wDir, admitted.value.config);
    const policy = readWitnessPolicy({ kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: [wd.keyRecord], quorum: 1 });
    if (!policy.ok) throw new Error(policy.detail);
    await writeFile(join(seqDir, 'policy.json'), JSON.stringify(policy.value, null, 2));

    let witness: Proc | undefined;
    let witnessHttp: string | undefined;
    let witnessAddr = '';
    const tStart = Date.now();
    const startWitness = async () => {
      await rm(join(wDir, 'witness-info.json'), { force: true });
      const w = spawnProc(['witness', '--data', wDir]);
      procs.push(w);
      // witness-info.json is written by the child: nothing announces it, so this one wait polls.
      const info = await waitFor(
        async () => {
          const i = await readInfo(wDir);
          if (!i && w.proc.exitCode !== null) throw new Error(`witness exited: ${w.out.slice(-10).join('\n')}`);
          return i;
        },
        { what: 'the soak witness to write witness-info.json', timeoutMs: 60_000 },
      );
      witnessHttp = info.http;
      witnessAddr = info.multiaddrs[0];
      witness = w;
    };
    await startWitness();
    const cfg = JSON.parse(await readFile(join(seqDir, 'config.json'), 'utf8'));
    const port = await freePort();
    await writeFile(
      join(seqDir, 'config.json'),
      JSON.stringify({ ...cfg, port, checkpointIntervalMs: 100, witnessPeers: [witnessAddr] }, null, 2),
    );
    const base = `http://127.0.0.1:${port}`;
    let sequencer!: Proc;
    const startSequencer = async () => {
      const p = spawnProc(['sequencer', '--data', seqDir, '--port', String(port)]);
      procs.push(p);
      await p.waitLine(listening, 'the sequencer to listen');
      sequencer = p;
    };
    await startSequencer();
    const devices: TestKey[] = Array.from({ length: 4 }, (_, i) => deviceKey(900 + i));
    for (const d of devices) {
      const r = await fetch(`${base}/v1/logs/${enc}/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(d.record),
      });
      if (r.status !== 201 && r.status !== 200) throw new Error(`registering a device key: ${r.status}`);
    }
    let executor!: Proc;
    const startExecutor = async () => {
      const p = spawnProc([
        'executor',
        '--data',
        exDir,
        '--port',
        '0',
        '--sequencer',
        base,
        '--log',
        LOG,
        '--simulate',
        '1',
        '--missions',
        '100000',
        '--speed',
        '1500',
        '--consent',
        'research_only',
        '--register-token',
        token,
        '--heartbeat-ms',
        '500',
      ]);
      procs.push(p);
      executor = p;
      await p.waitLine((l) => / #\d+ /.test(l), 'the executor to report a status change');
    };
    await startExecutor();

    say(`soak: set up in ${Date.now() - tStart} ms in ${root}`);
    // --- load: four device outboxes, mixed modes
    const acks: Ack[] = [];
    let stop = false;
    const progress = new Set<() => void>();
    const acksOf = new Map<string, Ack[]>();
    const acked = (a: Ack, mode: keyof SoakSummary['byMode']) => {
      acks.push(a);
      const mine = acksOf.get(a.ce.source);
      if (mine) mine.push(a);
      else acksOf.set(a.ce.source, [a]);
      summary.byMode[mode]++;
      for (const l of [...progress]) l();
    };
    const moreAcks = () =>
      new Promise<void>((r) => {
        const n = acks.length;
        const f = () => {
          if (acks.length > n || stop) {
            progress.delete(f);
            r();
          }
        };
        progress.add(f);
      });
    /** Send until answered (a lost answer is resent unchanged); the answer's status and JSON. */
    const send = async (headers: Record<string, string>, body: string): Promise<{ status: number; json: any }> => {
      for (let attempt = 0; ; attempt++) {
        if (stop) return { status: 0, json: {} };
        try {
          const res = await fetch(`${base}/v1/logs/${enc}/events`, { method: 'POST', headers, body });
          const json = await res.json().catch(() => ({}));
          if (res.status === 503 || res.status >= 500) {
            await sleep(20);
            continue;
          }
          return { status: res.status, json };
        } catch {
          if (attempt > 5000) throw new Error('the sequencer never came back');
          await sleep(20);
        }
      }
    };
    const client = async (d: TestKey, idx: number) => {
      const s = eventStream(d);
      let n = 0;
      while (!stop) {
        const mode = (['single', 'batch', 'binary', 'retry'] as const)[n % 4];
        const key = `${d.record.kid}-${n++}`;
        if (mode === 'retry') {
          const mine = acksOf.get(d.owner) ?? [];
          if (mine.length === 0) continue;
          const a = mine[Math.floor(rnd() * mine.length)];
          const r = await send({ 'content-type': 'application/cloudevents+json', 'idempotency-key': `${key}-again` }, JSON.stringify(a.ce));
          if (r.status === 0) break;
          if (r.status !== 200 || r.json.seq !== a.seq)
            fail(`a retry of ${a.ce.id} (acknowledged at ${a.seq}) answered ${r.status} seq ${r.json.seq} ${r.json.code ?? ''}`);
          else summary.byMode.retry++;
          continue;
        }
        if (mode === 'batch') {
          const evs = [s.next(`soak-${idx}`), s.next(`soak-${idx}`)];
          const r = await send({ 'content-type': 'application/cloudevents-batch+json', 'idempotency-key': key }, JSON.stringify(evs));
          if (r.status === 0) break;
          const results = (r.json.results ?? []) as Array<{ status: number; seq: number; hash: string; code?: string }>;
          results.forEach((x, i) =>
            x.status === 201 || x.status === 200
              ? acked({ ce: evs[i], seq: x.seq, hash: x.hash }, 'batch')
              : fail(`batch item ${x.status} ${x.code}`),
          );
          continue;
        }
        const ce = s.next(`soak-${idx}`);
        let headers: Record<string, string> = { 'content-type': 'application/cloudevents+json', 'idempotency-key': key };
        let body = JSON.stringify(ce);
        if (mode === 'binary') {
          headers = { 'idempotency-key': key, 'content-type': ce.datacontenttype ?? 'application/json' };
          for (const [k, v] of Object.entries(ce))
            if (k !== 'data' && k !== 'data_base64' && k !== 'datacontenttype') headers[`ce-${k}`] = String(v);
          body = JSON.stringify(ce.data);
        }
        const r = await send(headers, body);
        if (r.status === 0) break;
        if (r.status === 201 || r.status === 200) acked({ ce, seq: r.json.seq, hash: r.json.hash }, mode);
        else fail(`${mode} event answered ${r.status} ${r.json.code}: ${r.json.detail}`);
      }
    };
    const load = devices.map((d, i) => client(d, i));

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
      while (!stop) {
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
      const alive = [sequencer, witness, executor]
        .filter((p): p is Proc => !!p && p.proc.exitCode === null && p.proc.signalCode === null)
        .map((p) => p.proc.pid!);
      await deadTemps(seqDir, alive);
      await deadTemps(wDir, alive);
      await deadTemps(exDir, alive);
    };

    // --- kills
    while (summary.kills.total < o.kills && Date.now() - t0 < o.durationMs && failures.length === 0 && !o.signal?.aborted) {
      await moreAcks();
      const r = rnd();
      const kind = o.order ? o.order[summary.kills.total % o.order.length] : r < 0.5 ? 'sequencer' : r < 0.75 ? 'witness' : 'executor';
      const tk = Date.now();
      await sleep(50 + Math.floor(rnd() * 400));
      const victim = kind === 'sequencer' ? sequencer : kind === 'witness' ? witness! : executor;
      victim.proc.kill('SIGKILL');
      await victim.exited;
      summary.kills[kind]++;
      summary.kills.total++;
      try {
        if (kind === 'sequencer') await startSequencer();
        else if (kind === 'witness') await startWitness();
        else await startExecutor();
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
    if (failures.length === 0) await moreAcks();
    stop = true;
    await Promise.all([...load, watcher]);
    summary.acknowledged = acks.length;
    summary.publishedSeq = publishedSeq;
    summary.witnessSeq = witnessSeq;
    if (failures.length > 0) return summary;
    await check('the end', true);

    // --- the executor's events: each in the log once, or still pending in its outbox
    executor.proc.kill('SIGTERM');
    await executor.exited;
    const logged = new Map<string, number>();
    for (const e of await allEntries()) {
      logged.set(`${e.ce.source} ${e.ce.id}`, (logged.get(`${e.ce.source} ${e.ce.id}`) ?? 0) + 1);
    }
    for (const name of await readdir(join(exDir, 'devices'))) {
      const store = await openExecutorStore(join(exDir, 'devices', name, 'db'));
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
