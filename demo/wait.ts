// demo/wait.ts: the demo's bounded waiting (docs/design.md §12): an abortable sleep, a poll that gives up
// after a named time limit, and DemoError, the one error a demo step throws when it cannot go on
// (it names what failed and, where there is one, the log file that says why). Every wait here
// has a limit and stops at once when the demo is interrupted or a child dies (the AbortSignal).
// Left out: retries with backoff (the children do their own; the demo only watches).

export class DemoError extends Error {
  override readonly name = 'DemoError';
  constructor(
    message: string,
    /** A log file that explains the failure (its tail is shown). */
    readonly logPath?: string,
  ) {
    super(message);
  }
}

/** Thrown by sleep/waitFor when the demo's signal fired; carries no message of its own. */
export class Aborted extends Error {
  override readonly name = 'Aborted';
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new Aborted());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(t);
      reject(new Aborted());
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  signal?: AbortSignal;
  /** Log file to point at when the wait times out. */
  logPath?: string;
}

/**
 * Poll `probe` until it returns something other than undefined; DemoError naming `what` after
 * `timeoutMs`. A probe that throws ends the wait with that error (probes catch what they expect).
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, o: WaitOptions): Promise<T> {
  const end = Date.now() + o.timeoutMs;
  const interval = o.intervalMs ?? 100;
  for (let i = 0; ; i++) {
    if (o.signal?.aborted) throw new Aborted();
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() >= end) throw new DemoError(`timed out after ${(o.timeoutMs / 1000).toFixed(0)} s waiting for ${what}`, o.logPath);
    await sleep(Math.min(interval, Math.max(1, end - Date.now())), o.signal);
    if (i > 1_000_000) throw new Error('unreachable: waitFor is bounded by its deadline');
  }
}

/** Await `p`, but give up with DemoError after `timeoutMs` and with Aborted when `signal` fires. */
export async function within<T>(what: string, p: Promise<T>, timeoutMs: number, signal?: AbortSignal, logPath?: string): Promise<T> {
  if (signal?.aborted) throw new Aborted();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new DemoError(`timed out after ${(timeoutMs / 1000).toFixed(0)} s waiting for ${what}`, logPath)),
      timeoutMs,
    );
    onAbort = () => reject(new Aborted());
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([p, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
