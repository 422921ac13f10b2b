// executor/clock.ts: the time source of an executor, injected so tests and the simulator control it.
// `now()` is wall time in ms (it stamps events and signatures); `setTimeout` schedules the device's
// own work (steps, spin-down, heartbeats, delivery backoff). The fast clock of the simulator only
// shortens waits: its `now()` stays real, so a signature never claims a signedAt in the future and
// key validity is judged against true time. The manual clock runs due timers when advanced (tests).

export type TimerHandle = { readonly id: number };

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(h: TimerHandle | undefined): void;
}

function realTimers(scale: number): Clock {
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const id = next++;
      const t = setTimeout(() => {
        timers.delete(id);
        fn();
      }, Math.max(0, ms / scale));
      // A device's timers never keep a process alive on their own: its server or loops do.
      t.unref?.();
      timers.set(id, t);
      return { id };
    },
    clearTimeout(h) {
      if (!h) return;
      const t = timers.get(h.id);
      if (t !== undefined) clearTimeout(t);
      timers.delete(h.id);
    },
  };
}

export function systemClock(): Clock {
  return realTimers(1);
}

/** Waits shortened `scale` times; timestamps stay real. */
export function fastClock(scale: number): Clock {
  if (!(scale >= 1) || !Number.isFinite(scale)) throw new TypeError('a fast clock scale is a finite number >= 1');
  return realTimers(scale);
}

export interface ManualClock extends Clock {
  /** Move time forward, running every timer that falls due, in due order. */
  advance(ms: number): void;
  pending(): number;
}

export function manualClock(startMs = Date.UTC(2026, 10, 30, 10, 0, 0)): ManualClock {
  let t = startMs;
  let next = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => t,
    setTimeout(fn, ms) {
      const id = next++;
      timers.set(id, { at: t + Math.max(0, ms), fn });
      return { id };
    },
    clearTimeout(h) {
      if (h) timers.delete(h.id);
    },
    pending: () => timers.size,
    advance(ms) {
      const end = t + ms;
      // Bounded: each round removes one timer; timers scheduled during the advance may run too.
      for (let guard = 0; guard < 1_000_000; guard++) {
        let due: [number, { at: number; fn: () => void }] | undefined;
        for (const e of timers) if (e[1].at <= end && (!due || e[1].at < due[1].at || (e[1].at === due[1].at && e[0] < due[0]))) due = e;
        if (!due) break;
        timers.delete(due[0]);
        t = Math.max(t, due[1].at);
        due[1].fn();
      }
      t = end;
    },
  };
}

/** A promise that resolves after `ms` on the clock (or at once when aborted). */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const h = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clock.clearTimeout(h);
      resolve();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
