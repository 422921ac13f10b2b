// verifier/bundle/checkpoints.ts: the checkpoint lines of an audit bundle (docs/design.md §4, §8): each is
// read strictly, its sequencer signature checked with the POLICY's key and its cosignatures against
// the policy's witnesses and quorum (verifier/documents/checkpoint.ts verifyCheckpoint: bad_signature, hash_mismatch,
// quorum_not_met), and its head and root compared with what the entries recompute to at its seq.
// A checkpoint that meets the policy and disagrees is rewrite_detected: the first differing seq lies
// after the last checkpoint that met the policy and matched, so the failure names that bracket
// [seq, upTo] and the first entry whose own hash fails; one that does not meet the policy and
// disagrees is root_mismatch. Two sequencer-signed checkpoints at one seq with different head or
// root are fork_detected, with the ForkProof. Checkpoints come after all entries, so roots at
// earlier seqs must be recorded while the entries stream by: the caller names those seqs ahead
// (the CLI reads them from the file's tail), at a cost of one head and one root per seq. In the
// same pass each recorded seq also keeps the latest sequencedAt of the entries up to it (a
// running maximum, and the first seq holding it): a witness that cosigned a checkpoint saw every
// entry at or below its seq, so with the descriptor's timeBounds, that sequencedAt may be at most
// the quorum-th earliest counted cosignature's signedAt plus maxClockSkew (the sequencer's and the
// witness's clocks may differ by that much), else sequenced_after_cosignature names the entry. The
// quorum-th, not the first: the policy trusts any `quorum` witnesses together, not one alone, so a
// single witness with a slow clock cannot fail a log, and `quorum` of them attest the time.
// Checked only where the checkpoint met the policy and matched the entries (a rewrite is
// reported as such). Cost, linear in the lines: a line that repeats one already read at its seq
// (by digest, up to 1,024 distinct lines a seq) is named misplaced_line without checking its
// signatures again, so 80,000 copies of the last line cost 80,000 hashes. Left out:
// entries (entries.ts).

import type { FailureLog, CheckpointSummary, CheckpointCosigners } from './report.ts';

/** How many checkpoints' cosigner lists a report keeps (then `cosignedTruncated`). */
export const MAX_COSIGNED_LISTED = 10_000;
import { readDocument } from '../documents/read.ts';
import { verifyCheckpoint, verifyCheckpointSequencerSignature, type Checkpoint } from '../documents/checkpoint.ts';
import { buildForkProof } from '../documents/fork-proof.ts';
import type { WitnessPolicy } from '../documents/policy.ts';
import { EMPTY_ROOT } from '../merkle/index.ts';
import { formatHash, timeMs } from '../encoding/wire.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import { formatDuration, type TimeBounds } from '../documents/time-bounds.ts';
import type { LatestStamp } from './entries.ts';

export interface EntriesView {
  lastSeq: number;
  head: string | undefined;
  root(): string;
  treeSize: number;
  firstBadEntry: number | undefined;
  /** The latest sequencedAt so far (at lastSeq). */
  latestStamp: LatestStamp | undefined;
}

export interface CheckpointCheckerOptions {
  failures: FailureLog;
  policy: WitnessPolicy;
  /** The descriptor's recomputed hash: the head at seq 0. */
  descriptorHash?: string;
  /** Seqs of the checkpoints to come, read ahead; undefined when the caller could not. */
  seqsAhead?: Iterable<number>;
  /** The descriptor's declared time window; undefined: the cosignature-time bound is skipped. */
  timeBounds?: TimeBounds;
  allowLegacy?: boolean;
  backend?: CryptoBackend;
}

/** Distinct lines (and distinct signed heads) remembered per seq: bounds memory on hostile input. */
const MAX_COPIES_KEPT = 1024;

export function createCheckpointChecker(o: CheckpointCheckerOptions) {
  const f = o.failures;
  const ahead = o.seqsAhead === undefined ? undefined : new Set(o.seqsAhead);
  const recorded = new Map<number, { head: string; root: string; latest: LatestStamp | undefined }>();
  const vopts = { allowLegacy: o.allowLegacy, backend: o.backend };
  let count = 0;
  let verified = 0;
  let witnessedThrough = 0;
  let lastMatching = 0;
  let latest: CheckpointSummary | undefined;
  let prevSeq: number | undefined;
  // Sequencer-signed checkpoints at prevSeq: the (head, root) pairs seen, and the first two distinct
  // ones (enough to name a fork whichever line comes next). A set, not a list searched per line:
  // thousands of copies of one line cost linear time, not quadratic.
  let sameSeqKeys = new Set<string>();
  let sameSeqFirst: Checkpoint[] = [];
  // Digests of the lines already read at prevSeq (at most MAX_COPIES_KEPT): a line read again is
  // named once more and not verified again, so copies cost a hash each, not signature checks.
  let sameSeqLines = new Set<string>();
  const backend = o.backend ?? defaultBackend();
  let maxStampMs = -Infinity;
  let legacy = 0;
  const skipped: Array<{ check: string; reason: string; seq?: number }> = [];
  const cosigned: CheckpointCosigners[] = [];
  let cosignedTruncated = false;

  /** What the entries give at `seq`: head and root, `null` when no entry had that seq, undefined when unknown. */
  function recomputedAt(
    seq: number,
    entries: EntriesView,
    line: number,
  ): { head: string; root: string; latest: LatestStamp | undefined } | null | undefined {
    if (seq === 0) return o.descriptorHash ? { head: o.descriptorHash, root: formatHash(EMPTY_ROOT), latest: undefined } : undefined;
    const r = recorded.get(seq);
    if (r) return r;
    if (seq === entries.lastSeq && entries.head !== undefined && entries.treeSize === seq)
      return { head: entries.head, root: entries.root(), latest: entries.latestStamp };
    if (seq > entries.lastSeq) {
      f.add({
        kind: 'truncated',
        seq,
        line,
        expected: `entries through seq ${seq}`,
        found: `entries through seq ${entries.lastSeq}`,
        detail: `checkpoint ${seq} covers entries the bundle does not hold`,
      });
      return undefined;
    }
    if (ahead?.has(seq)) return null; // read ahead, yet no entry line carried this seq
    if (ahead)
      f.add({
        kind: 'root_mismatch',
        seq,
        line,
        detail: `checkpoint ${seq} was not among the checkpoint seqs read ahead (did the file change while it was read?)`,
      });
    else skipped.push({ check: 'head and root', seq, reason: 'no root was recorded at this seq (checkpoint seqs were not read ahead)' });
    return undefined;
  }

  let reportedLate: number | undefined;
  /** Entries up to cp.seq existed when the witnesses cosigned: the latest sequencedAt is bounded by the quorum-th earliest cosignature. */
  function checkCosignatureTimes(
    cp: Checkpoint,
    latest: LatestStamp | undefined,
    witnesses: string[],
    cosignedAt: string[],
    line: number,
  ): void {
    if (!o.timeBounds || latest === undefined || cosignedAt.length === 0) return; // quorum 0: no witness statement to bound by
    const order = cosignedAt.map((_, i) => i).sort((a, b) => timeMs(cosignedAt[a]) - timeMs(cosignedAt[b]));
    const first = order[Math.min(Math.max(o.policy.quorum, 1), order.length) - 1];
    const bound = timeMs(cosignedAt[first]) + o.timeBounds.maxClockSkewMs;
    if (latest.ms > bound && latest.seq !== reportedLate) {
      reportedLate = latest.seq; // one failure per entry, however many later checkpoints it outruns
      const at = new Date(latest.ms).toISOString();
      f.add({
        kind: 'sequenced_after_cosignature',
        seq: latest.seq,
        line,
        expected: {
          checkpoint: cp.seq,
          witness: witnesses[first],
          cosignedAt: cosignedAt[first],
          sequencedAtAtMost: new Date(bound).toISOString(),
        },
        found: { seq: latest.seq, sequencedAt: at },
        detail: `entry ${latest.seq} has sequencedAt ${at}, but witness ${witnesses[first]} cosigned checkpoint ${cp.seq} (which covers it) at ${cosignedAt[first]}; more than maxClockSkew ${formatDuration(o.timeBounds.maxClockSkewMs)} earlier`,
      });
    }
  }

  return {
    wantsRoot(seq: number): boolean {
      return ahead !== undefined && ahead.has(seq) && !recorded.has(seq);
    },
    recordRoot(seq: number, head: string, root: string, latest: LatestStamp | undefined): void {
      if (!recorded.has(seq)) recorded.set(seq, { head, root, latest: latest && { ...latest } });
    },

    checkpoint(json: unknown, line: number, entries: EntriesView): void {
      count++;
      const s0 = (json as { seq?: unknown } | null)?.seq;
      if (Number.isSafeInteger(s0) && s0 !== prevSeq) sameSeqLines = new Set();
      if (Number.isSafeInteger(s0) && s0 === prevSeq) {
        const digest = backend.sha256Hex(JSON.stringify(json));
        if (sameSeqLines.has(digest)) {
          f.add({ kind: 'misplaced_line', seq: s0 as number, line, detail: `checkpoint ${s0 as number} appears twice` });
          return;
        }
        if (sameSeqLines.size < MAX_COPIES_KEPT) sameSeqLines.add(digest);
      } else if (Number.isSafeInteger(s0)) sameSeqLines.add(backend.sha256Hex(JSON.stringify(json)));
      const r = readDocument('Checkpoint', json, { allowLegacy: o.allowLegacy });
      if (!r.ok) {
        const s = (json as { seq?: unknown })?.seq;
        f.add({ kind: r.code, seq: Number.isSafeInteger(s) ? (s as number) : undefined, line, detail: `checkpoint: ${r.detail}` });
        return;
      }
      const cp = r.value;
      const at = { seq: cp.seq, line };
      const stamp = timeMs(cp.signature[0].signedAt);
      if (stamp > maxStampMs) maxStampMs = stamp;

      // Signatures: the sequencer's first (it decides forks), then the policy (it decides witnessing).
      const seqSig = verifyCheckpointSequencerSignature(cp, o.policy.sequencer, vopts);
      let meets = false;
      let witnesses: string[] = [];
      let cosignedAt: string[] = [];
      if (!seqSig.ok) f.add({ kind: seqSig.code, ...at, detail: `checkpoint ${cp.seq}: ${seqSig.detail}` });
      else {
        if (seqSig.value.legacy) legacy++;
        const v = verifyCheckpoint(cp, o.policy, vopts);
        if (!v.ok) {
          const { ok: _o, code, detail, ...extra } = v;
          f.add({
            kind: code,
            ...at,
            expected: extra.quorum,
            found: extra.witnesses,
            detail,
            ...('rejected' in extra ? { rejected: extra.rejected } : {}),
          });
        } else {
          meets = true;
          if (cosigned.length < MAX_COSIGNED_LISTED) cosigned.push({ seq: cp.seq, cosigners: v.value.cosigners, logNote: v.value.logNote });
          else cosignedTruncated = true;
          witnesses = v.value.witnesses;
          cosignedAt = v.value.cosignedAt;
          for (const x of v.value.rejected) {
            if (x.code === 'unknown_key')
              skipped.push({ check: 'cosignature', seq: cp.seq, reason: `${x.kid} is not a witness of the policy` });
            else
              f.add({
                kind: x.code as never,
                ...at,
                found: x.kid,
                detail: `checkpoint ${cp.seq}: cosignature by ${x.kid} does not count: ${x.detail}`,
              });
          }
        }
      }

      // Order and forks: ascending seq; a second line at one seq only if it differs (then a fork).
      if (prevSeq !== undefined && cp.seq < prevSeq) {
        f.add({
          kind: 'misplaced_line',
          ...at,
          expected: `seq >= ${prevSeq}`,
          found: cp.seq,
          detail: 'checkpoints come in ascending seq order',
        });
      } else {
        const key = `${cp.head} ${cp.root}`;
        if (cp.seq === prevSeq) {
          const twin = sameSeqKeys.has(key);
          const other = sameSeqFirst.find((x) => x.head !== cp.head || x.root !== cp.root);
          if (twin) f.add({ kind: 'misplaced_line', ...at, detail: `checkpoint ${cp.seq} appears twice` });
          else if (seqSig.ok && other) {
            f.add({
              kind: 'fork_detected',
              ...at,
              expected: { head: other.head, root: other.root },
              found: { head: cp.head, root: cp.root },
              forkProof: buildForkProof(other, cp),
              detail: `two checkpoints signed by the sequencer at seq ${cp.seq} with different head or root`,
            });
          }
        } else {
          sameSeqKeys = new Set();
          sameSeqFirst = [];
          prevSeq = cp.seq;
        }
        if (seqSig.ok && !sameSeqKeys.has(key) && sameSeqKeys.size < MAX_COPIES_KEPT) {
          sameSeqKeys.add(key);
          if (sameSeqFirst.length < 2) sameSeqFirst.push(cp);
        }
      }

      // Head and root against the entries.
      const got = recomputedAt(cp.seq, entries, line);
      if (got !== undefined) {
        const mine = got ?? { head: `no entry at seq ${cp.seq}`, root: 'none' };
        const agrees = mine.head === cp.head && mine.root === cp.root;
        if (agrees && meets) {
          witnessedThrough = Math.max(witnessedThrough, cp.seq);
          lastMatching = Math.max(lastMatching, cp.seq);
          if (got) checkCosignatureTimes(cp, got.latest, witnesses, cosignedAt, line);
        } else if (!agrees) {
          const bad = entries.firstBadEntry !== undefined && entries.firstBadEntry <= cp.seq ? entries.firstBadEntry : undefined;
          if (meets) {
            f.add({
              kind: 'rewrite_detected',
              seq: lastMatching + 1,
              line,
              upTo: cp.seq,
              firstBadEntry: bad,
              expected: { seq: cp.seq, head: cp.head, root: cp.root },
              found: { seq: cp.seq, ...mine },
              detail: `the entries disagree with the witnessed checkpoint at seq ${cp.seq}; the first differing seq is in ${lastMatching + 1}..${cp.seq}`,
            });
          } else {
            f.add({
              kind: 'root_mismatch',
              ...at,
              expected: { head: cp.head, root: cp.root },
              found: mine,
              detail: `checkpoint ${cp.seq} is not the head and root of the entries`,
            });
          }
        }
      }
      if (meets) {
        verified++;
        if (!latest || cp.seq >= latest.seq) latest = { seq: cp.seq, head: cp.head, root: cp.root, witnesses };
      }
    },

    summary() {
      return { count, verified, latest, witnessedThrough, maxStampMs, skipped, legacy, cosigned, cosignedTruncated };
    },
  };
}

export type CheckpointChecker = ReturnType<typeof createCheckpointChecker>;
