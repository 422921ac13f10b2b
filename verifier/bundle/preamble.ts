// verifier/bundle/preamble.ts: the lines of an audit bundle before its first entry (docs/design.md §8, the
// line order of format.ts): the header (its type and major version, checkBundleType; a wrong one
// stops reading), the Log descriptor (read strictly, verified against the POLICY's sequencer key:
// descriptor_mismatch, log_mismatch, bad_signature; its log and mode against the header's:
// header_mismatch; its timeBounds against the policy's: time_bounds_missing unless the policy says
// the log predates them (then reported as skipping those checks), time_bounds_too_wide), and
// the KeyRecords (the sequencer's own first, the others in strictly ascending kid order, each
// admitted only when trust.ts finds the policy's sequencer key signed it). A missing descriptor or a
// missing sequencer KeyRecord is misplaced_line once the preamble is left. Left out: which line
// kind may come where once the entries begin, and reading lines as JSON (verifier.ts); the checks
// of the header against the rest of the bundle (verdict.ts). Invariant: nothing here is trusted
// because the bundle says so; trust comes only from the policy and the auditor's key cache.

import { checkBundleType, readBundleHeader, type BundleHeader } from './format.ts';
import type { FailureLog, SkippedCheck } from './report.ts';
import type { Trust } from './trust.ts';
import { readDocument } from '../documents/read.ts';
import { verifyLogDescriptor, type LogDescriptor } from '../documents/log-descriptor.ts';
import { computeHash, type JsonObject } from '../signing/document-hash.ts';
import { timeMs } from '../encoding/wire.ts';
import { formatDuration } from '../documents/time-bounds.ts';
import type { WitnessPolicy } from '../documents/policy.ts';
import type { CryptoBackend } from '../crypto/default.ts';

/** Where the reader stands in the line order of format.ts. */
export type Phase = 'header' | 'descriptor' | 'keys' | 'entries' | 'checkpoints' | 'stopped';

export interface Preamble {
  readonly header: BundleHeader | undefined;
  readonly descriptor: LogDescriptor | undefined;
  /** The descriptor's hash, recomputed (never the bundle's word for it). */
  readonly descriptorHash: string | undefined;
  /** The descriptor's createdAt in ms; -Infinity without a descriptor. */
  readonly createdAtMs: number;
  /** Documents of the preamble accepted only under a legacy signature rule. */
  readonly legacyDocs: number;
  readonly skipped: readonly SkippedCheck[];
  /** The first line; false when it stops reading (not a bundle, or a major version we do not read). */
  onHeader(json: unknown, line: number): boolean;
  onDescriptor(json: unknown, line: number): void;
  onKeyRecord(json: unknown, line: number): void;
  /** The preamble ends at `line` while the reader is in `phase`: name what it lacked. */
  leaveKeys(line: number, phase: Phase): void;
}

export function createPreamble(o: {
  failures: FailureLog;
  policy: WitnessPolicy;
  trust: Trust;
  allowLegacy?: boolean;
  backend?: CryptoBackend;
}): Preamble {
  const { failures, policy, trust } = o;
  const skipped: SkippedCheck[] = [];
  let header: BundleHeader | undefined;
  let descriptor: LogDescriptor | undefined;
  let descriptorHash: string | undefined;
  let createdAtMs = -Infinity;
  let keyLines = 0;
  let lastKid: string | undefined;
  let sawSequencerKey = false;
  let legacyDocs = 0;

  function checkPolicyTime(d: LogDescriptor, line: number): void {
    const want = policy.timeBounds ?? {};
    const b = d.timeBounds;
    if (b === undefined) {
      if (want.required === false)
        skipped.push({
          check: 'time bounds',
          reason:
            'the descriptor declares no timeBounds (the policy says the log predates them): signedAt against sequencedAt and sequencedAt against cosignature times were not checked',
        });
      else
        failures.add({
          kind: 'time_bounds_missing',
          seq: 0,
          line,
          expected: 'timeBounds {maxClockSkewMs, maxDeliveryDelayMs}',
          found: 'none',
          detail:
            'descriptor: no timeBounds, so anyone holding the keys could sign at any time; the policy requires them (set "timeBounds": {"required": false} in the policy only for a log created before them)',
        });
      return;
    }
    for (const [k, cap] of [
      ['maxClockSkewMs', want.maxClockSkewMs],
      ['maxDeliveryDelayMs', want.maxDeliveryDelayMs],
    ] as const) {
      if (cap !== undefined && b[k] > cap)
        failures.add({
          kind: 'time_bounds_too_wide',
          seq: 0,
          line,
          expected: `${k} at most ${cap} (${formatDuration(cap)})`,
          found: `${b[k]} (${formatDuration(b[k])})`,
          detail: `descriptor: ${k} ${formatDuration(b[k])} is above the policy's cap ${formatDuration(cap)}`,
        });
    }
  }

  return {
    get header() {
      return header;
    },
    get descriptor() {
      return descriptor;
    },
    get descriptorHash() {
      return descriptorHash;
    },
    get createdAtMs() {
      return createdAtMs;
    },
    get legacyDocs() {
      return legacyDocs;
    },
    skipped,

    leaveKeys(line, phase) {
      if (phase === 'descriptor')
        failures.add({
          kind: 'misplaced_line',
          line,
          expected: 'the Log descriptor as the second line',
          found: 'none',
          detail: 'the bundle has no Log descriptor after its header',
        });
      if ((phase === 'descriptor' || phase === 'keys') && !sawSequencerKey) {
        failures.add({
          kind: 'misplaced_line',
          line,
          expected: `the sequencer's KeyRecord ${policy.sequencer.kid}`,
          found: 'none',
          detail: "the bundle lacks the sequencer's own KeyRecord",
        });
      }
    },

    onHeader(json, line) {
      const t = checkBundleType(json);
      if (!t.ok) {
        failures.add({ kind: t.code, line, detail: t.detail });
        return false;
      }
      const h = readBundleHeader(json);
      if (!h.ok) failures.add({ kind: h.code, line, detail: `header: ${h.detail}` });
      else header = h.value;
      if (header && header.log !== policy.log)
        failures.add({
          kind: 'log_mismatch',
          line,
          expected: policy.log,
          found: header.log,
          detail: 'the bundle is of another log than the policy',
        });
      return true;
    },

    /**
     * The auditor's policy pins time (docs/design.md §4): bounds are required unless the policy says
     * the log predates them, and may not exceed its caps. A descriptor without them that the
     * policy accepts is reported as skipping those time checks.
     */
    onDescriptor(json, line) {
      const r = readDocument('Log', json, { allowLegacy: o.allowLegacy });
      if (!r.ok) {
        failures.add({ kind: r.code, seq: 0, line, detail: `descriptor: ${r.detail}` });
        return;
      }
      const d = r.value;
      descriptor = d;
      const h = computeHash(d as unknown as JsonObject, o.backend);
      if (h.ok) descriptorHash = h.value;
      createdAtMs = timeMs(d.createdAt);
      checkPolicyTime(d, line);
      const v = verifyLogDescriptor(d, policy.sequencer, { log: policy.log, allowLegacy: o.allowLegacy, backend: o.backend });
      if (!v.ok)
        failures.add({
          kind: v.code,
          seq: 0,
          line,
          expected: v.code === 'log_mismatch' ? policy.log : v.code === 'descriptor_mismatch' ? policy.sequencer.kid : undefined,
          detail: `descriptor: ${v.detail}`,
        });
      else if (v.value.legacy) legacyDocs++;
      if (header && header.log !== d.log)
        failures.add({
          kind: 'header_mismatch',
          seq: 0,
          line,
          expected: d.log,
          found: header.log,
          detail: 'header log is not the descriptor log',
        });
      if (header && header.mode !== d.mode)
        failures.add({
          kind: 'header_mismatch',
          seq: 0,
          line,
          expected: d.mode,
          found: header.mode,
          detail: 'header mode is not the descriptor mode',
        });
    },

    onKeyRecord(json, line) {
      keyLines++;
      const r = readDocument('KeyRecord', json);
      if (!r.ok) {
        const kid = (json as { kid?: unknown }).kid;
        failures.add({
          kind: r.code,
          line,
          found: typeof kid === 'string' ? kid.slice(0, 200) : undefined,
          detail: `KeyRecord: ${r.detail}`,
        });
        return;
      }
      const rec = r.value;
      const seqKid = descriptor?.sequencer ?? policy.sequencer.kid;
      if (rec.kid === seqKid) {
        if (keyLines !== 1)
          failures.add({
            kind: 'misplaced_line',
            line,
            found: rec.kid,
            detail: "the sequencer's KeyRecord comes first among the KeyRecords",
          });
        sawSequencerKey = true;
      } else {
        if (keyLines === 1)
          failures.add({
            kind: 'misplaced_line',
            line,
            expected: seqKid,
            found: rec.kid,
            detail: "the first KeyRecord is the sequencer's own",
          });
        if (lastKid !== undefined && !(rec.kid > lastKid))
          failures.add({
            kind: 'misplaced_line',
            line,
            expected: `a kid after ${lastKid}`,
            found: rec.kid,
            detail: "KeyRecords after the sequencer's come in strictly ascending kid order, each once",
          });
        lastKid = rec.kid;
      }
      const a = trust.admit(rec);
      if (!a.ok) failures.add({ kind: a.code, line, found: rec.kid, detail: `KeyRecord ${rec.kid}: ${a.detail}` });
      else if (a.value.legacy) legacyDocs++;
    },
  };
}
