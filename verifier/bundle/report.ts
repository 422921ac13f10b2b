// verifier/bundle/report.ts: what `cookwala verify` says about a bundle (docs/design.md §8): every failure
// named as {kind, seq, expected, found, detail} (plus the ForkProof of a fork, and the bracket of a
// rewrite), the erased payloads with the entries that erased them, the checks skipped, and the
// verdict with its exit code (0 valid, 1 invalid, 2 unusable input), and the fingerprint of the
// policy trusted. The same facts render as JSON (--json) or as a human summary (formatReport, from
// the model of report-model.ts that the verifier page renders too: the first cause first, what
// follows from it grouped under it). Lists are capped so a hostile or broken bundle
// cannot grow the report without bound; counts stay exact.
// Invariant: `valid` is true exactly when no failure was recorded and the input was usable.

import type { ReasonCode } from '../errors.ts';
import type { ForkProof } from '../documents/fork-proof.ts';
import type { TimeBounds } from '../documents/time-bounds.ts';
import type { PolicyFingerprint } from '../documents/policy-fingerprint.ts';
import { buildReportModel, erasedLine, skippedLine } from './report-model.ts';

export interface BundleFailure {
  kind: ReasonCode;
  /** The log position the failure belongs to (the entry's seq, or the checkpoint's). */
  seq?: number;
  /** 1-based line number in the bundle. */
  line?: number;
  expected?: unknown;
  found?: unknown;
  detail: string;
  /** fork_detected: the self-contained proof. */
  forkProof?: ForkProof;
  /** rewrite_detected: the first differing seq lies in [seq, upTo]; the first entry whose hash fails. */
  upTo?: number;
  firstBadEntry?: number;
}

export interface ErasedPayload {
  seq: number;
  eventHash: string;
  /** The seq of the `cookwala.log.erased` entry. */
  erasedBy: number;
  reason: string;
}

export interface SkippedCheck {
  check: string;
  reason: string;
  seq?: number;
}

export interface CheckpointSummary {
  seq: number;
  head: string;
  root: string;
  /** kids of the witnesses whose cosignatures counted. */
  witnesses: string[];
}

/** Per checkpoint that met the policy: which witnesses cosigned it and in which form (JCS, cosignature/v1), and the log's C2SP note signature. */
export interface CheckpointCosigners {
  seq: number;
  cosigners: Array<{ kid: string; forms: Array<'jcs' | 'cosignature/v1' | 'subtree/v1'> }>;
  logNote: 'verified' | 'absent' | 'bad';
}

export interface BundleReport {
  valid: boolean;
  exitCode: 0 | 1 | 2;
  log?: string;
  mode?: string;
  seq?: number;
  exportedAt?: string;
  /** The time window the descriptor declares, checked against every entry; absent: skipped. */
  timeBounds?: TimeBounds;
  lines: number;
  entries: number;
  payloads: { present: number; erased: number; missing: number };
  checkpoints: {
    count: number;
    verified: number;
    latest?: CheckpointSummary;
    cosigned?: CheckpointCosigners[];
    cosignedTruncated?: boolean;
  };
  /** The highest seq covered by a checkpoint that met the policy and matched the entries. */
  witnessedThrough: number;
  /** Entries after the last such checkpoint: in the log but not yet witnessed. */
  unwitnessed?: { from: number; to: number };
  subjects: number;
  keys: { trusted: number; fromBundle: number };
  legacySignatures: number;
  failures: BundleFailure[];
  failureCounts: Partial<Record<ReasonCode, number>>;
  failuresTotal: number;
  erased: ErasedPayload[];
  skipped: SkippedCheck[];
  /** How a check works where that bounds what it proves. */
  notes: string[];
  /** What trust rested on (the policy's keys and quorum), with a fingerprint to compare out of band. */
  policy?: PolicyFingerprint;
  /** Memory held by the per-id and per-subject structures (bytes, approximate), for the bound. */
  memory: { idSetBytes: number; missingPayloads: number; subjects: number };
}

export const MAX_LISTED = 1000;
/** The human summary lists fewer; --json has the full capped lists. */
const HUMAN_LISTED = 10;

export interface FailureLog {
  add(f: BundleFailure): void;
  readonly total: number;
  list(): BundleFailure[];
  counts(): Partial<Record<ReasonCode, number>>;
  has(kind: ReasonCode): boolean;
}

/** Failures, listed up to `max` (then counted only); listed in (seq, line) order at the end. */
export function createFailureLog(max = MAX_LISTED): FailureLog {
  const listed: BundleFailure[] = [];
  const counts: Partial<Record<ReasonCode, number>> = {};
  let total = 0;
  return {
    add(f) {
      total++;
      counts[f.kind] = (counts[f.kind] ?? 0) + 1;
      if (listed.length < max) listed.push(f);
    },
    get total() {
      return total;
    },
    list: () => [...listed].sort((a, b) => (a.seq ?? -1) - (b.seq ?? -1) || (a.line ?? 0) - (b.line ?? 0)),
    counts: () => ({ ...counts }),
    has: (kind) => (counts[kind] ?? 0) > 0,
  };
}

/** The human summary: verdict first, then the facts, then each cause with its consequences under it. */
export function formatReport(r: BundleReport): string {
  const m = buildReportModel(r);
  const out: string[] = [];
  out.push(`${m.verdict}: ${m.subject}`);
  for (const f of m.facts) out.push(`  ${f.label.padEnd(14)} ${f.value}${f.rest}`);
  const shown = r.erased.slice(0, HUMAN_LISTED);
  for (const e of shown) out.push(`  erased         ${erasedLine(e)}`);
  if (r.payloads.erased > shown.length)
    out.push(`  erased         … ${r.payloads.erased - shown.length} more (--json lists ${r.erased.length})`);
  for (const s of r.skipped) out.push(`  skipped        ${skippedLine(s)}`);
  if (m.failureCounts) {
    out.push(`  failures       ${m.failureCounts}`);
    let budget = HUMAN_LISTED * 5;
    let listed = 0;
    for (const c of m.causes) {
      if (budget <= 0) break;
      out.push([`  ✗ ${c.failure.kind}${c.where ? ` (${c.where})` : ''}: ${c.title}`, ...c.more.map((x) => `      ${x}`)].join('\n'));
      budget--;
      listed++;
      if (c.consequences.length === 0) continue;
      out.push(`      ${c.consequences.length} following from it: ${c.consequenceCounts}`);
      const each = c.consequences.slice(0, Math.min(HUMAN_LISTED, budget));
      for (const x of each) out.push(`      ↳ ${x.failure.kind}${x.where ? ` (${x.where})` : ''}: ${x.title}`);
      budget -= each.length;
      listed += each.length;
      if (c.consequences.length > each.length) out.push(`      ↳ … ${c.consequences.length - each.length} more (--json lists them)`);
    }
    if (r.failuresTotal > listed)
      out.push(`  … ${r.failuresTotal - listed} more failures (counted above; --json lists ${r.failures.length})`);
  }
  return out.join('\n') + '\n';
}
