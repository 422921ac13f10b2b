// executor/service.ts: the execution service behind the Core API subset (Cookwala Core 0.2 §6, §7):
// create (Idempotency-Key: the same key returns the same execution, persisted across restarts),
// change status by the transition table, stop, resume (If-Match: <seq>), and the device's own log.
// Every change is: check the table and the If-Match seq, build the signed event, write the
// execution, event and outbox record in one synced batch (store.commit), and only then tell anyone
// (the HTTP answer, the hardware, listeners). Changes to one execution are serialized, so seq never
// skips or repeats. A stop first halts the hardware synchronously and only then writes: safety is
// local and never waits for a disk or a network (§6.2, §6.3). After a restart, executions that were
// running are failed (`interrupted`) rather than silently resumed, and a stop in progress completes.
// A stop of an execution that is already final answers success with the state it ended in (a stop is
// idempotent and never an error, §6.2). Attendance (§6.6): the plan is made against who is around
// now (person_required refuses), and a resume or pause into a step that needs a person is refused
// with person_required while nobody is present or reachable.

import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import { jsonHash } from '../verifier/signing/index.ts';
import { fail, ok, type Result } from '../verifier/index.ts';
import { formatTime } from '../verifier/encoding/index.ts';
import type { Clock } from '../platform/index.ts';
import { buildStatusEvent, type EventContext } from './events.ts';
import { INITIAL, isFinal, transition, type ExecutionState, type Reason } from './lifecycle.ts';
import { planExecution, type DeviceProfile } from './plan.ts';
import { readExecutionRequest, stricterDataset, type Dataset } from './request.ts';
import type { SafetyLimits } from './safety-limits.ts';
import type { Attendance } from './attendance.ts';
import type { ExecutionRecord, ExecutorStore, NewEvent } from './store.ts';

/** What the device's hardware layer (or the simulator's runner) offers the service. */
export interface Hardware {
  /** Begin an accepted execution (preparing, running, steps…), reporting back through change(). */
  start(x: ExecutionRecord): void;
  /** Stop motion and cut heat NOW, synchronously. true = it will confirm `stopped` itself. */
  halt(id: string): boolean;
  /** Continue after paused / needs_human. */
  resume(x: ExecutionRecord): void;
  /** Hold the running step (heat held, time left kept) and change to `paused` with `opts`. */
  pause?(id: string, opts: ChangeOptions): Promise<Result<ExecutionRecord>>;
}

export interface ServiceDeps {
  store: ExecutorStore;
  clock: Clock;
  source: string;
  signer: EventContext['signer'];
  profile: DeviceProfile;
  limits: SafetyLimits;
  /** Who is around (§6.6); absent = the profile's static personReachable. */
  attendance?: Attendance;
  newId?: () => string;
}

export interface ChangeOptions {
  reason?: Reason;
  step?: number;
  /** The status seq the caller saw (If-Match); a mismatch is precondition_failed. */
  ifMatch?: number;
  safety?: boolean;
  /** Checked on the current record inside the per-execution queue, before the table. */
  check?: (x: ExecutionRecord) => Result<true>;
}

export type ChangeListener = (x: ExecutionRecord, events: CloudEvent[]) => void;

export interface ExecutionService {
  create(body: unknown, idempotencyKey: string): Promise<Result<{ execution: ExecutionRecord; replayed: boolean }>>;
  get(id: string): Promise<ExecutionRecord | undefined>;
  change(id: string, to: ExecutionState, opts?: ChangeOptions): Promise<Result<ExecutionRecord>>;
  stop(id: string, cause?: 'stop_requested' | 'local_stop'): Promise<Result<{ execution: ExecutionRecord; changed: boolean }>>;
  resume(id: string, ifMatch: number): Promise<Result<ExecutionRecord>>;
  /** A pause asked for through the API: If-Match, then the hardware holds the step. */
  pause(id: string, ifMatch: number): Promise<Result<ExecutionRecord>>;
  log(id: string): Promise<Result<CloudEvent[]>>;
  recover(): Promise<{ failed: number; stopped: number; restarted: number }>;
  setHardware(h: Hardware | undefined): void;
  onChange(l: ChangeListener): () => void;
  /** Wait for every queued change to be written (used by close()). */
  settle(): Promise<void>;
}

export function createExecutionService(deps: ServiceDeps): ExecutionService {
  const { store, clock } = deps;
  const newId = deps.newId ?? randomUUID;
  const chains = new Map<string, Promise<unknown>>();
  const listeners = new Set<ChangeListener>();
  let hardware: Hardware | undefined;

  /** Run `fn` after every earlier call with the same key (a per-execution mutex). */
  function serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = chains.get(key) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => undefined);
    chains.set(key, tail);
    void tail.then(() => {
      if (chains.get(key) === tail) chains.delete(key);
    });
    return run;
  }

  function ctxFor(x: ExecutionRecord): EventContext {
    const device = store.consent().dataset;
    const dataset: Dataset = x.consent ? stricterDataset(device, x.consent.dataset) : device;
    return { source: deps.source, signer: deps.signer, dataset };
  }

  function eventFor(x: ExecutionRecord, at: number, opts: ChangeOptions = {}, verifiedBy?: string[]): NewEvent {
    const event = buildStatusEvent(ctxFor(x), {
      executionId: x.id,
      recipeId: x.recipe.id,
      status: x.status,
      seq: x.seq,
      at,
      step: opts.step ?? x.step,
      reason: opts.reason,
      verifiedBy,
      safety: opts.safety,
    });
    // Queued unless the execution opted out; the store drops it if its consent epoch has ended.
    return { event, enqueue: x.consent?.dataset !== 'none', epoch: x.epoch };
  }

  function notify(x: ExecutionRecord, events: NewEvent[]): void {
    for (const l of listeners) {
      try {
        l(
          x,
          events.map((e) => e.event),
        );
      } catch {
        // a listener's fault never undoes a durable change
      }
    }
  }

  /** Apply one or more table-checked changes in one synced batch. */
  async function applyChanges(
    cur: ExecutionRecord,
    steps: Array<{ to: ExecutionState; opts?: ChangeOptions }>,
  ): Promise<Result<ExecutionRecord>> {
    let x = cur;
    const events: NewEvent[] = [];
    const at = clock.now();
    for (const s of steps) {
      const t = transition(x, s.to);
      if (!t.ok) return t;
      // `stopped` keeps the cause of its `stopping` (the hardware confirming does not know it).
      const reason = s.opts?.reason ?? (s.to === 'stopped' && x.status === 'stopping' ? x.reason : undefined);
      x = { ...x, status: s.to, seq: t.value.seq, updatedAt: formatTime(at) };
      if (reason) x.reason = reason;
      else delete x.reason;
      if (s.opts?.step !== undefined) x.step = s.opts.step;
      events.push(eventFor(x, at, { ...s.opts, reason }));
    }
    await store.commit({ execution: x, events });
    notify(x, events);
    return ok(x);
  }

  /** A step that may not run unattended continues only while someone is there (§6.6). */
  function personCheck(x: ExecutionRecord): Result<true> {
    const s = x.step === undefined ? undefined : x.plan?.steps[x.step];
    if (!s || s.unattended || !deps.attendance || deps.attendance.available()) return ok(true);
    return fail(
      'person_required',
      `step ${x.step} (${s.op}) may not run unattended and no person is present or reachable; declare one (PUT /v1/attendance) and resume`,
    );
  }

  const svc: ExecutionService = {
    setHardware: (h) => void (hardware = h),
    onChange(l) {
      listeners.add(l);
      return () => void listeners.delete(l);
    },

    create(body, key) {
      return serial(`idem:${key}`, async () => {
        const bodyHash = jsonHash(body);
        if (!bodyHash.ok) return bodyHash;
        const seen = await store.lookupIdempotency(key);
        if (seen) {
          if (seen.bodyHash !== bodyHash.value) return fail('idempotency_conflict', `Idempotency-Key ${key} was used with another body`);
          const x = await store.getExecution(seen.id);
          if (!x) throw new Error(`idempotency index names a missing execution ${seen.id}`);
          return ok({ execution: x, replayed: true });
        }
        const req = readExecutionRequest(body);
        if (!req.ok) return req;
        const at = clock.now();
        const t = formatTime(at);
        let x: ExecutionRecord = {
          id: newId(),
          recipe: req.value.recipe,
          epoch: store.consent().epoch,
          status: INITIAL.status,
          seq: INITIAL.seq,
          createdAt: t,
          updatedAt: t,
        };
        if (req.value.consent) x.consent = req.value.consent;
        const profile = deps.attendance ? { ...deps.profile, personReachable: deps.attendance.available() } : deps.profile;
        const plan = planExecution(req.value, profile, deps.limits);
        const events: NewEvent[] = [];
        if (plan.ok) {
          x.plan = plan.value;
          events.push(
            eventFor(
              x,
              at,
              {},
              plan.value.steps.map((s) => s.verifiedBy),
            ),
          );
        } else {
          events.push(eventFor(x, at));
          // Refusal, not guessing (§3): accepted -> refused before anything starts, in the same batch.
          const r = transition(x, 'refused');
          if (!r.ok) throw new Error(r.detail);
          const reason: Reason = { code: plan.code, detail: plan.detail };
          x = { ...x, status: 'refused', seq: r.value.seq, reason };
          if (typeof plan.step === 'number') x.step = plan.step;
          events.push(eventFor(x, at, { reason }));
        }
        await store.commit({ execution: x, idempotency: { key, bodyHash: bodyHash.value }, events });
        notify(x, events);
        if (x.status === 'accepted') hardware?.start(x);
        return ok({ execution: x, replayed: false });
      });
    },

    get: (id) => store.getExecution(id),

    change(id, to, opts = {}) {
      return serial(id, async () => {
        const x = await store.getExecution(id);
        if (!x) return fail('not_found', `no execution ${id}`);
        if (opts.ifMatch !== undefined && opts.ifMatch !== x.seq)
          return fail('precondition_failed', `If-Match ${opts.ifMatch}, the status seq is ${x.seq}`, { seq: x.seq });
        const c = opts.check?.(x);
        if (c && !c.ok) return c;
        const { check: _check, ...rest } = opts;
        return applyChanges(x, [{ to, opts: rest }]);
      });
    },

    async stop(id, cause = 'stop_requested') {
      // Halt first, outside the queue: the hardware must not wait for earlier writes (§6.2).
      const willConfirm = hardware?.halt(id) ?? false;
      return serial(id, async () => {
        const x = await store.getExecution(id);
        if (!x) return fail('not_found', `no execution ${id}`);
        // Stopping twice is stopping; stopping what has ended answers the state it ended in.
        if (x.status === 'stopping' || isFinal(x.status)) return ok({ execution: x, changed: false });
        const reason: Reason = { code: cause };
        const steps: Array<{ to: ExecutionState; opts?: ChangeOptions }> = [{ to: 'stopping', opts: { reason } }];
        if (!willConfirm || x.status === 'accepted') steps.push({ to: 'stopped' });
        const r = await applyChanges(x, steps);
        return r.ok ? ok({ execution: r.value, changed: true }) : r;
      });
    },

    async resume(id, ifMatch) {
      const r = await svc.change(id, 'running', { ifMatch, reason: { code: 'resumed' }, check: personCheck });
      if (r.ok) hardware?.resume(r.value);
      return r;
    },

    async pause(id, ifMatch) {
      const opts: ChangeOptions = { ifMatch, reason: { code: 'pause_requested' } };
      const x = await store.getExecution(id);
      if (!x) return fail('not_found', `no execution ${id}`);
      if (ifMatch !== x.seq) return fail('precondition_failed', `If-Match ${ifMatch}, the status seq is ${x.seq}`, { seq: x.seq });
      const t = transition(x, 'paused');
      if (!t.ok) return t;
      return hardware?.pause ? hardware.pause(id, opts) : svc.change(id, 'paused', opts);
    },

    async log(id) {
      const x = await store.getExecution(id);
      if (!x) return fail('not_found', `no execution ${id}`);
      return ok(await store.events(id));
    },

    async recover() {
      const n = { failed: 0, stopped: 0, restarted: 0 };
      for (const x of await store.activeExecutions()) {
        if (isFinal(x.status)) continue;
        if (x.status === 'accepted') {
          n.restarted++;
          hardware?.start(x);
          continue;
        }
        await serial(x.id, async () => {
          const cur = (await store.getExecution(x.id)) ?? x;
          if (cur.status === 'stopping') {
            // Power went away mid-stop: heat and motion are off now, the stop is complete.
            if (
              (
                await applyChanges(cur, [
                  { to: 'stopped', opts: { reason: { code: 'local_stop', detail: 'completed after a device restart' } } },
                ])
              ).ok
            )
              n.stopped++;
          } else if (!isFinal(cur.status)) {
            const reason: Reason = {
              code: 'interrupted',
              detail: `the device restarted while ${cur.status}; it does not resume heating on its own`,
            };
            if ((await applyChanges(cur, [{ to: 'failed', opts: { reason } }])).ok) n.failed++;
          }
        });
      }
      return n;
    },

    async settle() {
      await Promise.all([...chains.values()]);
    },
  };
  return svc;
}
