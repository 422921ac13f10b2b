// platform/parent-watch.ts: a command started by npm stops when npm goes (docs/design.md §12).
// `npx cookwala witness --data ./w1 > w1.log &` runs npm, which runs `/bin/sh -c 'cookwala' …`,
// which runs node: three processes. Stopping the job signals npm; npm forwards the signal to the
// shell only, and the shell (dash waits for its command rather than exec'ing it) dies without
// passing it on, so node would be left reparented and serving, holding its port and its LevelDB
// lock. So a command whose parent is npm's script shell (`sh -c <npm_lifecycle_script> …`, the
// variable npm sets to the command it runs: `'cookwala'` for npx, the script's text for `npm run`)
// watches its parent: when `process.ppid` changes (the shell is gone, node was reparented) it
// signals itself SIGTERM, so a service stops exactly as on SIGTERM (last checkpoint, stores
// closed, `shutdown`). It signals only a command that listens for SIGTERM: one still starting is
// checked again until it does; a service already stopping (after SIGINT) or a short command
// without a handler finishes on its own. The check runs on an unref'd timer, so it never keeps a
// process alive. Where /proc cannot tell the parent's command line, npm's variable alone decides.
// Left out: a process started any other way, whose parent leaving is the operator's choice
// (`nohup`, `setsid`, a service manager), and Windows (no reparenting there).
// Invariant: at most one SIGTERM, and only after the parent really changed.

import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export interface ParentWatchDeps {
  /** The parent's pid now (process.ppid). */
  ppid: () => number;
  /** Whether anything listens for SIGTERM (process.listenerCount('SIGTERM') > 0). */
  handlesSigterm: () => boolean;
  /** Stop as on SIGTERM. */
  stop: () => void;
  /** Told once, before stop(), with the old and the new parent pid. */
  onParentGone?: (was: number, now: number) => void;
  intervalMs?: number;
}

export interface ParentWatch {
  /** One check (what the timer runs); true when it fired. */
  check(): boolean;
  close(): void;
}

export const PARENT_CHECK_MS = 500;

const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash', 'ksh']);

/**
 * Whether npm (npx, `npm run`) started this process through its script shell: npm's variable is
 * set and, when the parent's argv is known, the parent is `SHELL -c <that script>…`.
 */
export function startedByNpm(env: NodeJS.ProcessEnv, parentArgv: readonly string[] | undefined): boolean {
  const script = env.npm_lifecycle_script;
  if (typeof script !== 'string' || script === '') return false;
  if (parentArgv === undefined) return true;
  return parentArgv.length >= 3 && SHELLS.has(basename(parentArgv[0])) && parentArgv[1] === '-c' && parentArgv[2].startsWith(script);
}

/** Watch the parent pid; once it has changed and a SIGTERM handler is there to stop cleanly, stop once. */
export function watchParent(d: ParentWatchDeps): ParentWatch {
  const first = d.ppid();
  let fired = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const w: ParentWatch = {
    check() {
      if (fired) return false;
      const now = d.ppid();
      if (now === first || !d.handlesSigterm()) return false;
      fired = true;
      w.close();
      d.onParentGone?.(first, now);
      d.stop();
      return true;
    },
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
  timer = setInterval(() => void w.check(), d.intervalMs ?? PARENT_CHECK_MS);
  timer.unref();
  return w;
}

/** The argv of process `pid` from /proc, or undefined where there is none to read. */
function argvOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

/** For bin/cookwala.js: when npm's script shell started this process, stop as on SIGTERM once it is gone. */
export function stopWithNpmParent(): ParentWatch | undefined {
  if (!startedByNpm(process.env, argvOf(process.ppid))) return undefined;
  return watchParent({
    ppid: () => process.ppid,
    handlesSigterm: () => process.listenerCount('SIGTERM') > 0,
    onParentGone: (was, now) =>
      process.stderr.write(`cookwala: the npm process that started this one is gone (parent ${was}, now ${now}): stopping as on SIGTERM\n`),
    stop: () => process.kill(process.pid, 'SIGTERM'),
  });
}
