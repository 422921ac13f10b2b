// verifier/bundle/report.ts: what `cookwala verify` says about a bundle (docs/design.md §8): every failure
// named as {kind, seq, expected, found, detail} (plus the ForkProof of a fork, and the bracket of a
// rewrite), the erased payloads with the entries that erased them, the checks skipped, and the
// verdict with its exit code (0 valid, 1 invalid, 2 unusable input). The same facts render as JSON
// (--json) or as a human summary (formatReport). Lists are capped so a hostile or broken bundle
// cannot grow the report without bound; counts stay exact.
// Invariant: `valid` is true exactly when no failure was recorded and the input was usable.

import type { ReasonCode } from '../errors.ts';
import type { ForkProof } from '../documents/fork-proof.ts';
import { formatDuration, type TimeBounds } from '../documents/time-bounds.ts';

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

function show(v: unknown): string {
  if (v === undefined) return '';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > 200 ? s.slice(0, 197) + '...' : s;
}

/** The human summary: verdict first, then the facts, then each failure on its own line. */
export function formatReport(r: BundleReport): string {
  const out: string[] = [];
  const verdict = r.exitCode === 2 ? 'UNUSABLE' : r.valid ? 'VALID' : 'INVALID';
  const unwitnessedLog = r.skipped.some((s) => s.check === 'witnessing' && s.reason.startsWith('UNWITNESSED'));
  out.push(
    `${verdict}: ${r.log ?? '(unknown log)'}${r.mode ? ` (${r.mode})` : ''}${unwitnessedLog ? ' (UNWITNESSED: the policy has quorum 0, no witness checked anything)' : ''}`,
  );
  out.push(`  entries        ${r.entries}${r.seq !== undefined ? ` (header seq ${r.seq})` : ''}`);
  out.push(`  payloads       ${r.payloads.present} present, ${r.payloads.erased} erased, ${r.payloads.missing} missing`);
  const latest = r.checkpoints.latest;
  out.push(
    `  checkpoints    ${r.checkpoints.count} (${r.checkpoints.verified} met the policy)${latest ? `; latest seq ${latest.seq}, root ${latest.root}, witnesses ${latest.witnesses.join(', ') || 'none'}` : ''}`,
  );
  const lastCosigned = r.checkpoints.cosigned?.at(-1);
  if (lastCosigned)
    out.push(
      `  cosigned by    ${lastCosigned.cosigners.map((c) => `${c.kid} (${c.forms.join(' + ')})`).join(', ') || 'none'} at seq ${lastCosigned.seq}; C2SP log note ${lastCosigned.logNote}`,
    );
  out.push(
    `  witnessed      through seq ${r.witnessedThrough}${r.unwitnessed ? `; seq ${r.unwitnessed.from}..${r.unwitnessed.to} not yet witnessed` : ''}`,
  );
  if (r.timeBounds)
    out.push(
      `  time bounds    signedAt within ${formatDuration(r.timeBounds.maxDeliveryDelayMs)} before and ${formatDuration(r.timeBounds.maxClockSkewMs)} after sequencedAt; sequencedAt non-decreasing and no later than the cosignatures + ${formatDuration(r.timeBounds.maxClockSkewMs)}`,
    );
  out.push(
    `  subjects       ${r.subjects}; keys trusted ${r.keys.trusted} (${r.keys.fromBundle} from the bundle, signed by the sequencer)`,
  );
  if (r.legacySignatures > 0) out.push(`  WEAKER: ${r.legacySignatures} legacy (Core 0.2.0 bare-hash) signatures accepted by request`);
  const shown = r.erased.slice(0, HUMAN_LISTED);
  for (const e of shown) out.push(`  erased         seq ${e.seq} (eventHash ${e.eventHash}) by entry ${e.erasedBy}: ${e.reason}`);
  if (r.payloads.erased > shown.length)
    out.push(`  erased         … ${r.payloads.erased - shown.length} more (--json lists ${r.erased.length})`);
  for (const s of r.skipped) out.push(`  skipped        ${s.check}${s.seq !== undefined ? ` at seq ${s.seq}` : ''}: ${s.reason}`);
  if (r.failuresTotal > 0) {
    const counts = Object.entries(r.failureCounts)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    out.push(`  failures       ${r.failuresTotal}: ${counts}`);
    for (const f of r.failures.slice(0, HUMAN_LISTED * 5)) {
      const where = [f.seq !== undefined ? `seq ${f.seq}` : '', f.line !== undefined ? `line ${f.line}` : ''].filter(Boolean).join(', ');
      let s = `  ✗ ${f.kind}${where ? ` (${where})` : ''}: ${f.detail}`;
      if (f.expected !== undefined) s += `\n      expected ${show(f.expected)}`;
      if (f.found !== undefined) s += `\n      found    ${show(f.found)}`;
      if (f.upTo !== undefined)
        s += `\n      first difference in seq ${f.seq}..${f.upTo}${f.firstBadEntry !== undefined ? `; first entry whose hash fails: seq ${f.firstBadEntry}` : ''}`;
      if (f.forkProof)
        s += `\n      fork proof: checkpoints at seq ${f.forkProof.a.seq} with roots ${f.forkProof.a.root} and ${f.forkProof.b.root}`;
      out.push(s);
    }
    const listed = Math.min(r.failures.length, HUMAN_LISTED * 5);
    if (r.failuresTotal > listed)
      out.push(`  … ${r.failuresTotal - listed} more failures (counted above; --json lists ${r.failures.length})`);
  }
  return out.join('\n') + '\n';
}
