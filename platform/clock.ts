// platform/clock.ts: the one injectable time source of the services (STYLE: factories, no
// globals). `now()` is wall time in ms: every time a service writes (sequencedAt, signedAt,
// lastSeen, erasedAt, an executor's event times) comes from it. `setTimeout` schedules a service's
// own work (an executor's steps, spin-down, heartbeats, delivery backoff). The fast clock of the
// executor's simulator only shortens waits: its `now()` stays real, so a signature never claims a
// signedAt in the future and key validity is judged against true time. Left out: a manual clock,
// which is for tests only (testkit/clock.ts implements this interface). Invariant: a timer never
// keeps a process alive on its own.

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
      const t = setTimeout(
        () => {
          timers.delete(id);
          fn();
        },
        Math.max(0, ms / scale),
      );
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
