// verifier/bundle/report-model.ts: the one reading of a BundleReport (report.ts) that both the CLI's
// text (formatReport) and the verifier page (web/src/verifier-page/report-view.ts) render
// (docs/design.md §8, §12b): the verdict line, the facts in the CLI's order (each a label and a
// text, the page's rows and the CLI's lines alike), the policy fingerprint, and the failures as
// CAUSES, each with the failures that follow from it grouped under it. A cause is a failure nothing
// else explains; the consequences recognised are the ones a single fault produces: a missing
// entry (chain_broken with a gap) strands its payload line (misplaced_line) and shifts the
// per-subject order of the entries after it (out_of_order), and every witnessed checkpoint whose
// first-difference bracket holds a cause disagrees with the entries because of it
// (rewrite_detected). Rewrites no cause explains are one cause: the first disagreeing checkpoint,
// the later ones under it. Left out: the checks themselves (the report is their only input), and
// any reordering of the JSON (--json keeps its failures in (seq, line) order). Invariant: every
// listed failure appears exactly once, as a cause or under one; a rewrite is labelled by its
// checkpoint and its bracket, never by a lone seq the entries may hold intact.

import type { ReasonCode } from '../errors.ts';
import { formatDuration } from '../documents/time-bounds.ts';
import { shortFingerprint } from '../documents/policy-fingerprint.ts';
import type { BundleFailure, BundleReport } from './report.ts';

export interface ReportFact {
  /** Stable name (the page's element ids use it). */
  key: string;
  /** The CLI's label (the text before the column). */
  label: string;
  /** The leading value (the page shows it as a count) and the rest of the line. */
  value: string;
  rest: string;
}

export interface ReportItem {
  failure: BundleFailure;
  /** "seq 50, line 104"; a rewrite: "checkpoint 60, line 220". */
  where: string;
  /** One sentence that names the fault ("entry 50 missing: line 103"). */
  title: string;
  /** The bracket of a rewrite, the expected/found pair, the fork proof: lines under the title. */
  more: string[];
}

export interface ReportCause extends ReportItem {
  consequences: ReportItem[];
  /** "misplaced_line 1, rewrite_detected 5", in order of first appearance. */
  consequenceCounts: string;
}

export interface ReportModel {
  verdict: 'VALID' | 'INVALID' | 'UNUSABLE';
  /** "web.example/m-12 (hash_only)" plus the UNWITNESSED warning when the policy has quorum 0. */
  subject: string;
  facts: ReportFact[];
  /** Empty when valid. */
  causes: ReportCause[];
  /** "8: misplaced_line 1, chain_broken 1, …" (the exact counts), or undefined when none. */
  failureCounts?: string;
  /** Failures counted but not listed (beyond the report's cap). */
  unlisted: number;
}

function show(v: unknown): string {
  if (v === undefined) return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 200 ? s.slice(0, 197) + '...' : s;
}

const isRewrite = (f: BundleFailure) => f.kind === 'rewrite_detected' && f.upTo !== undefined && f.seq !== undefined;

/** A chain_broken whose next entry comes later than expected: entries expected..found-1 are missing. */
function gapOf(f: BundleFailure): { from: number; to: number } | undefined {
  if (f.kind !== 'chain_broken') return undefined;
  const e = (f.expected as { seq?: unknown } | undefined)?.seq;
  const g = (f.found as { seq?: unknown } | undefined)?.seq;
  return typeof e === 'number' && typeof g === 'number' && g > e ? { from: e, to: g - 1 } : undefined;
}

function whereOf(f: BundleFailure): string {
  if (isRewrite(f)) return [`checkpoint ${f.upTo}`, f.line !== undefined ? `line ${f.line}` : ''].filter(Boolean).join(', ');
  return [f.seq !== undefined ? `seq ${f.seq}` : '', f.line !== undefined ? `line ${f.line}` : ''].filter(Boolean).join(', ');
}

function moreOf(f: BundleFailure): string[] {
  const out: string[] = [];
  if (f.expected !== undefined) out.push(`expected ${show(f.expected)}`);
  if (f.found !== undefined) out.push(`found    ${show(f.found)}`);
  if (f.upTo !== undefined)
    out.push(
      `first difference in seq ${f.seq}..${f.upTo}${f.firstBadEntry !== undefined ? `; first entry whose hash fails: seq ${f.firstBadEntry}` : ''}`,
    );
  if (f.forkProof)
    out.push(`fork proof: checkpoints at seq ${f.forkProof.a.seq} with roots ${f.forkProof.a.root} and ${f.forkProof.b.root}`);
  return out;
}

function item(f: BundleFailure, title = f.detail): ReportItem {
  return { failure: f, where: whereOf(f), title, more: moreOf(f) };
}

function countsOf(fs: readonly BundleFailure[]): string {
  const m = new Map<ReasonCode, number>();
  for (const f of fs) m.set(f.kind, (m.get(f.kind) ?? 0) + 1);
  return [...m].map(([k, n]) => `${k} ${n}`).join(', ');
}

/** Group the listed failures into causes and their consequences (see the header for the rules). */
export function groupFailures(failures: readonly BundleFailure[]): ReportCause[] {
  const parent = new Map<number, number>(); // index of a consequence -> index of its cause
  const gaps = failures.map(gapOf);
  failures.forEach((f, i) => {
    // The stranded payload line of a missing entry, and the subject order shifted after a gap.
    if (f.kind === 'misplaced_line' && (f.found as { kind?: unknown } | undefined)?.kind === 'Payload' && f.seq !== undefined) {
      const c = gaps.findIndex((g) => g !== undefined && f.seq! >= g.from && f.seq! <= g.to);
      if (c >= 0) parent.set(i, c);
    } else if (f.kind === 'out_of_order' && f.seq !== undefined) {
      let c = -1;
      gaps.forEach((g, j) => {
        if (g && g.from < f.seq! && (c < 0 || g.from > gaps[c]!.from)) c = j;
      });
      if (c >= 0) parent.set(i, c);
    }
  });
  // Rewrites: under the first cause inside their bracket; else under the first unexplained rewrite.
  let firstLoneRewrite = -1;
  const order = failures
    .map((_, i) => i)
    .filter((i) => isRewrite(failures[i]))
    .sort((a, b) => failures[a].upTo! - failures[b].upTo!);
  for (const i of order) {
    const r = failures[i];
    const c = failures.findIndex(
      (f, j) => j !== i && !isRewrite(f) && !parent.has(j) && f.seq !== undefined && f.seq >= r.seq! && f.seq <= r.upTo!,
    );
    if (c >= 0) parent.set(i, c);
    else if (firstLoneRewrite < 0) firstLoneRewrite = i;
    else parent.set(i, firstLoneRewrite);
  }
  const causes: ReportCause[] = [];
  const byIndex = new Map<number, ReportCause>();
  failures.forEach((f, i) => {
    if (parent.has(i)) return;
    const gap = gaps[i];
    let title = f.detail;
    if (gap && f.line !== undefined) {
      // The stranded payload line, when there is one, sits where the missing entry stood.
      const stranded = failures.find((x, j) => parent.get(j) === i && x.kind === 'misplaced_line' && x.line !== undefined);
      const at = Math.min(f.line, stranded?.line ?? f.line);
      const what = gap.from === gap.to ? `entry ${gap.from} missing` : `entries ${gap.from}..${gap.to} missing`;
      title = `${what}: line ${at}; ${f.detail}`;
    }
    const c: ReportCause = { ...item(f, title), consequences: [], consequenceCounts: '' };
    byIndex.set(i, c);
    causes.push(c);
  });
  failures.forEach((f, i) => {
    const p = parent.get(i);
    if (p !== undefined) byIndex.get(p)!.consequences.push(item(f));
  });
  // Under a cause, in log order: a rewrite sits at its checkpoint, not at its bracket's start.
  const at = (f: BundleFailure) => (isRewrite(f) ? f.upTo! : (f.seq ?? -1));
  for (const c of causes) {
    c.consequences.sort((a, b) => at(a.failure) - at(b.failure));
    c.consequenceCounts = countsOf(c.consequences.map((x) => x.failure));
  }
  return causes;
}

/** Facts in the CLI's order; each renders as one line of the text and one row of the page. */
function factsOf(r: BundleReport): ReportFact[] {
  const out: ReportFact[] = [];
  const f = (key: string, label: string, value: string, rest = '') => out.push({ key, label, value, rest });
  f('entries', 'entries', String(r.entries), r.seq !== undefined ? ` (header seq ${r.seq})` : '');
  f('payloads', 'payloads', `${r.payloads.present} present, ${r.payloads.erased} erased, ${r.payloads.missing} missing`);
  const latest = r.checkpoints.latest;
  f(
    'checkpoints',
    'checkpoints',
    `${r.checkpoints.count} (${r.checkpoints.verified} met the policy)`,
    latest ? `; latest seq ${latest.seq}, root ${latest.root}, witnesses ${latest.witnesses.join(', ') || 'none'}` : '',
  );
  const lastCosigned = r.checkpoints.cosigned?.at(-1);
  if (lastCosigned)
    f(
      'cosigned',
      'cosigned by',
      lastCosigned.cosigners.map((c) => `${c.kid} (${c.forms.join(' + ')})`).join(', ') || 'none',
      ` at seq ${lastCosigned.seq}; C2SP log note ${lastCosigned.logNote}`,
    );
  f(
    'witnessed',
    'witnessed',
    `through seq ${r.witnessedThrough}`,
    r.unwitnessed ? `; seq ${r.unwitnessed.from}..${r.unwitnessed.to} not yet witnessed` : '',
  );
  if (r.timeBounds)
    f(
      'time-bounds',
      'time bounds',
      `signedAt within ${formatDuration(r.timeBounds.maxDeliveryDelayMs)} before and ${formatDuration(r.timeBounds.maxClockSkewMs)} after sequencedAt`,
      `; sequencedAt non-decreasing and no later than the cosignatures + ${formatDuration(r.timeBounds.maxClockSkewMs)}`,
    );
  f(
    'subjects',
    'subjects',
    String(r.subjects),
    `; keys trusted ${r.keys.trusted} (${r.keys.fromBundle} from the bundle, signed by the sequencer)`,
  );
  if (r.policy)
    f(
      'policy',
      'policy',
      shortFingerprint(r.policy.fingerprint),
      ` (${r.policy.fingerprint}): log key ${r.policy.sequencer.kid}, witness keys ${r.policy.witnesses.map((w) => w.kid).join(', ') || 'none'}, quorum ${r.policy.quorum}`,
    );
  if (r.legacySignatures > 0) f('weaker', 'WEAKER:', `${r.legacySignatures} legacy (Core 0.2.0 bare-hash) signatures accepted by request`);
  return out;
}

/** Erased payloads and skipped checks: lines of their own after the facts (the caller caps the erased ones). */
export function erasedLine(e: BundleReport['erased'][number]): string {
  return `seq ${e.seq} (eventHash ${e.eventHash}) by entry ${e.erasedBy}: ${e.reason}`;
}

export function skippedLine(s: BundleReport['skipped'][number]): string {
  return `${s.check}${s.seq !== undefined ? ` at seq ${s.seq}` : ''}: ${s.reason}`;
}

export function buildReportModel(r: BundleReport): ReportModel {
  const unwitnessedLog = r.skipped.some((s) => s.check === 'witnessing' && s.reason.startsWith('UNWITNESSED'));
  return {
    verdict: r.exitCode === 2 ? 'UNUSABLE' : r.valid ? 'VALID' : 'INVALID',
    subject: `${r.log ?? '(unknown log)'}${r.mode ? ` (${r.mode})` : ''}${unwitnessedLog ? ' (UNWITNESSED: the policy has quorum 0, no witness checked anything)' : ''}`,
    facts: factsOf(r),
    causes: groupFailures(r.failures),
    failureCounts:
      r.failuresTotal > 0
        ? `${r.failuresTotal}: ${Object.entries(r.failureCounts)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ')}`
        : undefined,
    unlisted: r.failuresTotal - r.failures.length,
  };
}
