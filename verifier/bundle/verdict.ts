// verifier/bundle/verdict.ts: what the bundle verifier of docs/design.md §8 concludes once the input ends:
// the header's promises against the lines read (entries through its seq and its checkpoint count:
// truncated when fewer, header_mismatch when more; exportedAt no earlier than any time the
// sequencer stamped), the witnessing (entries with no checkpoint that meets the policy fail with
// quorum_not_met; entries after the last such one, matching or not, are reported as unwitnessed, or fail with
// requireWitnessed), and the BundleReport assembled from the parts' tallies (report.ts).
// Left out: reading and ordering the lines (verifier.ts, preamble.ts), the per-line checks
// (entries.ts, checkpoints.ts). Invariant: `valid` holds exactly when the input was usable and no
// failure was recorded, and an unwitnessed log (quorum 0) is said to be so in every report.

import type { BundleReport, FailureLog } from './report.ts';
import type { Preamble } from './preamble.ts';
import type { Trust } from './trust.ts';
import type { EntryChecker } from './entries.ts';
import type { CheckpointChecker } from './checkpoints.ts';
import { timeMs } from '../encoding/wire.ts';
import type { WitnessPolicy } from '../documents/policy.ts';
import { policyFingerprint } from '../documents/policy-fingerprint.ts';
import type { CryptoBackend } from '../crypto/backend.ts';

/** The checkpoint checker's tallies at the end. */
export type CheckpointTotals = ReturnType<CheckpointChecker['summary']>;

/** The skipped-check reason of a policy with quorum 0 (formatReport looks for it). */
export const UNWITNESSED_REASON =
  'UNWITNESSED: the policy asks for no witness (quorum 0), so the sequencer alone signed every checkpoint and a fork or a rewrite would not be caught; ask the operator for a policy with witnesses';

export function checkHeaderAgainstLines(failures: FailureLog, pre: Preamble, e: EntryChecker, cps: CheckpointTotals): void {
  const header = pre.header;
  if (!header) return;
  const last = e.lastSeq;
  if (last < header.seq)
    failures.add({
      kind: 'truncated',
      seq: last + 1,
      expected: header.seq,
      found: last,
      detail: `the header promises entries through seq ${header.seq}; the bundle ends after seq ${last}`,
    });
  else if (last > header.seq)
    failures.add({
      kind: 'header_mismatch',
      seq: header.seq + 1,
      expected: header.seq,
      found: last,
      detail: `the header says the last entry is seq ${header.seq}; the bundle holds seq ${last}`,
    });
  if (cps.count < header.checkpoints)
    failures.add({
      kind: 'truncated',
      expected: header.checkpoints,
      found: cps.count,
      detail: `the header promises ${header.checkpoints} checkpoints; the bundle holds ${cps.count}`,
    });
  else if (cps.count > header.checkpoints)
    failures.add({
      kind: 'header_mismatch',
      expected: header.checkpoints,
      found: cps.count,
      detail: `the header says ${header.checkpoints} checkpoints; the bundle holds ${cps.count}`,
    });
  const newest = Math.max(pre.createdAtMs, e.maxStampMs, cps.maxStampMs);
  if (Number.isFinite(newest) && timeMs(header.exportedAt) < newest) {
    failures.add({
      kind: 'header_mismatch',
      expected: `no earlier than ${new Date(newest).toISOString()}`,
      found: header.exportedAt,
      detail: 'exportedAt is earlier than a time the sequencer stamped in the bundle',
    });
  }
}

/** Only checkpoints that meet the policy bind the chain: entries none covers prove nothing. */
export function checkWitnessed(
  failures: FailureLog,
  policy: WitnessPolicy,
  requireWitnessed: boolean | undefined,
  lastSeq: number,
  witnessed: number,
): void {
  // When the bundle is already invalid, its named failures explain the missing witness better.
  if (lastSeq === 0 || failures.total > 0) return;
  if (witnessed === 0) {
    failures.add({
      kind: 'quorum_not_met',
      seq: 1,
      expected: `a checkpoint meeting the policy (quorum ${policy.quorum})`,
      found: 'none',
      detail: `no checkpoint that meets the policy covers any of the ${lastSeq} entries`,
    });
  } else if (requireWitnessed && lastSeq > witnessed) {
    failures.add({
      kind: 'quorum_not_met',
      seq: witnessed + 1,
      expected: `witnessed through seq ${lastSeq}`,
      found: `witnessed through seq ${witnessed}`,
      detail: `entries ${witnessed + 1}..${lastSeq} are not covered by a checkpoint that meets the policy (--require-witnessed)`,
    });
  }
}

/** The report of a run; `e` and `cps` are undefined when the input was unusable. */
export function buildReport(
  c: { failures: FailureLog; policy: WitnessPolicy; trust: Trust; pre: Preamble; usable: boolean; lines: number; backend?: CryptoBackend },
  e: EntryChecker | undefined,
  cps: CheckpointTotals | undefined,
): BundleReport {
  const { failures, policy, trust, usable, lines } = c;
  const { header, descriptor } = c.pre;
  const st = e?.stats();
  const lastSeq = e?.lastSeq ?? 0;
  const witnessed = cps?.witnessedThrough ?? 0;
  const covered = Math.max(witnessed, cps?.latest?.seq ?? 0);
  const skip = [...c.pre.skipped, ...(cps?.skipped ?? [])];
  if (e && cps && cps.count === 0 && lastSeq > 0) skip.push({ check: 'witnessing', reason: 'the bundle holds no checkpoint' });
  // A log nobody witnesses is said to be so wherever it is shown (formatReport's verdict line too).
  if (policy.quorum === 0) skip.push({ check: 'witnessing', reason: UNWITNESSED_REASON });
  const valid = usable && failures.total === 0;
  return {
    valid,
    exitCode: !usable ? 2 : valid ? 0 : 1,
    log: header?.log ?? descriptor?.log,
    mode: header?.mode ?? descriptor?.mode,
    seq: header?.seq,
    exportedAt: header?.exportedAt,
    timeBounds: descriptor?.timeBounds,
    lines,
    entries: e?.count ?? 0,
    payloads: { present: st?.present ?? 0, erased: st?.erased ?? 0, missing: failures.counts().payload_missing ?? 0 },
    checkpoints: {
      count: cps?.count ?? 0,
      verified: cps?.verified ?? 0,
      latest: cps?.latest,
      cosigned: cps?.cosigned ?? [],
      ...(cps?.cosignedTruncated ? { cosignedTruncated: true } : {}),
    },
    witnessedThrough: witnessed,
    // Not yet witnessed: what no checkpoint meeting the policy covers. Entries such a checkpoint
    // covers but disagrees with are rewrite_detected failures, not unwitnessed ones.
    unwitnessed: lastSeq > covered ? { from: covered + 1, to: lastSeq } : undefined,
    subjects: st?.subjects ?? 0,
    keys: { trusted: trust.trusted, fromBundle: trust.fromBundle },
    legacySignatures: (st?.legacy ?? 0) + c.pre.legacyDocs + (cps?.legacy ?? 0),
    failures: failures.list(),
    failureCounts: failures.counts(),
    failuresTotal: failures.total,
    erased: st?.erasedList ?? [],
    skipped: skip,
    notes: [
      '(source, id) uniqueness is checked on 64-bit salted digests: every true duplicate is found; a false one has probability below n^2/2^65',
      ...(st?.idSpilledAfter
        ? [
            `(source, id) pairs after the first ${st.idSpilledAfter} were checked in ${st.idRuns} sorted runs on disk, and every duplicate reported was confirmed by comparing the strings: none is false`,
          ]
        : []),
    ],
    policy: policyFingerprint(policy, c.backend),
    memory: { idSetBytes: st?.idSetBytes ?? 0, missingPayloads: st?.missingPayloads ?? 0, subjects: st?.subjects ?? 0 },
  };
}
