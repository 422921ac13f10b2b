// sequencer/entries-query.ts: the filtered and newest-first reading of a log's entries behind
// GET /v1/logs/{log}/entries?order=desc&subject=&source=&limit= (docs/design.md §10, §12b: the explorer
// pages through entries newest first, filters and searches). Exact matches on ce.subject,
// ce.source, ce.type, ce.id and eventHash, prefix matches on ce.subject and ce.source
// (subjectPrefix, sourcePrefix), all given ones at once; `order=desc` walks down from `to` in windows read with the store's
// ascending iterator. Bounded work per call: at most MAX_SCAN entries are examined and at most
// `limit` returned, so a filter that matches rarely costs several calls, never one unbounded one;
// the answer says which range was examined and where the next call starts (`next`, absent when
// the range is exhausted). Left out: indexes (a subject or source index would make sparse filters
// O(matches); the store keeps only the (source, id) and last-cookwalaseq indexes today).

import { fail, ok, type Result } from '../verifier/index.ts';
import type { LogStore } from '../logstore/index.ts';
import type { Entry } from '../verifier/documents/index.ts';
import { optionalIntParam } from './context.ts';

export const MAX_SCAN = 10_000;
export const MAX_LIMIT = 1_000;
const WINDOW = 256;

export interface EntriesQuery {
  from: number;
  to: number;
  order: 'asc' | 'desc';
  subject?: string;
  source?: string;
  subjectPrefix?: string;
  sourcePrefix?: string;
  type?: string;
  id?: string;
  eventHash?: string;
  limit: number;
}

/** The match parameters (exact unless named *Prefix); each 1 to 1024 characters. */
export const MATCH_PARAMS = ['subject', 'source', 'subjectPrefix', 'sourcePrefix', 'type', 'id', 'eventHash'] as const;

export interface EntriesPage {
  entries: Entry[];
  /** The seqs examined, inclusive (empty when first > last). */
  scanned: { first: number; last: number };
  /** Where the next call continues (its `from` for asc, its `to` for desc); absent when done. */
  next?: number;
}

/** Whether the querystring asks for more than a plain range (then queryEntries answers it). */
export function isFilteredQuery(q: Record<string, string | undefined>): boolean {
  return q.order !== undefined || q.limit !== undefined || MATCH_PARAMS.some((k) => q[k] !== undefined);
}

/** The query from strings (ajv never coerces): bad_request names the parameter at fault. */
export function readEntriesQuery(q: Record<string, string | undefined>, head: number): Result<EntriesQuery> {
  if (q.order !== undefined && q.order !== 'asc' && q.order !== 'desc') return fail('bad_request', 'order is asc or desc');
  for (const k of MATCH_PARAMS) {
    const v = q[k];
    if (v !== undefined && (v.length === 0 || v.length > 1024)) return fail('bad_request', `${k} is 1 to 1024 characters`);
  }
  const from = optionalIntParam('from', q.from, 1, 1);
  if (!from.ok) return from;
  const to = optionalIntParam('to', q.to, head, 1);
  if (!to.ok) return to;
  const limit = optionalIntParam('limit', q.limit, MAX_LIMIT, 1);
  if (!limit.ok) return limit;
  if (q.to !== undefined && to.value < from.value) return fail('bad_request', `to ${to.value} is before from ${from.value}`);
  if (limit.value > MAX_LIMIT) return fail('bad_request', `limit is at most ${MAX_LIMIT}`);
  return ok({
    from: from.value,
    to: Math.min(to.value, head),
    order: q.order === 'desc' ? 'desc' : 'asc',
    ...Object.fromEntries(MATCH_PARAMS.filter((k) => q[k] !== undefined).map((k) => [k, q[k]])),
    limit: limit.value,
  });
}

function matches(e: Entry, q: EntriesQuery): boolean {
  return (
    (q.subject === undefined || e.ce.subject === q.subject) &&
    (q.source === undefined || e.ce.source === q.source) &&
    (q.subjectPrefix === undefined || (e.ce.subject ?? '').startsWith(q.subjectPrefix)) &&
    (q.sourcePrefix === undefined || e.ce.source.startsWith(q.sourcePrefix)) &&
    (q.type === undefined || e.ce.type === q.type) &&
    (q.id === undefined || e.ce.id === q.id) &&
    (q.eventHash === undefined || e.eventHash === q.eventHash)
  );
}

export async function queryEntries(store: Pick<LogStore, 'entries'>, q: EntriesQuery): Promise<EntriesPage> {
  const out: Entry[] = [];
  if (q.from > q.to) return { entries: out, scanned: { first: q.from, last: q.to } };
  if (q.order === 'asc') {
    const stop = Math.min(q.to, q.from + MAX_SCAN - 1);
    let last = q.from - 1;
    for await (const e of store.entries(q.from, stop)) {
      last = e.seq;
      if (matches(e, q)) out.push(e);
      if (out.length >= q.limit) break;
    }
    return { entries: out, scanned: { first: q.from, last }, next: last < q.to ? last + 1 : undefined };
  }
  const floor = Math.max(q.from, q.to - MAX_SCAN + 1);
  let low = q.to + 1; // the lowest seq examined so far
  while (low > floor && out.length < q.limit) {
    const hi = low - 1;
    const lo = Math.max(floor, hi - WINDOW + 1);
    const window: Entry[] = [];
    for await (const e of store.entries(lo, hi)) window.push(e);
    for (let i = window.length - 1; i >= 0; i--) {
      const e = window[i];
      low = e.seq;
      if (matches(e, q)) out.push(e);
      if (out.length >= q.limit) break;
    }
    if (window.length === 0) low = lo;
  }
  return { entries: out, scanned: { first: low, last: q.to }, next: low > q.from ? low - 1 : undefined };
}
