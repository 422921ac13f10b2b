// sequencer/subject-cache.ts: the committer's last cookwalaseq per subject (docs/design.md §5 per-subject
// order, §6 the subject index). Read from the store once per subject, then kept in a bounded LRU:
// the committer is the index's only writer, so what it remembers after a durable append is what
// the store holds. A group planned on a group still in flight (sequencer/committer.ts) reads that
// group's planned values first. Leaves out: the order rule itself (sequencer/group-plan.ts).
// Invariant: a value enters only once the append that wrote it is durable.

import type { LogStore } from '../logstore/index.ts';
import { hasOrder, type Candidate } from './group-plan.ts';

/** Subjects whose last cookwalaseq is kept in memory (least recently used evicted, then read again). */
export const SUBJECT_CACHE_MAX = 100_000;

export interface SubjectCache {
  /** The last cookwalaseq of each ordered subject in `all`: `planned` first, then the cache, then the store. */
  base(all: readonly Candidate[], planned?: ReadonlyMap<string, number | undefined>): Promise<Map<string, number | undefined>>;
  /** After a durable append. */
  remember(subject: string, seq: number): void;
  clear(): void;
}

export function createSubjectCache(store: Pick<LogStore, 'lastSubjectSeq'>, max = SUBJECT_CACHE_MAX): SubjectCache {
  const cache = new Map<string, number>();
  return {
    async base(all, planned) {
      const base = new Map<string, number | undefined>();
      const missing: string[] = [];
      for (const c of all) {
        if (!hasOrder(c.ce) || base.has(c.ce.subject!)) continue;
        const s = c.ce.subject!;
        const v = planned?.has(s) ? planned.get(s) : cache.get(s);
        base.set(s, v);
        if (v === undefined) missing.push(s);
      }
      const read = await Promise.all(missing.map((s) => store.lastSubjectSeq(s)));
      missing.forEach((s, i) => base.set(s, read[i]));
      return base;
    },
    remember(subject, seq) {
      cache.delete(subject);
      cache.set(subject, seq);
      if (cache.size > max) cache.delete(cache.keys().next().value as string);
    },
    clear: () => cache.clear(),
  };
}
