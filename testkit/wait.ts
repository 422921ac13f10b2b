// testkit/wait.ts: the test kit's one way to wait for a condition. `waitFor(probe, {what, timeoutMs})`
// resolves with the first value `probe` returns that is not undefined or false, and fails after
// `timeoutMs` with "timed out after N ms waiting for <what>" (plus `detail()`, e.g. a child's last
// lines). Given `wake` (a `changes()` signal fired by whatever moves the state: a log line, a
// delivery step, an exit), it re-checks on each signal and never polls; without one it re-checks
// every `intervalMs`, for state nothing announces (a file another process writes, an HTTP metric).
// A probe that throws ends the wait with that error. Left out: retries with backoff (tests do not
// retry). Invariant: every wait is bounded in time and names what it waited for.

export interface Changes {
  /** Call when the watched state may have changed: wakes every pending waitFor. */
  notify(): void;
  /** How many notifications so far. */
  count(): number;
  subscribe(fn: () => void): () => void;
}

export function changes(): Changes {
  let n = 0;
  const listeners = new Set<() => void>();
  return {
    notify() {
      n++;
      for (const l of [...listeners]) l();
    },
    count: () => n,
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

export interface WaitOptions {
  /** What is awaited, for the failure message. */
  what: string;
  timeoutMs?: number;
  /** Re-check on these notifications instead of polling. */
  wake?: Changes;
  /** Poll interval when there is no `wake`. */
  intervalMs?: number;
  /** Appended to the timeout message (a child's last output, the records seen). */
  detail?: () => string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

export function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, o: WaitOptions): Promise<T> {
  const timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let running = false;
    let again = false;
    let poll: ReturnType<typeof setTimeout> | undefined;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(guard);
      clearTimeout(poll);
      unsubscribe?.();
      f();
    };
    const check = async () => {
      if (settled) return;
      if (running) {
        again = true; // the state moved while the probe was reading it: read again after
        return;
      }
      running = true;
      try {
        do {
          again = false;
          const v = await probe();
          if (v !== undefined && v !== false) return finish(() => resolve(v));
        } while (again && !settled);
      } catch (e) {
        return finish(() => reject(e));
      } finally {
        running = false;
      }
      if (!o.wake && !settled) poll = setTimeout(() => void check(), o.intervalMs ?? 50);
    };
    const guard = setTimeout(() => {
      const more = o.detail?.();
      finish(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${o.what}${more ? `:\n${more}` : ''}`)));
    }, timeoutMs);
    const unsubscribe = o.wake?.subscribe(() => void check());
    void check();
  });
}
