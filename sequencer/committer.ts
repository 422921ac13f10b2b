// sequencer/committer.ts: group commit (docs/design.md §5, §6). Requests hand over events that already
// passed every signature and key check; one committer loop per log takes everything queued,
// deduplicates on (source, id) and checks per-subject order against both the store and the
// items already accepted into the same group, assigns seq and prev in memory, builds the entries
// (that judgement, without I/O, is sequencer/group-plan.ts), and writes them with ONE synced logstore.append, then answers every waiter. While a batch is
// being written the next group is judged on the head that batch will leave and handed to the store,
// which writes it right after (pipelined, on a store of one process: group() below); its answers
// leave once it is durable, and a failure of the batch before it fails it too. Dedup is optimistic: the store refuses a batch that
// holds a (source, id) it already has (duplicate_id, nothing written), so ids are looked up one by
// one only after such a refusal, or when an event looks out of order (a retry of a stored event).
// The last cookwalaseq per subject is cached (bounded LRU): this committer is the only writer of
// that index (sequencer/subject-cache.ts). Invariants: a waiter hears "appended" only after append() resolved (fsync'd); the
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

import { truncateTime } from '../verifier/documents/index.ts';
import { fail, ProtocolError, type Failure } from '../verifier/index.ts';
import { formatTime } from '../verifier/encoding/index.ts';
import { appendItemOf, plan, type Candidate, type Outcome, type Plan } from './group-plan.ts';
import type { Committer, CommitterHooks, CommitterOptions } from './committer-types.ts';
import { createSubjectCache } from './subject-cache.ts';
import type { AppendItem } from '../logstore/index.ts';

export type { Candidate, Outcome } from './group-plan.ts';
export { storedOrder } from './group-plan.ts';

export type { Committer, CommitterHooks, CommitterOptions } from './committer-types.ts';
export { SUBJECT_CACHE_MAX } from './subject-cache.ts';

/** A store several processes share (the PostgreSQL driver): leadership is checked before any judgement. */
interface Leased {
  checkLeader(confirm: boolean): Promise<void>;
}

interface Request {
  items: readonly Candidate[];
  resolve(o: Outcome[]): void;
}
/** A group handed to the store on the head the group before it (`before`) will leave. */
interface InFlight {
  requests: Request[];
  plan: Plan;
  /** Its last entry: the head the next group is planned on. */
  tail: { seq: number; hash: string };
  /** The (source, id) pairs it appends, "source\nid". */
  keys: Set<string>;
  before: InFlight | undefined;
  /** The store's answer (never rejects). */
  written: Promise<{ ok: true } | { ok: false; error: unknown }>;
  /** Set once answered: durable as planned, judged again after a refusal, or failed (with what its waiters heard). */
  status?: 'planned' | 'judged-again' | 'failed';
  failure?: Failure;
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
  /** Batches handed to the store so far (the hooks' numbering). */
  let handed = 0;
  /** The last group handed to the store and not yet answered (pipelined: see group()). */
  let inFlight: InFlight | undefined;
  /** Set while the loop waits for the group in flight with nothing queued: new work calls it. */
  let wake: (() => void) | undefined;
  let lastSequencedAt = -Infinity;
  const subjects = createSubjectCache(store, o.subjectCacheMax);

  function kick(): void {
    if (!running) running = loop().finally(() => (running = undefined));
  }

  async function loop(): Promise<void> {
    for (;;) {
      const t = tasks.shift();
      if (!t) {
        if (!inFlight) return;
        // Nothing queued: answer the group in flight once it is written, or take what arrives
        // before that (planned on the head it will leave).
        const g = inFlight;
        await Promise.race([g.written, new Promise<void>((r) => (wake = r))]);
        wake = undefined;
        if (tasks.length === 0) await settleInFlight();
      } else if (t.kind === 'group') await group(t.requests);
      else {
        await settleInFlight();
        await t.run();
      }
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

  /** Answer the stored duplicates, then write the plan's entries as one synced batch. */
  async function commit(p: Plan): Promise<void> {
    for (const [i, seq] of p.fromStore) {
      const e = await store.getEntry(seq);
      if (!e) throw new Error(`the (source, id) index names seq ${seq}, which the store does not hold`);
      p.outcomes[i] = { ok: true, status: 200, seq, hash: e.hash, eventHash: e.eventHash };
    }
    const n = p.appends.length;
    if (n === 0) return;
    await hooks.beforeAppend?.(++handed, n);
    const t0 = performance.now();
    await store.append(p.appends);
    appended(p, t0);
  }

  /** Count a durable batch (from hand-over to durable: with a batch ahead of it, its wait too). */
  function appended(p: Plan, t0: number): void {
    const n = p.appends.length;
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
      subjects.clear();
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
      const base = await subjects.base(all);
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
      for (const [s, v] of p.subjects) if (v !== undefined && v !== base.get(s)) subjects.remember(s, v);
      outcomes = p.outcomes;
    } catch (e) {
      outcomes.fill(failureOf(e, gen));
    }
    answer(requests, outcomes);
  }

  /**
   * Pipelining (LevelDB, one process): a group whose optimistic judgement on the head the group in
   * flight will leave is clean (no refusal that a stored twin could change, no pair of the group in
   * flight, something to append) is handed to the store at once; the store writes it right after
   * that group (append-queue.ts), so its planning overlaps the other's fsync. Its answers leave
   * only once it is durable, which implies the one before. Anything else waits until the group in
   * flight is answered and is judged on the durable head, as without pipelining. At most two
   * groups are unanswered: the group before is answered right after this one is handed over.
   */
  async function group(requests: Request[]): Promise<void> {
    const before = inFlight;
    if (shared || leased || broken !== undefined) {
      await settleInFlight();
      return commitGroup(requests);
    }
    const all = requests.flatMap((r) => r.items);
    let p: Plan;
    try {
      const on = before ? before.tail : store.head();
      const base = await subjects.base(all, before?.plan.subjects);
      p = plan(o.log, on, all, [], base, await sequencedAt(on.seq));
    } catch {
      await settleInFlight();
      return commitGroup(requests);
    }
    const keys = new Set(all.map((c) => `${c.ce.source}\n${c.ce.id}`));
    const twinInFlight = before !== undefined && [...keys].some((k) => before.keys.has(k));
    if (p.outOfOrder || p.timeRefused || p.appends.length === 0 || twinInFlight) {
      await settleInFlight();
      return commitGroup(requests);
    }
    if (hooks.beforeAppend) {
      // The test seam holds a batch in flight with every batch before it durable.
      await before?.written;
      await hooks.beforeAppend(++handed, p.appends.length);
    } else handed++;
    const t0 = performance.now();
    const last = p.appends[p.appends.length - 1].entry;
    const written = store.append(p.appends).then(
      () => {
        appended(p, t0);
        return { ok: true as const };
      },
      (error: unknown) => ({ ok: false as const, error }),
    );
    inFlight = { requests, plan: p, tail: { seq: last.seq, hash: last.hash }, keys, before, written };
    if (before) await finish(before);
  }

  /** Answer the group in flight, if any. */
  async function settleInFlight(): Promise<void> {
    const g = inFlight;
    if (!g) return;
    await finish(g);
    if (inFlight === g) inFlight = undefined;
  }

  /**
   * Answer a handed-over group once the store has answered it (groups are finished in the order
   * they were handed over). Durable: its plan's answers. Refused because the group before it
   * failed: that failure, nothing of it written. Refused because the group before was judged
   * again (its entries not the ones this one chains from), or for a stored duplicate: judged again
   * on the durable head, as any group. Any other failure is the log's, as without pipelining.
   */
  async function finish(g: InFlight): Promise<void> {
    if (g.status) return;
    const r = await g.written;
    const before = g.before;
    g.before = undefined; // answered groups are not kept alive by the ones after them
    if (r.ok) {
      for (const [s, v] of g.plan.subjects) if (v !== undefined) subjects.remember(s, v);
      g.status = 'planned';
      answer(g.requests, g.plan.outcomes);
      return;
    }
    if (before?.status === 'judged-again' || (before?.status !== 'failed' && isDuplicateRefusal(r.error))) {
      g.status = 'judged-again';
      await commitGroup(g.requests);
      return;
    }
    // Refused because the group before it failed (nothing of either acknowledged), or failed itself.
    const f = before?.status === 'failed' ? (broken !== undefined ? brokenFailure() : before.failure!) : failureOf(r.error, undefined);
    g.status = 'failed';
    g.failure = f;
    answer(
      g.requests,
      g.requests.flatMap((q) => q.items.map(() => f)),
    );
  }

  function answer(requests: readonly Request[], outcomes: readonly Outcome[]): void {
    let k = 0;
    for (const r of requests) {
      r.resolve(outcomes.slice(k, k + r.items.length));
      k += r.items.length;
    }
  }

  /** What a group hears when its judgement or its write failed; fatal for the log unless excused below. */
  function failureOf(e: unknown, gen: number | undefined): Failure {
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
    return f;
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
        wake?.();
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
        wake?.();
        kick();
      });
    },
    async close() {
      closing = true;
      while (running) await running;
    },
  };
}
