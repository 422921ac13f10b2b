// sequencer/committer.ts: group commit (docs/design.md §5, §6). Requests hand over events that already
// passed every signature and key check; one committer loop per log takes everything queued,
// deduplicates on (source, id) and checks per-subject order against both the store and the
// items already accepted into the same group, assigns seq and prev in memory, builds the entries
// (that judgement, without I/O, is sequencer/group-plan.ts), and writes them with ONE synced logstore.append, then answers every waiter. While a batch is
// being written the next group accumulates. Dedup is optimistic: the store refuses a batch that
// holds a (source, id) it already has (duplicate_id, nothing written), so ids are looked up one by
// one only after such a refusal, or when an event looks out of order (a retry of a stored event).
// The last cookwalaseq per subject is cached (bounded LRU): this committer is the only writer of
// that index. Invariants: a waiter hears "appended" only after append() resolved (fsync'd); the
// items of one submit() land in the same group; seq/prev come only from here, so the chain cannot
// fork inside one process; sequencedAt never goes backwards. A candidate's timeCheck (the time
// window of verifier/documents/time-bounds.ts) is judged against the sequencedAt its entry would get, after
// deduplication: a retry of a stored event is answered 200 however late it comes, and no entry is
// written whose signedAt an auditor would find outside the declared bounds. Other writers of the same log
// (erasure) run through exclusive(), between groups. A failed append is fatal for the log: the
// store refuses further writes until reopened (logstore/types.ts), so the committer answers
// internal_error from then on and calls onFatal (the CLI exits and a restart recovers from disk).
// A store shared by several processes (PostgreSQL) is asked whether this process leads before a
// group is judged, and a group that writes nothing has the lease confirmed by the database before
// its answers leave: a process that does not lead never answers out_of_order, a duplicate or a
// time refusal from its own, possibly stale, view of the log.

import { truncateTime, type TimePrecision } from '../verifier/documents/index.ts';
import { fail, ProtocolError, type Failure } from '../verifier/index.ts';
import { formatTime } from '../verifier/encoding/index.ts';
import { appendItemOf, hasOrder, plan, type Candidate, type Outcome, type Plan } from './group-plan.ts';
import type { AppendItem, LogStore } from '../logstore/index.ts';
import type { Clock } from '../platform/index.ts';
import type { Metrics } from './metrics.ts';

export type { Candidate, Outcome } from './group-plan.ts';
export { storedOrder } from './group-plan.ts';

export interface Committer {
  /** Sequence these events in one group; one outcome per event, in order. */
  submit(items: readonly Candidate[]): Promise<Outcome[]>;
  /**
   * Run `fn` alone, between groups, for writes that also append (erasure). `next(c)` builds the
   * AppendItem of the next entry (seq, prev, sequencedAt as a group would); `fn` writes it.
   */
  exclusive<T>(fn: (next: (c: Candidate) => Promise<AppendItem>) => Promise<T>): Promise<T>;
  /** Stop taking work (shutting_down) and wait until everything taken is written. */
  close(): Promise<void>;
  readonly stats: { batches: number; entries: number };
  /** Test seam (a stall hook, as in sunlight's tests); empty in production. */
  readonly hooks: CommitterHooks;
}

export interface CommitterHooks {
  /**
   * Called before the `batch`-th synced append (1-based) of `entries` entries, after the group is
   * planned; the group waits for a returned promise, so a test can hold a batch in flight.
   */
  beforeAppend?(batch: number, entries: number): void | Promise<void>;
}

/** Subjects whose last cookwalaseq is kept in memory (least recently used evicted, then read again). */
export const SUBJECT_CACHE_MAX = 100_000;

export interface CommitterOptions {
  store: LogStore;
  log: string;
  clock: Clock;
  metrics?: Metrics;
  onFatal?(e: unknown): void;
  /** Default SUBJECT_CACHE_MAX. */
  subjectCacheMax?: number;
  /** "day": sequencedAt is the UTC midnight of the sequencer's day (an open dataset, §8). */
  timePrecision?: TimePrecision;
}

/** A store several processes share (the PostgreSQL driver): leadership is checked before any judgement. */
interface Leased {
  checkLeader(confirm: boolean): Promise<void>;
}

interface Request {
  items: readonly Candidate[];
  resolve(o: Outcome[]): void;
}
type Task = { kind: 'group'; requests: Request[] } | { kind: 'exclusive'; run(): Promise<void> };

export function createCommitter(o: CommitterOptions): Committer {
  const { store, metrics } = o;
  const labels = { log: o.log };
  const tasks: Task[] = [];
  const stats = { batches: 0, entries: 0 };
  const hooks: CommitterHooks = {};
  let running: Promise<void> | undefined;
  let closing = false;
  let broken: unknown;
  let lastSequencedAt = -Infinity;
  const subjectCache = new Map<string, number>();

  function kick(): void {
    if (!running) running = loop().finally(() => (running = undefined));
  }

  async function loop(): Promise<void> {
    for (let t = tasks.shift(); t; t = tasks.shift()) {
      if (t.kind === 'group') await commitGroup(t.requests);
      else await t.run();
    }
  }

  async function nextItem(c: Candidate): Promise<AppendItem> {
    const head = store.head();
    return appendItemOf(o.log, c, head, await sequencedAt(head.seq));
  }

  /** What every request hears once the store failed: disk_full when that was the cause. */
  function brokenFailure(): Failure {
    return broken instanceof ProtocolError && broken.code === 'disk_full'
      ? fail('disk_full', 'the disk filled and the log store refuses writes until the sequencer restarts')
      : fail('internal_error', 'the log store failed; restart the sequencer');
  }

  function fatal(e: unknown): void {
    if (broken === undefined) {
      broken = e ?? new Error('append failed');
      o.onFatal?.(e);
    }
  }

  async function sequencedAt(headSeq: number): Promise<string> {
    if (lastSequencedAt === -Infinity && headSeq > 0) {
      const e = await store.getEntry(headSeq);
      if (e) lastSequencedAt = Date.parse(e.sequencedAt);
    }
    lastSequencedAt = Math.max(lastSequencedAt, truncateTime(o.clock.now(), o.timePrecision ?? 'ms'));
    return formatTime(lastSequencedAt);
  }

  /** Last cookwalaseq per subject: read from the store once, then kept here (this committer is the index's only writer). */
  async function subjectBase(all: readonly Candidate[]): Promise<Map<string, number | undefined>> {
    const base = new Map<string, number | undefined>();
    const missing: string[] = [];
    for (const c of all) {
      if (!hasOrder(c.ce) || base.has(c.ce.subject!)) continue;
      const v = subjectCache.get(c.ce.subject!);
      base.set(c.ce.subject!, v);
      if (v === undefined) missing.push(c.ce.subject!);
    }
    const read = await Promise.all(missing.map((s) => store.lastSubjectSeq(s)));
    missing.forEach((s, i) => base.set(s, read[i]));
    return base;
  }

  function remember(subject: string, seq: number): void {
    subjectCache.delete(subject);
    subjectCache.set(subject, seq);
    if (subjectCache.size > (o.subjectCacheMax ?? SUBJECT_CACHE_MAX)) subjectCache.delete(subjectCache.keys().next().value as string);
  }

  /** Answer the stored duplicates, then write the plan's entries as one synced batch. */
  async function commit(p: Plan): Promise<void> {
    for (const [i, seq] of p.fromStore) {
      const e = await store.getEntry(seq);
      if (!e) throw new Error(`the (source, id) index names seq ${seq}, which the store does not hold`);
      p.outcomes[i] = { ok: true, status: 200, seq, hash: e.hash, eventHash: e.eventHash };
    }
    const n = p.appends.length;
    if (n === 0) return;
    await hooks.beforeAppend?.(stats.batches + 1, n);
    const t0 = performance.now();
    await store.append(p.appends);
    stats.batches++;
    stats.entries += n;
    metrics?.observe('cookwala_fsync_seconds', (performance.now() - t0) / 1000, labels);
    metrics?.observe('cookwala_batch_size', n, labels);
    metrics?.inc('cookwala_batches_total', labels);
    metrics?.inc('cookwala_events_appended_total', labels, n);
    metrics?.set('cookwala_log_head_seq', p.appends[n - 1].entry.seq, labels);
  }

  const isDuplicateRefusal = (e: unknown) => e instanceof ProtocolError && e.code === 'duplicate_id';

  /**
   * A store shared by several sequencers (the PostgreSQL driver) reloads its state when this
   * process wins the lease again: what this committer cached (last cookwalaseq per subject, last
   * sequencedAt) may have moved under another leader, so it is dropped.
   */
  function generationNow(): number | undefined {
    const g = (store as { generation?(): number }).generation?.();
    if (g !== generation) {
      generation = g;
      subjectCache.clear();
      lastSequencedAt = -Infinity;
    }
    return g;
  }
  let generation: number | undefined;
  const shared = typeof (store as { generation?(): number }).generation === 'function';
  const leased = typeof (store as { checkLeader?: unknown }).checkLeader === 'function' ? (store as unknown as Leased) : undefined;

  async function commitGroup(requests: Request[]): Promise<void> {
    const all = requests.flatMap((r) => r.items);
    let outcomes: Outcome[] = new Array(all.length);
    const gen = generationNow();
    try {
      if (broken !== undefined) throw broken;
      // A shared store's standby judges nothing (order, dedup, time window all depend on a log
      // state only the leader holds): one answer, not_leader naming the leader.
      await leased?.checkLeader(false);
      const base = await subjectBase(all);
      const at = await sequencedAt(store.head().seq);
      const judged = async () =>
        plan(o.log, store.head(), all, await Promise.all(all.map((c) => store.lookupId(c.ce.source, c.ce.id))), base, at);
      // Optimistic first: no (source, id) lookups, because the store itself refuses a pair it
      // already holds (duplicate_id, nothing written). Look every id up and judge again only then,
      // or when an event looks out of order (it may be the retry of one already stored).
      let p = plan(o.log, store.head(), all, [], base, at);
      const optimistic = !p.outOfOrder && !p.timeRefused;
      if (!optimistic) p = await judged();
      // Answers that write nothing (refusals, duplicates) were judged on this process's view of the
      // log; a fenced write proves the lease, so without one the database confirms it first (a
      // leader paused past its lease believes it leads until its next round).
      if (leased && p.appends.length === 0) await leased.checkLeader(true);
      try {
        await commit(p);
      } catch (e) {
        if (!optimistic || !isDuplicateRefusal(e)) throw e;
        p = await judged();
        await commit(p);
      }
      for (const [s, v] of p.subjects) if (v !== undefined && v !== base.get(s)) remember(s, v);
      outcomes = p.outcomes;
    } catch (e) {
      // A refused or failed batch wrote nothing, but only the disk knows after a LevelDB failure.
      // not_leader (a standby, or a lease lost: nothing written or the outcome unknown, and a retry
      // is safe by dedup) is not fatal; nor a group planned on a head another leader then moved.
      const moved = gen !== undefined && generationNow() !== gen;
      const standby = (e instanceof ProtocolError && e.code === 'not_leader') || moved;
      // A full disk that reached nothing (poisoned: false) leaves the store writable: not fatal.
      const spaceOnly = e instanceof ProtocolError && e.code === 'disk_full' && e.extra?.poisoned === false;
      // A shared store's truth is the database, which a write reached whole or not at all (the
      // store gives up its lease when it cannot tell), so its failures are never fatal here.
      if (!standby && !spaceOnly && !shared && !isDuplicateRefusal(e) && !(e instanceof ProtocolError && e.code === 'shutting_down'))
        fatal(e);
      const f =
        (moved && !(e instanceof ProtocolError && e.code === 'not_leader')) || (shared && !(e instanceof ProtocolError))
          ? fail(
              'not_leader',
              `this process cannot sequence the log now (${moved ? 'the lease changed hands' : (e as Error)?.message}); nothing was acknowledged, retry`,
            )
          : e instanceof ProtocolError
            ? fail(e.code, e.detail, e.extra)
            : fail('internal_error', 'the entries could not be written; nothing was acknowledged');
      outcomes.fill(f);
    }
    let k = 0;
    for (const r of requests) {
      r.resolve(outcomes.slice(k, k + r.items.length));
      k += r.items.length;
    }
  }

  return {
    stats,
    hooks,
    submit(items) {
      if (closing) return Promise.resolve(items.map(() => fail('shutting_down', 'the sequencer is stopping')));
      if (broken !== undefined) return Promise.resolve(items.map(() => brokenFailure()));
      if (items.length === 0) return Promise.resolve([]);
      return new Promise<Outcome[]>((resolve) => {
        const last = tasks[tasks.length - 1];
        if (last && last.kind === 'group') last.requests.push({ items, resolve });
        else tasks.push({ kind: 'group', requests: [{ items, resolve }] });
        kick();
      });
    },
    exclusive<T>(fn: (next: (c: Candidate) => Promise<AppendItem>) => Promise<T>): Promise<T> {
      if (closing) return Promise.reject(new ProtocolError('shutting_down', 'the sequencer is stopping'));
      if (broken !== undefined) return Promise.reject(new ProtocolError('internal_error', 'the log store failed; restart the sequencer'));
      return new Promise<T>((resolve, reject) => {
        tasks.push({
          kind: 'exclusive',
          run: async () => {
            try {
              resolve(await fn(nextItem));
            } catch (e) {
              if (!(e instanceof ProtocolError) && !shared) fatal(e);
              reject(e);
            }
          },
        });
        kick();
      });
    },
    async close() {
      closing = true;
      while (running) await running;
    },
  };
}
