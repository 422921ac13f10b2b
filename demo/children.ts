// demo/children.ts: the demo's child processes (docs/design.md §12): every part runs as the real
// command, `node bin/cookwala.js …`, with its stdout and stderr written straight into
// DIR/logs/<name>.log (an append-mode file descriptor handed to the child), so children never
// write into the demo's own output and their logs survive the demo. Children get their own
// process group (detached), so a Ctrl-C in the terminal reaches only the demo, which then stops
// them in order: SIGTERM, then SIGKILL after a timeout, each by its own pid.
// `died` resolves when a long-running child exits while nobody asked it to (or an expected-exit
// child fails): the demo then names it, shows the tail of its log and stops the rest.
// Invariant: every child started here is stopped by stopAll() or, if the demo process itself
// exits first, killed by the exit hook; nothing is ever killed by name. A child marked with
// tolerate() (a witness once the network is up) may exit: its owner hears of it and may start it
// again (witness-keeper.ts); restarting is not done here.

import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const COOKWALA_JS = join(PROJECT_ROOT, 'bin', 'cookwala.js');

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildSpec {
  /** Shown in messages; also the log file name unless `logName` says otherwise. */
  name: string;
  args: string[];
  logName?: string;
  /** The child is meant to finish by itself (exit 0 is fine, anything else is a death). */
  expectExit?: boolean;
  /** stopAll() stops higher tiers first, one tier at a time, a tier's children in parallel
   *  (devices before the sequencer before the witnesses). Default 0. */
  tier?: number;
}

export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Where this child's output starts in its log (earlier runs of the same log come before). */
  readonly logOffset: number;
  readonly exited: Promise<ExitInfo>;
  /** Set once it exited. */
  exit?: ExitInfo;
  /** What this child has written so far. */
  output(): Promise<string>;
}

export interface ChildDeath {
  child: Child;
  exit: ExitInfo;
  tail: string;
}

export interface Supervisor {
  readonly logsDir: string;
  start(spec: ChildSpec): Child;
  /** Run a command to its end (bounded); resolves with its exit and what it wrote. */
  run(spec: Omit<ChildSpec, 'expectExit'>, timeoutMs: number): Promise<ExitInfo & { output: string }>;
  /** Resolves with the first unexpected death. */
  readonly died: Promise<ChildDeath>;
  readonly children: readonly Child[];
  stop(child: Child, timeoutMs?: number): Promise<ExitInfo>;
  /** Stop every running child, highest tier first (SIGTERM, then SIGKILL after timeoutMs).
   *  From then on start() and run() refuse: a step still in flight cannot start a new child. */
  stopAll(timeoutMs?: number): Promise<Array<{ name: string; exit: ExitInfo; killed: boolean }>>;
  /** SIGKILL every child still running, now (a second Ctrl-C). */
  killAll(): void;
  /** From now on an exit of `child` is no death: `onExit` hears of it instead (a witness the demo restarts). */
  tolerate(child: Child, onExit: (e: ExitInfo) => void): void;
}

export class SupervisorClosed extends Error {
  override readonly name = 'SupervisorClosed';
}

/** The command line as written into a log header, with secrets (operator tokens) blanked. */
export function redactArgs(args: string[]): string {
  return args.map((a) => a.replace(/^(--[a-z-]*token=).*$/, '$1***')).join(' ');
}

export function describeExit(e: ExitInfo): string {
  return e.signal ? `killed by ${e.signal}` : `exit code ${e.code}`;
}

/** The last `lines` lines of a file (reads at most the last 64 KiB). */
export async function tailOf(path: string, lines = 20): Promise<string> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = (await fh.stat()).size;
    const len = Math.min(size, 65_536);
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, size - len);
    return buf
      .toString('utf8')
      .split('\n')
      .filter((l, i, a) => l !== '' || i < a.length - 1)
      .slice(-lines)
      .join('\n');
  } finally {
    await fh.close();
  }
}

async function readFrom(path: string, offset: number): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const len = Math.max(0, size - offset);
    const buf = Buffer.alloc(len);
    if (len > 0) await fh.read(buf, 0, len, offset);
    return buf.toString('utf8');
  } finally {
    await fh.close();
  }
}

export interface SupervisorOptions {
  logsDir: string;
  env?: NodeJS.ProcessEnv;
  /** Default SIGTERM -> SIGKILL grace for stop()/stopAll(). */
  stopTimeoutMs?: number;
  /** What node runs before each child's args (default: bin/cookwala.js; tests pass `-e CODE --`). */
  script?: string[];
}

export function createSupervisor(o: SupervisorOptions): Supervisor {
  const children: Array<
    Child & { proc: ChildProcess; expectExit: boolean; stopping: boolean; tier: number; tolerated?: (e: ExitInfo) => void }
  > = [];
  let reportDeath!: (d: ChildDeath) => void;
  let dead = false;
  const died = new Promise<ChildDeath>((r) => (reportDeath = r));
  const grace = o.stopTimeoutMs ?? 8_000;
  let closed = false;

  // Last resort if the demo process exits with children still running (an uncaught error).
  const onExit = () => {
    for (const c of children) if (!c.exit) c.proc.kill('SIGKILL');
  };
  process.on('exit', onExit);

  function spawnChild(spec: ChildSpec): (typeof children)[number] {
    if (closed) throw new SupervisorClosed(`not starting ${spec.name}: the demo is stopping`);
    const logPath = join(o.logsDir, `${spec.logName ?? spec.name}.log`);
    const fd = openSync(logPath, 'a');
    let logOffset = 0;
    let proc: ChildProcess;
    try {
      writeSync(fd, `--- ${new Date().toISOString()} cookwala ${redactArgs(spec.args)}\n`);
      logOffset = statSync(logPath).size;
      proc = spawn(process.execPath, [...(o.script ?? [COOKWALA_JS]), ...spec.args], {
        cwd: PROJECT_ROOT,
        env: o.env ?? process.env,
        stdio: ['ignore', fd, fd],
        detached: true,
      });
    } finally {
      closeSync(fd);
    }
    const exited = new Promise<ExitInfo>((r) => {
      proc.once('exit', (code, signal) => r({ code, signal }));
      // A spawn failure (no node binary, EAGAIN) surfaces as an error without an exit event.
      proc.once('error', () => r({ code: 127, signal: null }));
    });
    const c = {
      name: spec.name,
      pid: proc.pid ?? -1,
      logPath,
      logOffset,
      exited,
      proc,
      expectExit: spec.expectExit === true,
      stopping: false,
      tier: spec.tier ?? 0,
      tolerated: undefined as ((e: ExitInfo) => void) | undefined,
      exit: undefined as ExitInfo | undefined,
      output: () => readFrom(logPath, logOffset),
    };
    children.push(c);
    void exited.then(async (e) => {
      c.exit = e;
      if (c.tolerated && !c.stopping) return c.tolerated(e);
      const fine = c.stopping || (c.expectExit && e.code === 0);
      if (!fine && !dead) {
        dead = true;
        reportDeath({ child: c, exit: e, tail: await tailOf(logPath) });
      }
    });
    return c;
  }

  async function stop(c: Child, timeoutMs = grace): Promise<ExitInfo> {
    const x = children.find((k) => k === c);
    if (!x) throw new TypeError(`${c.name} is not a child of this supervisor`);
    x.stopping = true;
    if (x.exit) return x.exit;
    x.proc.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    const first = await Promise.race([x.exited, killed]);
    clearTimeout(timer);
    if (first === 'timeout') {
      x.proc.kill('SIGKILL');
      return x.exited;
    }
    return first;
  }

  return {
    logsDir: o.logsDir,
    died,
    get children() {
      return children;
    },
    start: (spec) => spawnChild(spec),
    async run(spec, timeoutMs) {
      const c = spawnChild({ ...spec, expectExit: true });
      // A one-shot command's failure is reported by its caller, not as a death.
      c.stopping = true;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
      const first = await Promise.race([c.exited, late]);
      clearTimeout(timer);
      const exit = first === 'timeout' ? await stop(c, 2_000) : first;
      const output = await c.output();
      return first === 'timeout'
        ? { code: 124, signal: exit.signal, output: `${output}\n(${spec.name} did not finish in ${timeoutMs} ms and was stopped)` }
        : { ...exit, output };
    },
    stop,
    tolerate(c, onExit) {
      const x = children.find((k) => k === c);
      if (!x) throw new TypeError(`${c.name} is not a child of this supervisor`);
      x.tolerated = onExit;
      if (x.exit && !x.stopping) onExit(x.exit);
    },
    killAll() {
      for (const c of children) {
        if (c.exit) continue;
        c.stopping = true;
        c.proc.kill('SIGKILL');
      }
    },
    async stopAll(timeoutMs = grace) {
      closed = true;
      const out: Array<{ name: string; exit: ExitInfo; killed: boolean }> = [];
      const tiers = [...new Set(children.map((c) => c.tier))].sort((a, b) => b - a);
      for (const t of tiers) {
        const group = children.filter((c) => c.tier === t && !c.exit);
        const exits = await Promise.all(group.map((c) => stop(c, timeoutMs)));
        group.forEach((c, i) => out.push({ name: c.name, exit: exits[i], killed: exits[i].signal === 'SIGKILL' }));
      }
      if (children.every((c) => c.exit)) process.off('exit', onExit);
      return out;
    },
  };
}
