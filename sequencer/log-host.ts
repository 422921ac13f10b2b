// sequencer/log-host.ts: the logs one sequencer process hosts (docs/design.md §12a). Each hosted log
// (hosted-log.ts: its own store, device keys, group committer and checkpointer) is open only while
// used: start-up opens the first DEFAULT_EAGER_OPEN, the rest on first acquire, at most
// maxOpenLogs at once, each granted its write buffer and cache from one memory budget
// (store-budget.ts); at the cap the least recently used unpinned log is closed (drain, last
// checkpoint, summary file, close), and idle ones after idleCloseMs (never a log in a database
// shared by several sequencers: this process stays a candidate for its lease). acquire() pins a log open
// until release(): a pinned log, so one with an append or read in flight, is never closed. Logs
// come from the config at start and from POST /v1/logs at run time (store and signed descriptor
// first, then the config file, so a crash in between leaves a store that the next add adopts).
// Leaves out: sharing one LevelDB between logs; what opening and closing one log does
// (hosted-log.ts). Invariant: a log is open at most once in this process, and never closed while pinned.

import { ProtocolError } from '../verifier/index.ts';
import type { LogMode } from '../verifier/documents/index.ts';
import type { LogConfig } from './config.ts';
import { grantStore, maxStoresFor, type StoreGrant } from './store-budget.ts';
import { readLogSummary, writeLogSummary } from './log-summary.ts';
import { closeHostedLog, openHostedLog, type HostedLog, type LogHostDeps } from './hosted-log.ts';

export type { HostedLog, LogHostDeps } from './hosted-log.ts';

/** What GET /v1/logs lists per log (log-summary.ts: the summary file of a log that is not open). */
export interface LogSummary {
  log: string;
  mode: LogMode;
  /** Whether the log's store is open in this process now. */
  open: boolean;
  /** The durable head (open) or the head when the log was last closed (summary file); absent if never recorded. */
  head?: { seq: number; hash: string; root: string };
  /** The latest signed checkpoint: its seq and document hash. */
  checkpoint?: { seq: number; hash: string };
  /** For a log not open: when its summary was written (it may lag if the process died while it was open). */
  summaryAt?: string;
}

export interface LogHost {
  /** The log if its store is open now (a route holds it open through acquire: see app.ts). */
  get(origin: string): HostedLog | undefined;
  /** The logs whose stores are open now. */
  all(): HostedLog[];
  /** Every hosted origin, open or not, in config order. */
  origins(): string[];
  has(origin: string): boolean;
  /** Open the log if needed (LRU eviction of an idle one at the cap) and pin it open until release(). */
  acquire(origin: string): Promise<{ log: HostedLog; release(): void }>;
  /** acquire, run fn, release. */
  use<T>(origin: string, fn: (h: HostedLog) => Promise<T>): Promise<T>;
  /** Close every open log unpinned and unused since before `now - idleMs` (also run by the idle timer). */
  closeIdle(idleMs: number): Promise<number>;
  summary(origin: string): Promise<LogSummary | undefined>;
  /** Open stores now, and the bytes of the memory budget granted to them. */
  stats(): { hosted: number; open: number; pinned: number; grantedBytes: number; maxOpen: number; budgetBytes: number };
  /** Open (creating when new) and host a log; log_exists if it is hosted already. */
  add(l: LogConfig): Promise<HostedLog>;
  close(): Promise<void>;
}

export const DEFAULT_MEMORY_BUDGET = 2 * 1024 * 1024 * 1024;
export const DEFAULT_MAX_OPEN_LOGS = 256;
export const DEFAULT_EAGER_OPEN = 16;

/** One hosted log's place in the host: open, opening, closing or closed; pins keep it open. */
interface Slot {
  readonly config: LogConfig;
  h?: HostedLog;
  opening?: Promise<HostedLog>;
  closing?: Promise<void>;
  pins: number;
  lastUsed: number;
  grant?: StoreGrant;
}

function summaryOf(h: HostedLog): LogSummary {
  const cp = h.checkpoints.latestSigned();
  return { log: h.origin, mode: h.mode, open: true, head: h.store.head(), ...(cp ? { checkpoint: { seq: cp.seq, hash: cp.hash } } : {}) };
}

export async function openLogHost(d: LogHostDeps, logs: LogConfig[]): Promise<LogHost> {
  const budget = d.memoryBudgetBytes ?? DEFAULT_MEMORY_BUDGET;
  const maxOpen = Math.max(1, d.maxOpenLogs ?? Math.min(DEFAULT_MAX_OPEN_LOGS, maxStoresFor(budget)));
  const slots = new Map<string, Slot>();
  /** Open, opening and closing slots, least recently used first (Map insertion order). */
  const lru = new Map<string, Slot>();
  let granted = 0;
  let closed = false;
  let adding: Promise<unknown> = Promise.resolve();
  let released: { p: Promise<void>; resolve(): void } = deferred();
  const signal = () => {
    const r = released;
    released = deferred();
    r.resolve();
  };
  const gauges = () => {
    d.metrics.set('cookwala_logs_hosted', slots.size);
    d.metrics.set('cookwala_logs_open', lru.size);
    d.metrics.set('cookwala_store_budget_granted_bytes', granted);
  };
  for (const l of logs) slots.set(l.log, { config: l, pins: 0, lastUsed: 0 });

  const open = (origin: string, s: Slot): Promise<HostedLog> => {
    // Reserved synchronously with the cap check in acquire: two openers cannot both take the last slot.
    lru.set(origin, s);
    const grant = grantStore(budget, granted, lru.size - 1, maxOpen);
    granted += grant.bytes;
    s.grant = grant;
    gauges();
    s.opening = openHostedLog(d, s.config, grant).then(
      (h) => {
        s.h = h;
        s.opening = undefined;
        s.pins++; // held for the acquirer that opened it
        s.lastUsed = d.clock.now();
        if (d.checkpointIntervalMs !== undefined) h.checkpoints.start(d.checkpointIntervalMs);
        return h;
      },
      (e: unknown) => {
        s.opening = undefined;
        lru.delete(origin);
        granted -= grant.bytes;
        s.grant = undefined;
        gauges();
        signal();
        throw e;
      },
    );
    return s.opening;
  };

  /** Close an open, unpinned log: drain, last checkpoint, summary file, close the store (`why` names a released lease). */
  const evict = (origin: string, s: Slot, why: 'idle' | 'evicted' | 'shutdown'): Promise<void> => {
    const h = s.h!;
    (h.store as { releaseReason?(why: string): void }).releaseReason?.(why);
    s.closing = (async () => {
      try {
        await closeHostedLog(h);
        await writeLogSummary(d.dataDir, summaryOf(h), d.clock.now()).catch(d.onError);
      } finally {
        s.h = undefined;
        s.closing = undefined;
        lru.delete(origin);
        granted -= s.grant?.bytes ?? 0;
        s.grant = undefined;
        gauges();
        signal();
      }
    })();
    return s.closing;
  };

  const victim = (): [string, Slot] | undefined => {
    for (const [o, s] of lru) if (s.h && s.pins === 0 && !s.closing) return [o, s];
    return undefined;
  };

  const acquire = async (origin: string): Promise<{ log: HostedLog; release(): void }> => {
    const s = slots.get(origin);
    if (!s) throw new ProtocolError('not_found', `this sequencer hosts no log ${origin}`);
    for (;;) {
      if (closed) throw new ProtocolError('shutting_down', 'the sequencer is stopping; retry later');
      if (s.closing) {
        await s.closing.catch(() => undefined);
        continue;
      }
      if (s.h) {
        s.pins++;
        // Most recently used goes last.
        lru.delete(origin);
        lru.set(origin, s);
        return lease(s, s.h);
      }
      if (s.opening) {
        await s.opening;
        continue;
      }
      if (lru.size >= maxOpen) {
        const v = victim();
        if (v) await evict(...v, 'evicted').catch(d.onError);
        else await released.p; // every open log is in use: wait for a release
        continue;
      }
      return lease(s, await open(origin, s));
    }
  };

  const lease = (s: Slot, h: HostedLog) => {
    let done = false;
    return {
      log: h,
      release() {
        if (done) return;
        done = true;
        s.pins--;
        s.lastUsed = d.clock.now();
        signal();
      },
    };
  };

  const use = async <T>(origin: string, fn: (h: HostedLog) => Promise<T>): Promise<T> => {
    const l = await acquire(origin);
    try {
      return await fn(l.log);
    } finally {
      l.release();
    }
  };

  const closeAll = async (): Promise<void> => {
    for (const s of slots.values()) await s.opening?.catch(() => undefined);
    const open = [...lru.entries()];
    const errors = (
      await Promise.allSettled(open.map(([o, s]) => s.closing ?? (s.h ? evict(o, s, 'shutdown') : Promise.resolve())))
    ).filter((r) => r.status === 'rejected');
    if (errors.length > 0) throw (errors[0] as PromiseRejectedResult).reason;
  };

  try {
    // Start-up opens only the first few logs (their crash guards fire here, fatal to the caller); the others open on first use.
    const eager = Math.min(d.eagerOpen ?? DEFAULT_EAGER_OPEN, maxOpen, logs.length);
    for (const l of logs.slice(0, eager)) (await acquire(l.log)).release();
  } catch (e) {
    closed = true;
    await closeAll().catch(() => undefined);
    throw e;
  }
  gauges();

  let idleTimer: NodeJS.Timeout | undefined;
  const closeIdle = async (idleMs: number): Promise<number> => {
    const before = d.clock.now() - idleMs;
    // A log in a database shared by several sequencers stays open while idle: closing it would end
    // this process's lease (or candidacy) and hand the log to whichever process asks next, for no
    // memory worth having back (its store holds no cache), and the device_lost judgement needs a leader.
    const idle = [...lru.entries()].filter(([, s]) => s.h && s.pins === 0 && !s.closing && s.lastUsed <= before && !sharedStore(s.h.store));
    await Promise.all(idle.map(([o, s]) => evict(o, s, 'idle').catch(d.onError)));
    return idle.length;
  };
  if (d.idleCloseMs !== undefined) {
    const ms = d.idleCloseMs;
    idleTimer = setInterval(() => void closeIdle(ms).catch(d.onError), Math.max(1, Math.floor(ms / 2)));
    idleTimer.unref();
  }

  return {
    get: (origin) => slots.get(origin)?.h,
    all: () => [...lru.values()].flatMap((s) => (s.h ? [s.h] : [])),
    origins: () => [...slots.keys()],
    has: (origin) => slots.has(origin),
    acquire,
    use,
    closeIdle,
    async summary(origin) {
      const s = slots.get(origin);
      if (!s) return undefined;
      if (s.h && !s.closing) return summaryOf(s.h);
      const stored = await readLogSummary(d.dataDir, origin);
      return stored ? { ...stored, log: origin, mode: s.config.mode, open: false } : { log: origin, mode: s.config.mode, open: false };
    },
    stats: () => ({
      hosted: slots.size,
      open: lru.size,
      pinned: [...lru.values()].filter((s) => s.pins > 0).length,
      grantedBytes: granted,
      maxOpen,
      budgetBytes: budget,
    }),
    add(l) {
      const p = adding.then(async () => {
        if (closed) throw new ProtocolError('shutting_down', 'the sequencer is stopping; retry later');
        if (slots.has(l.log)) throw new ProtocolError('log_exists', `log ${l.log} is hosted already`);
        slots.set(l.log, { config: l, pins: 0, lastUsed: 0 });
        try {
          const lease = await acquire(l.log);
          lease.release();
          gauges();
          return lease.log;
        } catch (e) {
          slots.delete(l.log);
          gauges();
          throw e;
        }
      });
      adding = p.catch(() => undefined);
      return p;
    },
    async close() {
      await adding;
      closed = true;
      if (idleTimer) clearInterval(idleTimer);
      signal();
      await closeAll();
    },
  };
}

/** A store several sequencer processes share, one leading at a time (the PostgreSQL driver). */
function sharedStore(store: object): boolean {
  return typeof (store as { checkLeader?: unknown }).checkLeader === 'function';
}

function deferred(): { p: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const p = new Promise<void>((r) => (resolve = r));
  return { p, resolve };
}
