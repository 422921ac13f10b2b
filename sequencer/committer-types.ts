// sequencer/committer-types.ts: what the committer (sequencer/committer.ts, docs/design.md §5, §6)
// offers and takes: submit, exclusive work, close, its counters and its test seam, and its
// options. Leaves out the behaviour (committer.ts). Invariant: none of its own; the type surface
// only.

import type { TimePrecision } from '../verifier/documents/index.ts';
import type { AppendItem, LogStore } from '../logstore/index.ts';
import type { Clock } from '../platform/index.ts';
import type { Metrics } from './metrics.ts';
import type { Candidate, Outcome } from './group-plan.ts';

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
