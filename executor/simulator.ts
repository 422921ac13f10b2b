// executor/simulator.ts: N simulated devices running realistic missions on a fast clock (docs/design.md §9),
// for tests, the demo and benchmarks. Each device is a real executor (its own data dir, key,
// LevelDB, outbox) with simulated hardware, listening on 127.0.0.1; the people around it act
// through its HTTP API as any client would: they create an execution (Idempotency-Key per mission,
// so a restarted simulator gets the same execution back), resume after a local pause or a
// needs_human check with If-Match, and press stop. Missions run one after another per device and
// devices run in parallel. Bounded: every wait has a real-time limit. After the missions, the
// simulator waits (bounded) for the outboxes to drain when consent lets events leave. A simulated
// cook stands by (attendance `present`, §6.6) unless `attendance` says otherwise; a refused
// mission answers 422 with the refused execution inside.

import { join } from 'node:path';
import { parseJson } from '../verifier/encoding/index.ts';
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { loadOrCreateDevice, type DeviceIdentity } from './device-key.ts';
import { createExecutor, type Executor, type ExecutorOptions } from './executor.ts';
import { fastClock, systemClock, type Clock } from '../platform/index.ts';
import { isFinal } from './lifecycle.ts';
import { missionFor, type MissionScript } from './missions.ts';
import { createSimulatedHardware, type SimulatedHardware } from './runner.ts';
import { createSequencerClient, ensureRegistered, type FetchLike } from './sequencer-client.ts';
import type { Dataset } from './request.ts';
import type { AttendanceState } from './attendance.ts';
import type { ExecutionRecord } from './store.ts';

export interface SimulationOptions {
  dir: string;
  devices: number;
  missions?: number;
  /** How many times faster than real time the devices' own clocks run (default 300). */
  speed?: number;
  sequencerUrl?: string;
  log?: string;
  consent?: Dataset;
  registerToken?: string;
  /** First API port (device i listens on port+i); 0 = any free port. */
  port?: number;
  heartbeatIntervalMs?: number;
  drainTimeoutMs?: number;
  /** Real-time limit for one mission (default 120 s); past it the simulator presses stop. */
  missionTimeoutMs?: number;
  print?: (line: string) => void;
  fetch?: FetchLike;
  executorOptions?: Partial<ExecutorOptions>;
  /** Who is around each device (§6.6); default present. */
  attendance?: AttendanceState;
}

export interface SimulatedDevice {
  identity: DeviceIdentity;
  executor: Executor;
  hardware: SimulatedHardware;
  url: string;
}

export interface SimulationSummary {
  devices: number;
  missions: number;
  statuses: Record<string, number>;
  events: number;
  delivered: number;
  pending: number;
  deadLetters: number;
  drained: boolean;
}

/** The sequencer would not take a device key (bad token, or another key under the kid). */
export class RegistrationError extends Error {
  override readonly name = 'RegistrationError';
}

/** The name of the device already in `dir`, if any (a restarted simulator keeps its devices). */
async function existingName(dir: string): Promise<string | undefined> {
  try {
    const j = parseJson(await readFile(join(dir, 'device.key.json'), 'utf8'));
    return j.ok ? (j.value as { name?: string } | null)?.name : undefined;
  } catch {
    return undefined;
  }
}

/** Start (or restart) the devices: keys, registration, executor, API on 127.0.0.1. */
export async function startSimulatedDevices(opts: SimulationOptions): Promise<SimulatedDevice[]> {
  const print = opts.print ?? (() => undefined);
  const clock = fastClock(opts.speed ?? 300);
  const out: SimulatedDevice[] = [];
  for (let i = 0; i < opts.devices; i++) {
    const dir = join(opts.dir, 'devices', `sim-${i + 1}`);
    const identity = await loadOrCreateDevice(dir, { name: (await existingName(dir)) ?? `sim${i + 1}-${randomBytes(3).toString('hex')}` });
    if (opts.registerToken && opts.sequencerUrl && opts.log) {
      const r = await ensureRegistered(
        createSequencerClient({ url: opts.sequencerUrl, log: opts.log, fetch: opts.fetch }),
        identity.keyRecord,
        opts.registerToken,
      );
      if (!r.ok) throw new RegistrationError(`registering ${identity.name}: ${r.detail}`);
    }
    let hardware: SimulatedHardware | undefined;
    const executor = await createExecutor(
      {
        dataDir: dir,
        source: identity.source,
        signer: identity.signer,
        keyRecord: identity.keyRecord,
        clock,
        networkClock: systemClock(),
        fetch: opts.fetch,
        hardware: (svc, c, limits, attendance) =>
          (hardware = createSimulatedHardware(svc, c, {
            spinDownMs: limits.limits.cutHeatMs,
            attendance,
            onError: (m) => print(`${identity.name}: ${m}`),
          })),
        onError: (m) => print(`${identity.name}: ${m}`),
      },
      {
        sequencerUrl: opts.sequencerUrl,
        log: opts.log,
        consent: opts.consent,
        heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 5_000,
        attendance: opts.attendance ?? { present: true },
        ...opts.executorOptions,
      },
    );
    const rec = await executor.start();
    if (rec.failed + rec.stopped + rec.restarted > 0)
      print(
        `${identity.name}: after restart ${rec.failed} failed (interrupted), ${rec.stopped} stops completed, ${rec.restarted} restarted`,
      );
    const url = await executor.app.listen({ host: '127.0.0.1', port: opts.port ? opts.port + i : 0 });
    out.push({ identity, executor, hardware: hardware as SimulatedHardware, url });
    print(`${identity.name} (${identity.source}) API ${url}`);
  }
  return out;
}

async function api(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const j = text ? parseJson(text) : undefined;
  if (j && !j.ok) throw new Error(`${method} ${url} answered ${res.status} with ${j.code}: ${j.detail}`);
  return { status: res.status, json: j ? (j.value as Record<string, unknown>) : {} };
}

/** Run one mission through the device's HTTP API; resolves with the final execution. */
export async function runMission(
  dev: SimulatedDevice,
  script: MissionScript,
  clock: Clock,
  opts: { print?: (l: string) => void; timeoutMs?: number } = {},
): Promise<ExecutionRecord | undefined> {
  const print = opts.print ?? (() => undefined);
  const svc = dev.executor.service;
  const seen: ExecutionRecord[] = [];
  let wake: (() => void) | undefined;
  const off = svc.onChange((x) => {
    seen.push(x);
    wake?.();
  });
  try {
    const created = await api(`${dev.url}/v1/executions`, 'POST', { 'idempotency-key': script.key }, script.request);
    const refused =
      created.status === 422 && typeof created.json.execution === 'object'
        ? (created.json.execution as Record<string, unknown>)
        : undefined;
    if (created.status !== 201 && created.status !== 200 && !refused)
      throw new Error(`create ${script.key}: HTTP ${created.status} ${String(created.json.code ?? '')}`);
    const id = (refused ?? created.json).id as string;
    // People act later, on the device's clock; a late act on a finished execution is just refused.
    const act = (what: string, p: () => Promise<unknown>) => () =>
      void p().catch((e: Error) => print(`${dev.identity.name}: ${what}: ${e.message}`));
    const stop = () => api(`${dev.url}/v1/executions/${id}/stop`, 'POST', {});
    const resume = (seq: number, why: string) =>
      api(`${dev.url}/v1/executions/${id}/resume`, 'POST', {
        'idempotency-key': `${script.key}-resume-${seq}`,
        'if-match': `"${seq}"`,
      }).then((r) => {
        if (r.status !== 200) print(`${dev.identity.name}: resume (${why}) answered ${r.status} ${String(r.json.code ?? '')}`);
      });
    let started = false;
    const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
    let stopPressed = false;
    let cur = await svc.get(id);
    // Bounded: each round consumes at least one status change or ends at the deadline.
    for (let round = 0; round < 10_000 && cur && !isFinal(cur.status); round++) {
      if (cur.status === 'running' && !started) {
        started = true;
        if (script.pause)
          clock.setTimeout(
            act('pause', () => dev.hardware.pauseLocally(id)),
            script.pause.afterS * 1000,
          );
        if (script.stopAfterS !== undefined) clock.setTimeout(act('stop', stop), script.stopAfterS * 1000);
      }
      if (cur.status === 'paused') {
        const seq = cur.seq;
        clock.setTimeout(
          act('resume', () => resume(seq, 'lid closed')),
          (script.pause?.pauseS ?? 30) * 1000,
        );
      }
      if (cur.status === 'needs_human') {
        const seq = cur.seq;
        clock.setTimeout(
          act('resume', () => resume(seq, 'person confirmed')),
          script.humanS * 1000,
        );
      }
      // Wait for the next change of this execution.
      let next: ExecutionRecord | undefined;
      for (let w = 0; w < 100_000 && !next; w++) {
        const i = seen.findIndex((x) => x.id === id && x.seq > (cur as ExecutionRecord).seq);
        if (i >= 0) {
          next = seen[i];
          seen.splice(0, i + 1);
          break;
        }
        if (Date.now() > deadline) {
          if (stopPressed) return svc.get(id);
          stopPressed = true;
          print(`${dev.identity.name}: mission ${script.key} over time, pressing stop`);
          await stop();
        }
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 250);
        });
      }
      cur = next ?? (await svc.get(id));
    }
    return cur;
  } finally {
    off();
  }
}

export async function runSimulation(opts: SimulationOptions): Promise<SimulationSummary> {
  const print = opts.print ?? ((l: string) => process.stdout.write(l + '\n'));
  const devices = await startSimulatedDevices({ ...opts, print });
  const clock = fastClock(opts.speed ?? 300);
  const missions = opts.missions ?? 3;
  const statuses: Record<string, number> = {};
  let eventsThisRun = 0;
  for (const d of devices) {
    d.executor.service.onChange((x, events) => {
      eventsThisRun += events.length;
      for (const e of events)
        print(
          `${d.identity.name} ${x.recipe.id} ${x.id.slice(0, 8)} #${String(e.cookwalaseq)} ${String(e.type).replace('cookwala.execution.', '')}${x.reason && e === events[events.length - 1] ? ` (${x.reason.code})` : ''}`,
        );
    });
  }
  try {
    await Promise.all(
      devices.map(async (d) => {
        for (let m = 0; m < missions; m++) {
          const x = await runMission(d, missionFor(d.identity.name, m), clock, { print, timeoutMs: opts.missionTimeoutMs });
          const s = x?.status ?? 'unknown';
          statuses[s] = (statuses[s] ?? 0) + 1;
        }
      }),
    );
    let drained = true;
    const consentOut = devices.some((d) => d.executor.store.consent().dataset !== 'none');
    if (opts.sequencerUrl && consentOut) {
      const r = await Promise.all(devices.map(async (d) => (await d.executor.delivery?.drained(opts.drainTimeoutMs ?? 60_000)) ?? true));
      drained = r.every(Boolean);
    }
    const sum: SimulationSummary = {
      devices: devices.length,
      missions: devices.length * missions,
      statuses,
      events: 0,
      delivered: 0,
      pending: 0,
      deadLetters: 0,
      drained,
    };
    for (const d of devices) {
      sum.delivered += d.executor.delivery?.stats().delivered ?? 0;
      sum.pending += await d.executor.store.pendingCount();
      sum.deadLetters += (await d.executor.store.deadLetters()).length;
    }
    for (const d of devices) for (const x of await listExecutions(d)) sum.events += x;
    print(
      `simulation: ${sum.missions} missions on ${sum.devices} devices: ${Object.entries(statuses)
        .map(([k, v]) => `${v} ${k}`)
        .join(
          ', ',
        )}; ${sum.events} events, ${sum.delivered} delivered this run, ${sum.pending} pending, ${sum.deadLetters} dead letters${sum.drained ? '' : ' (not drained)'}`,
    );
    if (!sum.drained) for (const d of devices) if ((await d.executor.store.pendingCount()) > 0) print(undrainedReason(d));
    for (const line of nothingDeliveredReasons(opts, sum, eventsThisRun, consentOut, missions)) print(line);
    return sum;
  } finally {
    for (const d of devices) await d.executor.close();
  }
}

/** When this run delivered nothing, why: so a second run on the same --data explains itself. */
export function nothingDeliveredReasons(
  opts: Pick<SimulationOptions, 'sequencerUrl' | 'dir'>,
  sum: SimulationSummary,
  eventsThisRun: number,
  consentOut: boolean,
  missions: number,
): string[] {
  if (sum.delivered > 0) return [];
  if (!opts.sequencerUrl) return ['nothing was delivered: no --sequencer was given, the events stay on the devices'];
  if (!consentOut)
    return ["nothing was delivered: the devices' consent is none, so nothing leaves them (pass --consent research_only or open)"];
  if (eventsThisRun === 0 && sum.pending === 0) {
    return [
      `nothing was delivered this run: the ${sum.devices} devices in ${join(opts.dir, 'devices')} had run missions 1-${missions} in an earlier run (each mission has a fixed Idempotency-Key, so it is not run twice) and delivered them then; pass --missions ${missions + 1} or more, or a new --data DIR`,
    ];
  }
  return [];
}

/** Why a device's outbox did not drain, in words a person can act on (the last refusal or fault). */
function undrainedReason(d: SimulatedDevice): string {
  const s = d.executor.delivery?.stats();
  const last = s?.lastError ?? 'no answer from the sequencer yet';
  const hint = /unknown_key/.test(last)
    ? ' (the sequencer does not know this device key: pass --register-token-file SEQ/operator.token, or set COOKWALA_OPERATOR_TOKEN)'
    : '';
  return `${d.identity.name}: outbox not drained after ${s?.attempts ?? 0} attempts; last: ${last}${hint}`;
}

async function listExecutions(d: SimulatedDevice): Promise<number[]> {
  const out: number[] = [];
  for (let m = 0; m < 10_000; m++) {
    const key = missionFor(d.identity.name, m).key;
    const seen = await d.executor.store.lookupIdempotency(key);
    if (!seen) break;
    out.push((await d.executor.store.events(seen.id)).length);
  }
  return out;
}
