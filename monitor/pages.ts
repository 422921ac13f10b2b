// monitor/pages.ts: the entry pages of a Cookwala log's static copy (docs/monitoring.md "Static
// tiles"): `cookwala/entries/<N>` holds the entries route's bytes with payloads
// (`GET /v1/logs/{log}/entries?from=&to=&payloads=1`, docs/design.md §10) of the 256 entries that
// tlog-tiles entry bundle N covers (seqs N*256+1 .. N*256+256, the log's leaves N*256 .. N*256+255),
// and the last page of a tree of `size` is partial, `cookwala/entries/<N>.p/<W>`, named as
// monitor/tiles.ts names tiles. Here: which pages a tree holds, which cover a seq range, the lines
// of a range cut out of the pages read (and read: readCopyRange, for entries-step.ts), and the seqs
// an erasure entry of a page names. Left out: writing them (pages-out.ts), checking what they hold
// (entries-step.ts). Invariant: a range is cut at entry
// lines only (a payload line stays with the entry before it); a line that does not parse in the
// part cut is an error, never skipped.

import { fail, MAX_JSON_DEPTH, ok, type Result } from '../verifier/index.ts';
import { parseJson } from '../verifier/documents/index.ts';
import { ERASED_TYPE } from '../verifier/bundle/index.ts';
import { TILE_WIDTH, tileIndexPath } from './tiles.ts';
import type { HttpGet } from './http-get.ts';

export const PAGE_ENTRIES = TILE_WIDTH;
export const PAGES_DIR = 'cookwala/entries/';

/** The path of page `index` of width `width` (1..256) under the copy's root. */
export function pagePath(index: number, width: number): string {
  const p = `${PAGES_DIR}${tileIndexPath(index)}`;
  return width === PAGE_ENTRIES ? p : `${p}.p/${width}`;
}

export interface PageRef {
  index: number;
  width: number;
  path: string;
  /** The seqs the page holds, inclusive. */
  first: number;
  last: number;
}

/** Page `index` of a tree of `size` entries (undefined beyond it). */
export function pageOf(index: number, size: number): PageRef | undefined {
  const width = Math.min(PAGE_ENTRIES, size - index * PAGE_ENTRIES);
  if (width <= 0 || index < 0) return undefined;
  const first = index * PAGE_ENTRIES + 1;
  return { index, width, path: pagePath(index, width), first, last: first + width - 1 };
}

/** Every page of a tree of `size` entries, in seq order. */
export function pagesOf(size: number): PageRef[] {
  const out: PageRef[] = [];
  for (let k = 0; k * PAGE_ENTRIES < size; k++) out.push(pageOf(k, size)!);
  return out;
}

/** The page holding `seq` (1-based) in a tree of `size`. */
export const pageIndexOf = (seq: number) => Math.floor((seq - 1) / PAGE_ENTRIES);

/** The pages of a tree of `size` that cover seqs from..to (1 <= from <= to <= size). */
export function pagesCovering(from: number, to: number, size: number): PageRef[] {
  const out: PageRef[] = [];
  for (let k = pageIndexOf(from); k <= pageIndexOf(to); k++) {
    const p = pageOf(k, size);
    if (p) out.push(p);
  }
  return out;
}

const LINE_LIMITS = { maxDepth: MAX_JSON_DEPTH + 1 };

const isPayloadLine = (v: unknown) => v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'Payload';

/**
 * The byte offset in `body` where its entry line number `n` (0-based) starts, payload lines not
 * counted; body.length when it holds n entries or fewer.
 */
function entryStart(body: Uint8Array, n: number, where: string): Result<number> {
  let seen = 0;
  for (let at = 0; at < body.length;) {
    let nl = body.indexOf(0x0a, at);
    if (nl < 0) nl = body.length;
    if (nl > at) {
      const j = parseJson(Buffer.from(body.buffer, body.byteOffset + at, nl - at).toString('utf8'), LINE_LIMITS);
      if (!j.ok) return fail(j.code, `${where}: ${j.detail}`);
      if (!isPayloadLine(j.value)) {
        if (seen === n) return ok(at);
        seen++;
      }
    }
    at = nl + 1;
  }
  return ok(body.length);
}

/** The lines of page `p`'s `body` that hold entries from..to (and their payload lines), as a view of it. */
function cutPage(p: PageRef, body: Uint8Array, from: number, to: number): Result<Uint8Array> {
  const skip = Math.max(0, from - p.first);
  const keep = Math.min(p.last, to) - Math.max(p.first, from) + 1;
  if (p.last > to) {
    const end = entryStart(body, skip + keep, p.path);
    if (!end.ok) return end;
    body = body.subarray(0, end.value);
  }
  if (skip > 0) {
    const start = entryStart(body, skip, p.path);
    if (!start.ok) return start;
    body = body.subarray(start.value);
  }
  return ok(body);
}

/** `part` written at `at` of `into.buf` (grown, what it held up to `at` kept); the end. */
function append(into: { buf: Buffer }, at: number, part: Uint8Array): number {
  if (into.buf.length < at + part.length) {
    const grown = Buffer.allocUnsafe(Math.max(at + part.length, 2 * into.buf.length));
    into.buf.copy(grown, 0, 0, at);
    into.buf = grown;
  }
  into.buf.set(part, at);
  return at + part.length;
}

/**
 * The lines of entries from..to out of the bodies of `pages` (pagesCovering(from, to, …), read in
 * that order): the first page's lines before `from` and the last page's after `to` dropped, the
 * pages between taken whole, joined into `into.buf` (grown as needed) when given. What the pages
 * hold is not judged here: the caller's checks refuse a result without exactly the entries asked.
 */
export function joinPages(
  pages: readonly PageRef[],
  bodies: readonly Uint8Array[],
  from: number,
  to: number,
  into: { buf: Buffer } = { buf: Buffer.alloc(0) },
): Result<Buffer> {
  let at = 0;
  for (const [i, p] of pages.entries()) {
    const part = cutPage(p, bodies[i], from, to);
    if (!part.ok) return part;
    at = append(into, at, part.value);
  }
  return ok(into.buf.subarray(0, at));
}

/**
 * The seqs the erasure entries of a page name (their Payload lines, `cookwala.log.erased` with
 * data.seq an earlier seq), in the order met; lines that do not parse are left to the readers.
 */
export function erasedSeqs(body: Uint8Array): number[] {
  const out: number[] = [];
  const b = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // Only the lines that name the type are parsed: a page without erasures is one byte search.
  for (let at = 0; at < b.length;) {
    const t = b.indexOf(ERASED_TYPE, at);
    if (t < 0) break;
    const start = b.lastIndexOf(0x0a, t) + 1;
    let nl = b.indexOf(0x0a, t);
    if (nl < 0) nl = b.length;
    at = nl + 1;
    const j = parseJson(b.toString('utf8', start, nl), LINE_LIMITS);
    const v = j.ok ? (j.value as { kind?: unknown; seq?: unknown; event?: { type?: unknown; data?: { seq?: unknown } } }) : undefined;
    const target = v?.event?.data?.seq;
    if (
      v &&
      isPayloadLine(v) &&
      v.event?.type === ERASED_TYPE &&
      Number.isSafeInteger(target) &&
      Number.isSafeInteger(v.seq) &&
      (target as number) >= 1 &&
      (target as number) < (v.seq as number)
    )
      out.push(target as number);
  }
  return out;
}

/** Pages read at once from a copy. */
const COPY_CONCURRENCY = 8;

/** The buffers a range's pages are read into, one per page read at once, kept with the range's buffer. */
const scratchOf = new WeakMap<{ buf: Buffer }, Array<{ buf: Buffer }>>();

/**
 * Entries from..to of a tree of `size` from the static copy under `prefix` (ending in '/'): the
 * pages covering them, each at most `maxBytes`, cut and joined as joinPages does, into `into.buf`.
 * The pages are read, COPY_CONCURRENCY at once, each at most maxBytes / COPY_CONCURRENCY and all
 * together at most maxBytes, into buffers kept with `into`, and each batch is joined before the
 * next reuses them, so a catch-up of many ranges allocates no buffer per page
 * (fresh external memory per page costs page faults and collections).
 */
export async function readCopyRange(
  get: HttpGet,
  prefix: string,
  from: number,
  to: number,
  size: number,
  maxBytes: number,
  into: { buf: Buffer },
): Promise<Result<Buffer>> {
  const pages = pagesCovering(from, to, size);
  let scratch = scratchOf.get(into);
  if (!scratch) scratchOf.set(into, (scratch = Array.from({ length: COPY_CONCURRENCY }, () => ({ buf: Buffer.allocUnsafe(1 << 19) }))));
  let at = 0;
  for (let i = 0; i < pages.length; i += COPY_CONCURRENCY) {
    const batch = pages.slice(i, i + COPY_CONCURRENCY);
    const pageMax = Math.min(maxBytes - at, Math.floor(maxBytes / COPY_CONCURRENCY));
    const got = await Promise.all(batch.map((p, j) => get(prefix + p.path, { maxBytes: pageMax, timeoutMs: 120_000, into: scratch[j] })));
    for (const [j, p] of batch.entries()) {
      if (got[j].status !== 200) return fail('not_found', `GET ${prefix}${p.path}: HTTP ${got[j].status}`);
      const part = cutPage(p, got[j].body, from, to);
      if (!part.ok) return part;
      at = append(into, at, part.value);
    }
  }
  return ok(into.buf.subarray(0, at));
}
