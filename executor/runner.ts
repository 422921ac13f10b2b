// executor/runner.ts: simulated hardware for the executor library and the simulator (docs/design.md §9). It
// drives an accepted execution through accepted -> preparing -> running, then each planned step for
// its duration on the injected clock; a step verified by a person ends in needs_human until someone
// resumes; the last step ends in completed. Local controls: pause (a lid opened) and stop (the
// device's own button). halt() is synchronous and cancels everything at once, then confirms
// `stopped` after the pack's cutHeatMs (§6.2: heat off within 1 s) — the stop never waits for a
// disk or a network. A device maker replaces this file with their own Hardware; nothing else
// changes. Invariant: every timer belongs to one run generation; a halted or replaced run's late
// timers do nothing. Attendance (§6.6): a step whose envelope says `unattended: false` starts only
// while a person is present or reachable; if nobody is, or the person leaves while it runs, the
// step's heat is held (its timer stops, the time left is kept) and the execution moves to
// `needs_human` with reason `person_required` (a local_safety report); a resume continues the step.

import type { Clock, TimerHandle } from '../platform/index.ts';
import type { Result } from '../verifier/index.ts';
import { fail } from '../verifier/index.ts';
import type { ExecutionService, Hardware } from './service.ts';
import type { ExecutionRecord } from './store.ts';
import type { PlannedStep } from './plan.ts';
import type { Attendance } from './attendance.ts';
import type { ChangeOptions } from './service.ts';

export interface SimulatedHardware extends Hardware {
  /** The device's own pause control (e.g. the lid was opened). */
  pauseLocally(id: string): Promise<Result<ExecutionRecord>>;
  /** A pause asked for through the API (If-Match checked with the change). */
  pause(id: string, opts: ChangeOptions): Promise<Result<ExecutionRecord>>;
  /** The device's own stop button. */
  stopLocally(id: string): Promise<Result<unknown>>;
  /** A fault the device detected (e.g. a sensor dropped out): it fails the execution safely. */
  fault(id: string, detail: string): Promise<Result<ExecutionRecord>>;
  runs(): number;
  close(): void;
}

export interface RunnerOptions {
  prepareMs?: number;
  preheatMs?: number;
  spinDownMs?: number;
  /** Who is around (§6.6); absent = the runner does not check (the service's plan still does). */
  attendance?: Attendance;
  onError?: (message: string) => void;
}

type Phase = 'starting' | 'preparing' | 'step' | 'waiting_human' | 'waiting_person' | 'paused' | 'halting';
interface Run {
  gen: number;
  steps: PlannedStep[];
  step: number;
  phase: Phase;
  timer?: TimerHandle;
  endsAt: number;
  remainingMs: number;
}

export function createSimulatedHardware(svc: ExecutionService, clock: Clock, opts: RunnerOptions = {}): SimulatedHardware {
  const runs = new Map<string, Run>();
  const prepareMs = opts.prepareMs ?? 2_000;
  const preheatMs = opts.preheatMs ?? 20_000;
  const spinDownMs = opts.spinDownMs ?? 1_000;
  let gen = 0;

  function later(id: string, run: Run, ms: number, fn: () => Promise<unknown>): void {
    clock.clearTimeout(run.timer);
    const g = run.gen;
    run.endsAt = clock.now() + ms;
    run.timer = clock.setTimeout(() => {
      if (runs.get(id)?.gen !== g) return;
      fn().catch((e: Error) => opts.onError?.(`runner ${id}: ${e.message}`));
    }, ms);
  }

  /** Forget a run only if it is still the current one (a halt replaces it with its own). */
  function drop(id: string, run: Run): void {
    if (runs.get(id) === run) runs.delete(id);
  }

  async function report(id: string, r: Result<unknown>): Promise<boolean> {
    if (!r.ok) opts.onError?.(`runner ${id}: ${r.code} ${r.detail}`);
    return r.ok;
  }

  function beginStep(id: string, run: Run, i: number): Promise<unknown> {
    run.step = i;
    if (i >= run.steps.length) {
      drop(id, run);
      return svc.change(id, 'completed', { reason: { code: 'step_done' }, step: run.steps.length - 1 }).then((r) => report(id, r));
    }
    run.remainingMs = run.steps[i].durationS * 1000;
    if (needsPerson(run.steps[i])) return holdForPerson(id, run, 'before it starts');
    run.phase = 'step';
    later(id, run, run.remainingMs, () => endStep(id, run));
    return Promise.resolve();
  }

  const needsPerson = (s: PlannedStep) => !s.unattended && opts.attendance !== undefined && !opts.attendance.available();

  /** Nobody is there for a step that needs a person: heat held, time left kept, needs_human. */
  async function holdForPerson(id: string, run: Run, when: string): Promise<unknown> {
    clock.clearTimeout(run.timer);
    run.timer = undefined;
    run.phase = 'waiting_person';
    const s = run.steps[run.step];
    const detail = `step ${run.step} (${s.op}) may not run unattended and no person is present or reachable (${when}); the step is held`;
    return report(id, await svc.change(id, 'needs_human', { reason: { code: 'person_required', detail }, step: run.step, safety: true }));
  }

  // The person leaving while a step that needs them runs: hold it at once (never silently on).
  opts.attendance?.onChange((available) => {
    if (available) return;
    for (const [id, run] of runs) {
      if (run.phase !== 'step' || !needsPerson(run.steps[run.step])) continue;
      run.remainingMs = Math.max(0, run.endsAt - clock.now());
      holdForPerson(id, run, 'the person left while it ran').catch((e: Error) => opts.onError?.(`runner ${id}: ${e.message}`));
    }
  });

  async function endStep(id: string, run: Run): Promise<unknown> {
    const s = run.steps[run.step];
    if (s.verifiedBy === 'human') {
      // A person verifies this step (§3 ladder, last rung): wait for them.
      run.phase = 'waiting_human';
      return report(
        id,
        await svc.change(id, 'needs_human', {
          reason: { code: 'human_check', detail: `confirm step ${run.step} (${s.op})` },
          step: run.step,
        }),
      );
    }
    return beginStep(id, run, run.step + 1);
  }

  async function pause(id: string, o: ChangeOptions): Promise<Result<ExecutionRecord>> {
    const run = runs.get(id);
    if (!run || run.phase !== 'step') return fail('illegal_transition', `execution ${id} is not running a step`);
    clock.clearTimeout(run.timer);
    run.remainingMs = Math.max(0, run.endsAt - clock.now());
    run.phase = 'paused';
    const r = await svc.change(id, 'paused', { ...o, step: run.step });
    if (!r.ok && runs.get(id) === run && run.phase === 'paused') {
      run.phase = 'step';
      later(id, run, run.remainingMs, () => endStep(id, run));
    }
    return r;
  }

  const hw: SimulatedHardware = {
    start(x) {
      if (!x.plan || runs.has(x.id)) return;
      const run: Run = { gen: ++gen, steps: x.plan.steps, step: 0, phase: 'starting', endsAt: 0, remainingMs: 0 };
      runs.set(x.id, run);
      later(x.id, run, prepareMs, async () => {
        run.phase = 'preparing';
        if (!(await report(x.id, await svc.change(x.id, 'preparing')))) return drop(x.id, run);
        later(x.id, run, preheatMs, async () => {
          if (!(await report(x.id, await svc.change(x.id, 'running', { step: 0 })))) return drop(x.id, run);
          await beginStep(x.id, run, 0);
        });
      });
    },
    halt(id) {
      const run = runs.get(id);
      if (!run) return false;
      // Motion and heat off now; the run's pending timers are dead from here on.
      clock.clearTimeout(run.timer);
      const halted: Run = { ...run, gen: ++gen, phase: 'halting', timer: undefined };
      runs.set(id, halted);
      if (run.phase === 'starting') {
        runs.delete(id); // nothing physical has happened yet: the stop completes at once
        return false;
      }
      later(id, halted, spinDownMs, async () => {
        drop(id, halted);
        await report(id, await svc.change(id, 'stopped'));
      });
      return true;
    },
    resume(x) {
      const run = runs.get(x.id);
      if (!run) return;
      if (run.phase === 'paused' || run.phase === 'waiting_person') {
        if (needsPerson(run.steps[run.step]))
          return void holdForPerson(x.id, run, 'at resume').catch((e: Error) => opts.onError?.(e.message));
        run.phase = 'step';
        later(x.id, run, run.remainingMs, () => endStep(x.id, run));
      } else if (run.phase === 'waiting_human') {
        void beginStep(x.id, run, run.step + 1).catch((e: Error) => opts.onError?.(e.message));
      }
    },
    pauseLocally: (id) => pause(id, { reason: { code: 'paused_locally' } }),
    pause: (id, o) => pause(id, o),
    stopLocally: (id) => svc.stop(id, 'local_stop'),
    async fault(id, detail) {
      const run = runs.get(id);
      if (run) {
        clock.clearTimeout(run.timer);
        drop(id, run);
      }
      return svc.change(id, 'failed', { reason: { code: 'interrupted', detail } });
    },
    runs: () => runs.size,
    close() {
      for (const r of runs.values()) clock.clearTimeout(r.timer);
      runs.clear();
    },
  };
  return hw;
}
