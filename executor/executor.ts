// executor/executor.ts: createExecutor(deps, opts), the device executor as one object (docs/design.md §9):
// the store (LevelDB under the device's data dir), the execution service, the Core API app (built,
// not listening), the hardware (simulated unless the device maker supplies one), the outbox
// delivery and heartbeats to a sequencer (only when a sequencer is configured), and consent.
// Consent (Core 0.2 §8): the device's `consent.dataset` is `none` by default, so everything stays in
// the local outbox; a change to research_only/open lets it leave; a change back to none is a
// withdrawal: one `cookwala.consent.withdrawn` event is sent, the pending outbox is dropped (the
// events stay in the device's own log) and executions of the old consent epoch never leave again.
// Nothing starts at construction; start() recovers interrupted executions and starts the loops;
// close() stops whatever the hardware is running (a shutdown is a local stop), then the loops.
// Attendance (§6.6) is one in-memory object shared by the plan, the hardware and the owner API;
// nobody is declared unless opts.attendance says so. stopAll() is the device's own stop control
// (the CLI wires it to SIGUSR2 and to DATA/control.sock): it calls the service directly, never HTTP.

import { join } from 'node:path';
import type { Logger } from '../platform/index.ts';
import type { FastifyInstance } from 'fastify';
import type { Signer } from '../verifier/signing/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import { buildExecutorApp } from './api.ts';
import { createAttendance, NOBODY, type Attendance, type AttendanceState } from './attendance.ts';
import { systemClock, type Clock } from '../platform/index.ts';
import { buildConsentWithdrawn } from './events.ts';
import { createHeartbeats, type Heartbeats } from './heartbeat.ts';
import { createDelivery, type Delivery, type DeliveryOptions } from './outbox.ts';
import { DEFAULT_PROFILE, type DeviceProfile } from './plan.ts';
import type { Dataset } from './request.ts';
import { DEFAULT_SAFETY_LIMITS, mergeSafetyLimits, type Limits, type SafetyLimits } from './safety-limits.ts';
import { createSequencerClient, type FetchLike, type SequencerClient } from './sequencer-client.ts';
import { createExecutionService, type ExecutionService, type Hardware } from './service.ts';
import { openExecutorStore, type ExecutorStore } from './store.ts';

export interface ExecutorDeps {
  /** The device's data dir; the LevelDB lives in DIR/db. */
  dataDir: string;
  source: string;
  signer: Signer;
  keyRecord: KeyRecord;
  /** The device's clock (steps, spin-down, timestamps); the simulator passes a fast one. */
  clock?: Clock;
  /** Timers for the network side (delivery backoff, heartbeats); real time by default, so a fast
   *  device clock does not flood the sequencer. */
  networkClock?: Clock;
  fetch?: FetchLike;
  /** The hardware layer; absent = none (executions wait in `accepted` until driven by hand). */
  hardware?: (svc: ExecutionService, clock: Clock, limits: SafetyLimits, attendance: Attendance) => Hardware;
  onError?: (message: string) => void;
  newId?: () => string;
}

export interface ExecutorOptions {
  sequencerUrl?: string;
  log?: string;
  /** Set the device consent at start (stored otherwise; `none` when never set). */
  consent?: Dataset;
  apiToken?: string;
  /** The device owner's token: pause, attendance and consent on the API (loopback only). */
  ownerToken?: string;
  /** Who is around at start (§6.6); default nobody. */
  attendance?: AttendanceState;
  profile?: Partial<DeviceProfile>;
  /** The device maker's pack: merged with the default, the stricter value of each limit wins. */
  safetyLimits?: Partial<Limits> | SafetyLimits;
  /** 0 turns heartbeats off; default 5000. */
  heartbeatIntervalMs?: number;
  delivery?: DeliveryOptions;
  bodyLimit?: number;
  /** The service logger (platform/logger.ts createLogger), also fastify's. */
  logger?: Logger;
}

export interface Executor {
  readonly app: FastifyInstance;
  readonly service: ExecutionService;
  readonly store: ExecutorStore;
  readonly hardware?: Hardware;
  readonly delivery?: Delivery;
  readonly heartbeats?: Heartbeats;
  readonly client?: SequencerClient;
  readonly limits: SafetyLimits;
  readonly attendance: Attendance;
  /** The device's own stop control: stop every execution that may be doing something (local_stop). */
  stopAll(): Promise<Array<{ id: string; status: string }>>;
  start(): Promise<{ failed: number; stopped: number; restarted: number }>;
  setConsent(d: Dataset): Promise<void>;
  /** Returns false when consent was already none (nothing to withdraw). */
  withdrawConsent(): Promise<boolean>;
  close(): Promise<void>;
}

export async function createExecutor(deps: ExecutorDeps, opts: ExecutorOptions = {}): Promise<Executor> {
  const clock = deps.clock ?? systemClock();
  const net = deps.networkClock ?? systemClock();
  const limits = mergeSafetyLimits(DEFAULT_SAFETY_LIMITS, opts.safetyLimits);
  const profile: DeviceProfile = { ...DEFAULT_PROFILE, ...opts.profile };
  if (opts.sequencerUrl && !opts.log) throw new TypeError('a sequencer URL needs the log origin');
  const store = await openExecutorStore(join(deps.dataDir, 'db'));
  const attendance = createAttendance(opts.attendance ?? NOBODY, () => clock.now());
  const service = createExecutionService({
    store,
    clock,
    source: deps.source,
    signer: deps.signer,
    profile,
    limits,
    attendance,
    newId: deps.newId,
  });
  const hardware = deps.hardware?.(service, clock, limits, attendance);
  service.setHardware(hardware);
  const setConsentVia = async (d: Dataset): Promise<boolean> => {
    const before = store.consent();
    await ex.setConsent(d);
    return d === 'none' && before.dataset !== 'none';
  };
  const app = buildExecutorApp(service, store, {
    source: deps.source,
    keys: () => [deps.keyRecord],
    limits,
    profile,
    apiToken: opts.apiToken,
    ownerToken: opts.ownerToken,
    attendance,
    setConsent: setConsentVia,
    bodyLimit: opts.bodyLimit,
    logger: opts.logger,
  });

  let client: SequencerClient | undefined;
  let delivery: Delivery | undefined;
  let heartbeats: Heartbeats | undefined;
  if (opts.sequencerUrl && opts.log) {
    client = createSequencerClient({ url: opts.sequencerUrl, log: opts.log, fetch: deps.fetch });
    delivery = createDelivery({ store, clock: net, client }, { onError: deps.onError, ...opts.delivery });
    const interval = opts.heartbeatIntervalMs ?? 5_000;
    if (interval > 0) {
      heartbeats = createHeartbeats({ store, clock: net, client, ctx: { source: deps.source, signer: deps.signer } }, interval);
    }
  }
  service.onChange(() => delivery?.wake());

  let consentChain: Promise<unknown> = Promise.resolve();
  const serialConsent = <T>(fn: () => Promise<T>): Promise<T> => {
    const r = consentChain.then(fn, fn);
    consentChain = r.catch(() => undefined);
    return r;
  };

  async function withdraw(): Promise<boolean> {
    const cur = store.consent();
    if (cur.dataset === 'none') return false;
    const epoch = cur.epoch + 1;
    const event = buildConsentWithdrawn(
      { source: deps.source, signer: deps.signer, dataset: cur.dataset },
      clock.now(),
      epoch,
      cur.dataset,
    );
    await service.settle();
    await store.commit({ consent: { dataset: 'none', epoch }, purgeOutbox: true, events: [{ event, enqueue: true, always: true }] });
    delivery?.wake();
    return true;
  }

  const ex: Executor = {
    app,
    service,
    store,
    hardware,
    delivery,
    heartbeats,
    client,
    limits,
    attendance,
    async stopAll() {
      // Every stop is begun at once (each halts its hardware synchronously), then written.
      const rs = await Promise.all((await store.activeExecutions()).map((x) => service.stop(x.id, 'local_stop')));
      return rs.flatMap((r) => (r.ok ? [{ id: r.value.execution.id, status: r.value.execution.status }] : []));
    },
    async start() {
      if (opts.consent !== undefined) await ex.setConsent(opts.consent);
      const n = await service.recover();
      delivery?.start();
      heartbeats?.start();
      return n;
    },
    setConsent: (d) =>
      serialConsent(async () => {
        if (d === 'none') return void (await withdraw());
        const cur = store.consent();
        if (cur.dataset === d) return;
        await store.commit({ consent: { dataset: d, epoch: cur.epoch } });
        delivery?.wake();
      }),
    withdrawConsent: () => serialConsent(withdraw),
    async close() {
      // Shutting down is a local stop: heat and motion go off now and the log says so (the
      // `stopped` confirmation is written at the next start if the hardware cannot finish first).
      if (hardware) for (const x of await store.activeExecutions()) if (x.status !== 'stopping') await service.stop(x.id, 'local_stop');
      (hardware as { close?: () => void } | undefined)?.close?.();
      await heartbeats?.close();
      await delivery?.close();
      await app.close();
      await service.settle();
      await store.close();
    },
  };
  return ex;
}
