// monitor/entries-step.ts: the entries of a Cookwala log between two checkpoints, checked as the
// offline verifier checks them (docs/design.md §8), by the verifier's own entry checker
// (verifier/bundle/entries.ts) resumed from the monitor's state: strict reading, entry hashes, the
// chain link to the last verified head, device signatures and key validity (device KeyRecords from
// `GET /v1/logs/{log}/keys`, admitted only when the policy's sequencer key signed them, plus the
// auditor's key cache), the descriptor's time bounds, per-subject cookwalaseq order, (source, id)
// uniqueness in the monitor's window (id-window.ts), payload hashes and signatures
// (`GET …/events/{seq}`; 410 is an erased payload, which the sequencer-signed erasure entry
// explains), erasure records. Entries and their payloads come from
// `GET …/entries?from=&to=&payloads=1` in pages of at most 10,000 (a log that does not inline
// payloads is read one `GET …/events/{seq}` each), or, from a static copy (`cookwala tiles
// --entries`, pages.ts), from the copy's pages of 256 that cover the range, joined, with the
// descriptor and keys read from the copy too (there an entry without a payload line is an erased
// one); device signatures go through `verifyBatch` (the
// CLI's worker pool on every core). A page is held as its bytes only, its lines parsed and
// checked one at a time and dropped, as `cookwala verify` streams a bundle, so no page of parsed
// entries outlives the young generation; the pages are read into two buffers taken in turn. The
// next page is read while one is checked, and a page kept as a resume point is handed to the
// caller once its checks settled, behind the next page's. An
// erased payload is matched to its erasure entry within the step by the checker; the gaps it
// leaves are returned, and the earlier steps' gaps are matched through `earlierMissing`
// (erasures.ts). The Merkle root and head at the checkpoint's size are recomputed from the
// entries read, so they are compared with the checkpoint by the caller. Left out: the policy's
// pinning of the declared time bounds. Invariant: nothing is trusted from the log but what a
// verified checkpoint binds; the caller commits the returned resume point only when it connects.

import { isUtf8 } from 'node:buffer';
import { createFailureLog, type BundleFailure } from '../verifier/bundle/index.ts';
import { createTrust } from '../verifier/bundle/index.ts';
import { createSigQueue, type VerifyBatch } from '../verifier/bundle/index.ts';
import { createEntryChecker, type EarlierMissing, type EntryResume } from '../verifier/bundle/index.ts';
import { readDocument, parseJson } from '../verifier/documents/index.ts';
import { verifyLogDescriptor, type LogDescriptor } from '../verifier/documents/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { WitnessPolicy } from '../verifier/documents/index.ts';
import { fail, MAX_JSON_DEPTH, ok, type Result } from '../verifier/index.ts';
import { toHex } from '../verifier/encoding/index.ts';
import { text, type HttpGet } from './http-get.ts';
import type { IdWindow } from './id-window.ts';
import { readCopyRange } from './pages.ts';

export const PAGE = 10_000;
/** The most bytes one read of entries may hold (a page of the entries route, a page of a copy). */
export const MAX_PAGE_BYTES = 256 << 20;
const PAYLOAD_CONCURRENCY = 16;

type EntryChecker = ReturnType<typeof createEntryChecker>;
/** A payload line wraps one event: one level deeper than a document, as `cookwala verify` reads bundle lines. */
const LINE_LIMITS = { maxDepth: MAX_JSON_DEPTH + 1 };

export interface LogSource {
  /** The sequencer's base URL (undefined when everything is read from `copy`). */
  base?: string;
  /**
   * A static copy's prefix (ending in '/', `cookwala tiles --entries`): the descriptor, keys and
   * entry pages are read from it (pages.ts), never from the sequencer; an entry without a payload
   * line there is an erased payload.
   */
  copy?: string;
  policy: WitnessPolicy;
  keyCache: readonly KeyRecord[];
  /** Device signature checks in batches (the CLI's worker pool); inline by default. */
  verifyBatch?: VerifyBatch;
}

export interface Descriptor {
  doc: LogDescriptor;
  hash: string;
}

const logUrl = (s: LogSource, rest: string) => `${s.base}/v1/logs/${encodeURIComponent(s.policy.log)}${rest}`;

/** The log's descriptor, signed by the policy's sequencer key. */
export async function readDescriptor(get: HttpGet, s: LogSource): Promise<Result<Descriptor>> {
  const r = await get(s.copy !== undefined ? `${s.copy}cookwala/log.json` : logUrl(s, ''), {
    accept: 'application/json',
    maxBytes: 1 << 20,
  });
  if (r.status !== 200) return fail('not_found', `GET the descriptor: HTTP ${r.status}`);
  const j = parseJson(text(r.body));
  if (!j.ok) return j;
  const d = readDocument('Log', j.value);
  if (!d.ok) return d;
  const v = verifyLogDescriptor(d.value, s.policy.sequencer, { log: s.policy.log });
  if (!v.ok) return v;
  return ok({ doc: d.value, hash: v.value.hash });
}

async function readKeys(get: HttpGet, s: LogSource): Promise<KeyRecord[]> {
  const r = await get(s.copy !== undefined ? `${s.copy}cookwala/keys.json` : logUrl(s, '/keys'), {
    accept: 'application/json',
    maxBytes: 16 << 20,
  });
  if (r.status !== 200) return [];
  const j = parseJson(text(r.body));
  const keys = j.ok ? (j.value as { keys?: unknown }).keys : undefined;
  return Array.isArray(keys) ? (keys as KeyRecord[]) : [];
}

type Payload = Record<string, unknown> | 'erased' | 'absent';

/**
 * Entries from..to as served, `payloads=1` having each present payload follow its entry as a
 * bundle Payload line: the page's bytes, whole and UTF-8 (as `cookwala verify` refuses a line that
 * is not UTF-8, bad_json, rather than reading it with U+FFFD). Its lines are parsed one at a time
 * as they are checked (checkPage), so no page of parsed entries is ever held. The page is read into
 * `into` (one of two buffers the step reuses, see checkEntries), so no page allocates its own.
 */
async function readPage(
  get: HttpGet,
  s: LogSource,
  from: number,
  to: number,
  into: { buf: Buffer },
  size: number,
): Promise<Result<Buffer>> {
  if (s.copy !== undefined) {
    const c = await readCopyRange(get, s.copy, from, to, size, MAX_PAGE_BYTES, into);
    if (c.ok && !isUtf8(c.value)) return fail('bad_json', `entries ${from}-${to}: the copy's pages are not UTF-8`);
    return c;
  }
  const r = await get(logUrl(s, `/entries?from=${from}&to=${to}&payloads=1`), { maxBytes: MAX_PAGE_BYTES, timeoutMs: 120_000, into });
  if (r.status !== 200) return fail('not_found', `GET entries ${from}-${to}: HTTP ${r.status}`);
  if (!isUtf8(r.body)) return fail('bad_json', `entries ${from}-${to}: the body is not UTF-8`);
  return ok(Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength));
}

/** The lines of a page that are not empty (a newline byte never occurs inside a UTF-8 sequence). */
function countLines(body: Buffer): number {
  let n = 0;
  for (let at = 0; at < body.length;) {
    let nl = body.indexOf(0x0a, at);
    if (nl < 0) nl = body.length;
    if (nl > at) n++;
    at = nl + 1;
  }
  return n;
}

/** The payload of one entry: the event, 'erased' (410) or 'absent' (404). */
async function readPayload(get: HttpGet, s: LogSource, seq: number): Promise<Record<string, unknown> | 'erased' | 'absent'> {
  const r = await get(logUrl(s, `/events/${seq}`), { accept: 'application/cloudevents+json', maxBytes: 16 << 20 });
  if (r.status === 410) return 'erased';
  if (r.status !== 200) return 'absent';
  const j = parseJson(text(r.body));
  return j.ok && j.value !== null && typeof j.value === 'object' && !Array.isArray(j.value)
    ? (j.value as Record<string, unknown>)
    : 'absent';
}

/**
 * Checks the page lo..hi line by line, as `cookwala verify` checks a bundle: each line is decoded,
 * parsed, handed to the checker and dropped, and a payload line goes with the entry just before
 * it, with its seq (anything else is misplaced_line). A page with no line beyond its entries has
 * no payload inline (a log that does not inline them, or every payload erased) and is completed by
 * one GET …/events/{seq} per entry first. A page that does not hold exactly entries lo..hi is
 * refused (truncated): the checks it got so far are dropped with the step. `counter.line` counts
 * the lines handed to the checker across the step.
 */
async function checkPage(
  get: HttpGet,
  s: LogSource,
  checker: EntryChecker,
  body: Buffer,
  lo: number,
  hi: number,
  counter: { line: number },
): Promise<Result<void>> {
  const expected = hi - lo + 1;
  const lines = countLines(body);
  if (lines < expected) return fail('truncated', `entries ${lo}-${hi}: the log served ${lines} lines`);
  let fetched: Payload[] | undefined;
  // A copy has no events route: there an entry without a payload line has an erased payload.
  if (lines === expected && s.copy === undefined) {
    fetched = new Array<Payload>(expected).fill('absent');
    for (let i = 0; i < expected; i += PAYLOAD_CONCURRENCY) {
      const batch = [];
      for (let j = i; j < Math.min(expected, i + PAYLOAD_CONCURRENCY); j++)
        batch.push(readPayload(get, s, lo + j).then((p) => (fetched![j] = p)));
      await Promise.all(batch);
    }
  }
  let n = 0;
  let open = false;
  for (let start = 0; start < body.length;) {
    let nl = body.indexOf(0x0a, start);
    if (nl < 0) nl = body.length;
    const text = nl > start ? body.toString('utf8', start, nl) : undefined;
    start = nl + 1;
    if (text === undefined) continue;
    const j = parseJson(text, LINE_LIMITS);
    if (!j.ok) return fail(j.code, `entries ${lo}-${hi}: ${j.detail}`);
    const v = j.value as { kind?: unknown; seq?: unknown; event?: unknown } | null;
    if (v !== null && typeof v === 'object' && v.kind === 'Payload') {
      const seq = lo + n - 1;
      if (!open || v.seq !== seq || typeof v.event !== 'object' || v.event === null || Array.isArray(v.event))
        return fail('misplaced_line', `entries ${lo}-${hi}: a payload line for ${String(v.seq)} after entry ${seq}`);
      open = false;
      checker.payload({ kind: 'Payload', seq, event: v.event as Record<string, unknown> }, ++counter.line);
      continue;
    }
    if (n === expected) return fail('truncated', `entries ${lo}-${hi}: the log served more than ${expected}`);
    const w = checker.entry(j.value, ++counter.line);
    n++;
    if (w) await w;
    const p = fetched?.[n - 1];
    if (typeof p === 'object') checker.payload({ kind: 'Payload', seq: lo + n - 1, event: p }, ++counter.line);
    // Inline, a payload line may follow this entry (one, for this entry only).
    open = fetched === undefined;
  }
  if (n !== expected) return fail('truncated', `entries ${lo}-${hi}: the log served ${n}`);
  return ok(undefined);
}

export interface EntriesOutcome {
  /** Recomputed at `to`: the head (hash of entry `to`) and the Merkle root. */
  head: string;
  root: string;
  failures: BundleFailure[];
  resume: EntryResume;
  entries: number;
  /** The entries whose payload is missing and that no erasure entry of this step explained: [seq, hex eventHash]. */
  unexplained: Array<[number, string]>;
}

/** A page before the last that ended: a place the caller may keep once its checks settled. */
export interface KeptPage {
  /** Taken when the page ended (its subjects a copy), so later pages do not change it. */
  at: EntryResume & { subjects: Array<[string, number]> };
  /** Entries checked in this step through the page. */
  entries: number;
  /** The payloads missing through the page that no erasure entry of the step explained: [seq, hex eventHash]. */
  unexplained: Array<[number, string]>;
}

export interface CheckOptions {
  pageEntries?: number;
  /** The payloads earlier steps found missing and no erasure entry explained yet (monitor/erasures.ts). */
  earlierMissing?: EarlierMissing;
  /**
   * Called when a page before the last ends, synchronously (the caller takes what it keeps then);
   * the function it returns runs once the page's checks settled with none failed, while the next
   * pages are checked. Those run in page order, and none outlives checkEntries.
   */
  onPage?: (kept: KeptPage) => () => Promise<void>;
}

function unexplainedOf(checker: EntryChecker): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  checker.unexplainedPayloads((seq, hash) => out.push([seq, toHex(hash)]));
  return out;
}

/**
 * Check entries from+1..to, resuming from `resume` (undefined: from the descriptor, seq 0). The
 * next page is read while one is checked (the log serves it meanwhile), and a kept page is saved
 * behind the checks of the next one: the workers never wait for the log or the disk.
 */
export async function checkEntries(
  get: HttpGet,
  s: LogSource,
  d: Descriptor,
  resume: EntryResume | undefined,
  to: number,
  ids: IdWindow,
  o: CheckOptions = {},
): Promise<Result<EntriesOutcome>> {
  const failures = createFailureLog(200);
  const trust = createTrust(s.policy, s.keyCache);
  for (const k of await readKeys(get, s)) {
    const a = trust.admit(k);
    if (!a.ok && k.kid !== s.policy.sequencer.kid) failures.add({ kind: a.code, detail: `KeyRecord ${String(k.kid)}: ${a.detail}` });
  }
  const keyFailures = failures.total;
  const sigs = createSigQueue({ verifyBatch: s.verifyBatch });
  let at: { head: string; root: string } | undefined;
  const checker = createEntryChecker({
    failures,
    trust,
    sigs,
    mode: d.doc.mode,
    log: s.policy.log,
    descriptorHash: d.hash,
    timeBounds: d.doc.timeBounds,
    timePrecision: d.doc.timePrecision,
    wantsRoot: (seq) => seq === to,
    recordRoot: (_seq, head, root) => {
      at = { head, root };
    },
    resume,
    ids,
    earlierMissing: o.earlierMissing,
  });
  const from = (resume?.seq ?? 0) + 1;
  const pageEntries = Math.max(1, Math.min(PAGE, o.pageEntries ?? PAGE));
  // Two buffers, taken in turn: page k is read into one while page k - 1, in the other, is checked,
  // and page k + 1 is requested only once page k - 1's lines were all decoded (strings copied out).
  const pageBufs = [{ buf: Buffer.allocUnsafe(1 << 20) }, { buf: Buffer.allocUnsafe(1 << 20) }];
  let pages = 0;
  const read = (lo: number) => {
    const p = readPage(get, s, lo, Math.min(to, lo + pageEntries - 1), pageBufs[pages++ % 2], to);
    p.catch(() => undefined); // awaited below; a step that returns early leaves it unawaited
    return p;
  };
  // The kept pages' saves, in order, each after its page's checks settled.
  let saving: Promise<void> = Promise.resolve();
  try {
    const counter = { line: 0 };
    let next = from <= to ? read(from) : undefined;
    for (let lo = from; lo <= to; lo += pageEntries) {
      const hi = Math.min(to, lo + pageEntries - 1);
      const page = await next!;
      next = hi < to ? read(hi + 1) : undefined;
      if (!page.ok) return page;
      const checked = await checkPage(get, s, checker, page.value, lo, hi, counter);
      if (!checked.ok) return checked;
      // A page before the last: kept once its checks settled, if nothing failed so far (a failure
      // is reported at the step's end; a monitor killed before then checks that page again).
      if (o.onPage && hi < to) {
        checker.close();
        const r = checker.resumePoint();
        const save = o.onPage({ at: { ...r, subjects: [...r.subjects] }, entries: hi - from + 1, unexplained: unexplainedOf(checker) });
        saving = Promise.all([saving, sigs.settled()]).then(() => (failures.total === keyFailures ? save() : undefined));
        saving.catch(() => undefined); // awaited in the finally
      }
    }
    checker.close();
    await sigs.drain();
    if (!at) return fail('truncated', `no root was recorded at ${to}`);
    return ok({
      head: at.head,
      root: at.root,
      failures: failures.list(),
      resume: checker.resumePoint(),
      entries: to - from + 1,
      unexplained: unexplainedOf(checker),
    });
  } finally {
    // No save may outlive the step: the caller's next write of the state comes after it.
    await saving;
  }
}
