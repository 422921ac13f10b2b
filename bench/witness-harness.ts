// bench/witness-harness.ts: what the two witness sections (bench/witness.ts over libp2p,
// bench/c2sp.ts over C2SP HTTP) share: the bench witness key, how the witness runs (its verify and
// signing workers, as its CLI runs on more than one core; COOKWALA_BENCH_VERIFY_WORKERS=0 and
// COOKWALA_BENCH_SIGN_WORKER=0 turn them off), the phased client child (its requests built before
// any clock starts, one timed phase per pair), the CPU clocks (process, main thread, per thread on
// Linux), the optional profiler (COOKWALA_BENCH_CPU_PROF=DIR, COOKWALA_BENCH_HEAP_PROF=1) and the
// summaries both sections report. Leaves out: the limits and the timed figures (each section's).

import '../bin/polyfill.ts';
import { spawn } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StateStore } from '../witness/server/state.ts';
import { defaultWorkers } from '../witness/server/service.ts';
import { createHash } from 'node:crypto';
import { createSigner, keyRecordOf, type SecretKey, type Signer } from '../verifier/signing/signature.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { toBase64url } from '../verifier/encoding/wire.ts';
import type { PairsResult } from './pairs.ts';
import { threadCpuMs, threadCpuUsPer } from './proc-cpu.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Worker threads checking the sequencers' signatures (createWitness verifyWorkers): as many as the
 * CLI uses on this machine (defaultWorkers). COOKWALA_BENCH_VERIFY_WORKERS=N overrides (0: inline).
 */
export const VERIFY_WORKERS = Number(process.env.COOKWALA_BENCH_VERIFY_WORKERS ?? defaultWorkers().verifyWorkers);
/** Cosignatures signed on the witness's signing worker (createWitness signWorker), as the CLI does. */
export const SIGN_WORKER = process.env.COOKWALA_BENCH_SIGN_WORKER
  ? process.env.COOKWALA_BENCH_SIGN_WORKER !== '0'
  : defaultWorkers().signWorker;

/**
 * Requests each log sends in one timed phase of the witness sections (bench/witness.ts,
 * bench/c2sp.ts): 20, about 4 s a phase at 1,000 logs (2 with --quick). Five, about 1 s a phase,
 * weighed the start and end of a phase (the first burst, the last logs still answering while
 * the others are done) more than a steady state, and spread the pairs inside a section wider
 * (docs/benchmarks.md, "Earlier runs").
 */
export const witnessRounds = (quick: boolean): number => (quick ? 2 : 20);

/** A witness key with its secret (the signing worker needs it), deterministic per name. */
export function benchWitnessKey(name: string): { secretKey: SecretKey; signer: Signer; keyRecord: KeyRecord } {
  const seed = createHash('sha256').update(`cookwala-bench-key:${name}`).digest();
  const secretKey: SecretKey = { alg: 'EdDSA', kid: `wit-${name}`, secretKey: toBase64url(seed) };
  const signer = createSigner(secretKey);
  return {
    secretKey,
    signer,
    keyRecord: keyRecordOf(signer, { owner: `bench:${name}`, role: 'witness', validFrom: '2026-01-01T00:00:00.000Z' }),
  };
}

/**
 * COOKWALA_BENCH_CPU_PROF=DIR: a CPU profile of this (the witness's) process over each timed
 * client phase, written to DIR/<name>-<phase>.cpuprofile (read it with bench/cpu-profile.ts).
 */
const profiler = (() => {
  const dir = process.env.COOKWALA_BENCH_CPU_PROF;
  // COOKWALA_BENCH_HEAP_PROF=1 with it: a sampling heap profile (collected objects included) too.
  const heap = process.env.COOKWALA_BENCH_HEAP_PROF === '1';
  let session: Session | undefined;
  return {
    async start() {
      if (!dir) return;
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      if (heap)
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        } as never);
    },
    async stop(name: string) {
      if (!session) return;
      const s = session;
      session = undefined;
      const { profile } = await s.post('Profiler.stop');
      const sampled = heap ? ((await s.post('HeapProfiler.stopSampling')) as { profile: unknown }).profile : undefined;
      s.disconnect();
      mkdirSync(dir!, { recursive: true });
      writeFileSync(join(dir!, `${name}.cpuprofile`), JSON.stringify(profile));
      if (sampled) writeFileSync(join(dir!, `${name}.heapprofile`), JSON.stringify(sampled));
    },
  };
})();

/**
 * CPU ms of this process's main thread (the event loop) alone, from /proc (Linux: utime + stime of
 * the task whose id is the pid, in clock ticks of 10 ms); undefined elsewhere. Unlike the event
 * loop's busy time it does not count time the thread was ready but not running (a shared machine).
 */
export function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return undefined;
  }
}

export interface PhaseRun {
  /** The child's "done" line: ms, failures, requests and whatever else it reports. */
  done: { ms: number; failures: number; requests: number } & Record<string, unknown>;
  /** Synced batches and records the state store wrote during the phase. */
  batches: number;
  records: number;
  /** CPU time (user + system, all threads) of this, the witness's, process during the phase. */
  cpuMs: number;
  /** Busy time of this process's event loop during the phase (eventLoopUtilization active). */
  loopMs: number;
  /** CPU time of the main thread alone during the phase (mainThreadCpuMs), when known. */
  mainCpuMs?: number;
}

export interface ClientSession {
  /** Resolves when the child is set up and waits for its next phase (so a limit measured now runs alone). */
  ready(): Promise<void>;
  /** Let the child run its next timed phase; resolves with that phase's figures. */
  phase(): Promise<PhaseRun>;
  /** Resolves once the child exited cleanly (after its last phase). */
  closed: Promise<void>;
}

/**
 * A bench client child (`node --import tsx --import ./bin/polyfill.ts <args>`) that prints
 * {"phase":"ready"} and waits for "go" on its stdin before each timed phase, then prints
 * {"phase":"start"} and {"phase":"done", ms, failures, requests, …}; the state store's stats are
 * read at start and done (and the witness process is CPU-profiled in between, see `profiler`).
 * Shared by bench/witness.ts and bench/c2sp.ts.
 */
export function startPhasedClient(args: string[], state: StateStore, name: string): ClientSession {
  // COOKWALA_BENCH_CLIENT_PROF=DIR: a CPU profile of the client child too (its whole life).
  const clientProf = process.env.COOKWALA_BENCH_CLIENT_PROF;
  const profArgs = clientProf ? ['--cpu-prof', `--cpu-prof-dir=${clientProf}`] : [];
  const child = spawn(process.execPath, [...profArgs, '--import', 'tsx', '--import', './bin/polyfill.ts', ...args], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let buf = '';
  let before = state.stats();
  let cpuBefore = process.cpuUsage();
  let eluBefore = performance.eventLoopUtilization();
  let mainBefore = mainThreadCpuMs();
  // COOKWALA_BENCH_THREADS=1: each phase's CPU per request by thread name, on stderr.
  const perThread = process.env.COOKWALA_BENCH_THREADS === '1';
  let threadsBefore = perThread ? threadCpuMs() : new Map<string, number>();
  let ready: () => void = () => {};
  let readyNow = new Promise<void>((r) => (ready = r));
  let waiting: { resolve: (r: PhaseRun) => void; reject: (e: Error) => void } | undefined;
  let failed: Error | undefined;
  let phases = 0;
  child.stdout!.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const m = JSON.parse(line) as PhaseRun['done'] & { phase: string };
      if (m.phase === 'ready') ready();
      if (m.phase === 'start') {
        before = state.stats();
        cpuBefore = process.cpuUsage();
        eluBefore = performance.eventLoopUtilization();
        mainBefore = mainThreadCpuMs();
        if (perThread) threadsBefore = threadCpuMs();
      }
      if (m.phase === 'done') {
        void profiler.stop(`${name}-${phases++}`);
        const after = state.stats();
        const cpu = process.cpuUsage(cpuBefore);
        const elu = performance.eventLoopUtilization(eluBefore);
        const mainAfter = mainThreadCpuMs();
        if (perThread) {
          const us = threadCpuUsPer(threadsBefore, threadCpuMs(), m.requests);
          process.stderr.write(`threads ${name}-${phases}: CPU us per request ${JSON.stringify(us)}\n`);
        }
        const w = waiting;
        waiting = undefined;
        w?.resolve({
          done: m,
          batches: after.batches - before.batches,
          records: after.records - before.records,
          cpuMs: (cpu.user + cpu.system) / 1000,
          loopMs: elu.active,
          ...(mainAfter !== undefined && mainBefore !== undefined ? { mainCpuMs: mainAfter - mainBefore } : {}),
        });
      }
    }
  });
  const closed = new Promise<void>((resolve, reject) => {
    const die = (e: Error) => {
      failed = e;
      waiting?.reject(e);
      waiting = undefined;
      ready();
      reject(e);
    };
    child.on('error', die);
    child.on('close', (code) => (code === 0 ? resolve() : die(new Error(`${args[0]} exited ${code}`))));
  });
  closed.catch(() => {});
  return {
    closed,
    async ready() {
      await readyNow;
      if (failed) throw failed;
    },
    async phase() {
      await readyNow;
      if (failed) throw failed;
      readyNow = new Promise<void>((r) => (ready = r));
      const p = new Promise<PhaseRun>((resolve, reject) => (waiting = { resolve, reject }));
      // Before the go: `Profiler.start` holds the event loop for 80-220 ms (V8 logs the code it
      // has), which must not fall inside the phase the clocks time.
      await profiler.start();
      child.stdin!.write('go\n');
      return p;
    },
  };
}

/**
 * One untimed phase of the client before the pairs: in a section's fresh process the first
 * phase ran cold (JIT, worker start-up: dearer a request than every phase after it), and a
 * witness in service is warm. Every request of it must still be cosigned.
 */
export async function warmUp(clients: ClientSession): Promise<void> {
  const r = await clients.phase();
  if (r.done.failures > 0) throw new Error(`warm-up phase: ${r.done.failures} of ${r.done.requests} requests failed`);
}

/**
 * Requests per CPU-second of the witness's process (all its threads) over the limit per CPU-second
 * of the same process, per pair: how
 * much of the witness's own CPU goes to the cryptography, whatever share of the machine it got (the
 * client child and any neighbour compete with it during a phase, not during the limit). Median and spread.
 */
export function cpuRatioSummary(ratios: number[]): { cpuRatioToCryptoLimit: number; cpuRatioSpread: [number, number] } {
  const r = [...ratios].sort((a, b) => a - b).map((x) => Math.round(x * 1000) / 1000);
  return { cpuRatioToCryptoLimit: r[Math.floor((r.length - 1) / 2)], cpuRatioSpread: [r[0], r[r.length - 1]] };
}

/** What a pair records of the witness's CPU per request (see the header for each figure). */
export interface CpuPerRequest {
  cpuUsPerRequest: number;
  loopUsPerRequest: number;
  mainCpuUsPerRequest: number;
  clientCpuUsPerRequest?: number;
}

/** What one phase measured, per request (CpuPerRequest), with the state store's batches and records. */
export type PhaseFigures = CpuPerRequest & { requests: number; batches: number; records: number };

export function phaseFigures(r: PhaseRun): PhaseFigures {
  const per = (ms: number) => Math.round((ms * 1000) / r.done.requests);
  return {
    requests: r.done.requests,
    batches: r.batches,
    records: r.records,
    cpuUsPerRequest: per(r.cpuMs),
    loopUsPerRequest: per(r.loopMs),
    mainCpuUsPerRequest: r.mainCpuMs === undefined ? -1 : per(r.mainCpuMs),
    ...(typeof r.done.clientCpuMs === 'number' ? { clientCpuUsPerRequest: per(r.done.clientCpuMs) } : {}),
  };
}

/**
 * The CPU-per-request fields of a section: the median pair's (all threads, the event loop, the
 * client child) and every pair's, and how the witness ran (its worker threads). The C2SP section
 * reports the same fields under a `witness` prefix (prefixed()).
 */
export function cpuPerRequestSummary(median: CpuPerRequest, all: readonly CpuPerRequest[]): Record<string, unknown> {
  return {
    cpuUsPerRequest: median.cpuUsPerRequest,
    loopUsPerRequest: median.loopUsPerRequest,
    loopUsPerRequestPairs: all.map((p) => p.loopUsPerRequest),
    // The main thread's own CPU per request (the event loop's cost; /proc, 10 ms ticks), per pair.
    mainCpuUsPerRequestPairs: all.map((p) => p.mainCpuUsPerRequest),
    cpuUsPerRequestPairs: all.map((p) => p.cpuUsPerRequest),
    clientCpuUsPerRequest: median.clientCpuUsPerRequest,
    verifyWorkers: VERIFY_WORKERS,
    signWorker: SIGN_WORKER,
  };
}

/** A witness section's pair figures: median requests/s and limit, its ratio, the spreads, every pair. */
export function pairFigures<E>(pairs: PairsResult<E>): Record<string, unknown> {
  return {
    addCheckpointPerSec: pairs.median.figure,
    cryptoLimitPerSec: pairs.median.limit,
    ratioToCryptoLimit: pairs.ratio,
    ratioSpread: pairs.ratioSpread,
    limitSpread: pairs.limitSpread,
    limitsAgree: pairs.limitsAgree,
    pairs: pairs.pairs.map((p) => ({ limit: p.limit, figure: p.figure, ratio: p.ratio })),
  };
}

/** `o` with every key as `prefix` + Key (the C2SP section's witness figures). */
export function prefixed(prefix: string, o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [`${prefix}${k[0].toUpperCase()}${k.slice(1)}`, v]));
}
