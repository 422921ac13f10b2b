// verifier/bundle/verifier.ts: the streaming audit-bundle verifier of docs/design.md §8, a state machine fed
// one line at a time (no I/O: auditor/verify.ts reads the file). It reads every line as I-JSON
// (verifier/encoding/strict-json.ts: bad_json, duplicate_member, too_deep past one level more than
// a document; a refused line is not read further, and its failure names the seq it claims),
// enforces the line order of format.ts (header, descriptor, KeyRecords, entries each with its
// payload, checkpoints; misplaced_line, unknown_line_kind otherwise), and hands each line to its
// part: the header, descriptor and KeyRecords to preamble.ts, entries to entries.ts, checkpoints to
// checkpoints.ts, and at the end the closing checks and the report to verdict.ts. A wrong header
// type or major version stops reading (exit 2); every other fault is recorded and reading goes
// on, so one run names every failure. Memory is bounded as entries.ts states; signature checks are
// batched through an injected verifier (the CLI's worker pool) with bounded batches in flight.
// Left out: the checks themselves (in the parts named). Invariant: nothing in the bundle is
// trusted because the bundle says so; trust comes only from the policy and the key cache.

import { lineKind } from './format.ts';
import { createFailureLog, MAX_LISTED, type BundleReport } from './report.ts';
import { createTrust } from './trust.ts';
import { createSigQueue, type VerifyBatch } from './signature-batches.ts';
import { createEntryChecker, type EntryChecker } from './entries.ts';
import { createCheckpointChecker, type CheckpointChecker } from './checkpoints.ts';
import { createPreamble, type Phase } from './preamble.ts';
import { buildReport, checkHeaderAgainstLines, checkWitnessed, type CheckpointTotals } from './verdict.ts';
import { MAX_JSON_DEPTH, parseJson } from '../encoding/strict-json.ts';
import { isPlainJsonText } from '../encoding/jcs.ts';
import { fail, type Failure, type Result } from '../errors.ts';
import type { WitnessPolicy } from '../documents/policy.ts';
import type { KeyRecord } from '../signing/keys.ts';
import type { CryptoBackend } from '../crypto/default.ts';
import type { IdSpillOptions } from './id-set.ts';
import type { EarlierIds, EntryResume } from './entries.ts';

export interface BundleVerifierOptions {
  policy: WitnessPolicy;
  /** The auditor's key cache (trusted as given). */
  keys?: readonly KeyRecord[];
  allowLegacy?: boolean;
  /** Seqs of the bundle's checkpoints, read ahead from its tail, so roots can be recorded on the way. */
  checkpointSeqs?: Iterable<number>;
  /** Raw signature checks in batches (the CLI passes its worker pool); inline by default. */
  verifyBatch?: VerifyBatch;
  batchSize?: number;
  maxInFlight?: number;
  backend?: CryptoBackend;
  /** Salt of the (source, id) digest set; random by default. */
  idSalt?: Uint8Array;
  /** A spill sink for the (source, id) set (the CLI's temp directory): flat memory, exact duplicates. */
  idSpill?: IdSpillOptions;
  maxListed?: number;
  /**
   * Entries after the last checkpoint that meets the policy are reported as not yet witnessed;
   * with this they are a failure (quorum_not_met). A bundle with entries and no such checkpoint
   * at all always fails: nothing would bind its chain.
   */
  requireWitnessed?: boolean;
  /**
   * An incremental audit (`cookwala verify --resume`): go on from where an earlier audit of the
   * same log stopped; the bundle's first entry must be resume.seq + 1 (chain_broken otherwise).
   */
  resume?: EntryResume;
  /** With `resume`: the (source, id) pairs audited before it, so a repeat across the resume point is a duplicate_id. */
  earlierIds?: EarlierIds;
}

export interface BundleVerifier {
  /**
   * Feed one line without its newline: `unterminated` for a last line that had none, `notUtf8`
   * when its bytes were not UTF-8. Await the promise when one is returned (backpressure).
   */
  line(text: string, flags?: { unterminated?: boolean; notUtf8?: boolean; tooLong?: boolean }): Promise<void> | undefined;
  /** The input ended: settle every check and return the report. */
  end(): Promise<BundleReport>;
  /** True once reading cannot go on (bad header type or version). */
  readonly stopped: boolean;
  readonly progress: { lines: number; entries: number };
  /** After end(): where a later incremental audit goes on from (undefined when no entry was read). */
  resumePoint(): EntryResume | undefined;
}

/** A line is one document, or a payload line wrapping one event: one level more than a document. */
const LINE_LIMITS = { maxDepth: MAX_JSON_DEPTH + 1 };

/**
 * Where a refused line claims to be, for the report only (its seq, or the kid of a KeyRecord):
 * read again, leniently, only when the text is JSON with a repeated member name, and never used
 * for any check. With `seq` itself repeated this is the last spelling, as JSON.parse reads it.
 */
function claimedPlace(text: string, f: Failure): { seq?: number; found?: string } {
  if (f.code !== 'duplicate_member') return {};
  const v = JSON.parse(text) as { kind?: unknown; seq?: unknown; kid?: unknown } | null;
  if (v === null || typeof v !== 'object') return {};
  if (v.kind === 'Log') return { seq: 0 };
  if (v.kind === 'KeyRecord' && typeof v.kid === 'string') return { found: v.kid.slice(0, 200) };
  return Number.isSafeInteger(v.seq) ? { seq: v.seq as number } : {};
}

export { UNWITNESSED_REASON } from './verdict.ts';

export function createBundleVerifier(opts: BundleVerifierOptions): BundleVerifier {
  const policy = opts.policy;
  const failures = createFailureLog(opts.maxListed ?? MAX_LISTED);
  const trust = createTrust(policy, opts.keys ?? [], { allowLegacy: opts.allowLegacy, backend: opts.backend });
  const sigs = createSigQueue({ verifyBatch: opts.verifyBatch, batchSize: opts.batchSize, maxInFlight: opts.maxInFlight });
  const pre = createPreamble({ failures, policy, trust, allowLegacy: opts.allowLegacy, backend: opts.backend });
  let phase: Phase = 'header';
  let lines = 0;
  let usable = true;
  let entries: EntryChecker | undefined;
  let checkpoints: CheckpointChecker | undefined;

  const checkpointChecker = () =>
    (checkpoints ??= createCheckpointChecker({
      failures,
      policy,
      descriptorHash: pre.descriptorHash,
      seqsAhead: opts.checkpointSeqs,
      timeBounds: pre.descriptor?.timeBounds,
      allowLegacy: opts.allowLegacy,
      backend: opts.backend,
    }));

  function entryChecker(): EntryChecker {
    if (!entries) {
      const cps = checkpointChecker();
      const { header, descriptor } = pre;
      entries = createEntryChecker({
        failures,
        trust,
        sigs,
        mode: descriptor?.mode ?? header?.mode ?? 'full',
        log: descriptor?.log ?? policy.log,
        descriptorHash: descriptor?.hash,
        timeBounds: descriptor?.timeBounds,
        timePrecision: descriptor?.timePrecision,
        createdAtMs: pre.createdAtMs,
        wantsRoot: cps.wantsRoot,
        recordRoot: cps.recordRoot,
        allowLegacy: opts.allowLegacy,
        backend: opts.backend,
        idSalt: opts.idSalt,
        idSpill: opts.idSpill,
        resume: opts.resume,
        earlierIds: opts.earlierIds,
      });
    }
    return entries;
  }

  function feed(json: unknown, line: number, stringsPlain: boolean): Promise<void> | undefined {
    if (phase === 'header') {
      if (pre.onHeader(json, line)) phase = 'descriptor';
      else {
        usable = false;
        phase = 'stopped';
      }
      return undefined;
    }
    const kind = lineKind(json);
    if (kind === undefined) {
      const k = (json as { kind?: unknown; type?: unknown } | null)?.kind ?? (json as { type?: unknown } | null)?.type;
      failures.add({ kind: 'unknown_line_kind', line, found: k, detail: `a line of kind ${JSON.stringify(k) ?? 'none'}` });
      return undefined;
    }
    switch (kind) {
      case 'Log':
        if (phase !== 'descriptor')
          failures.add({ kind: 'misplaced_line', line, found: 'Log', detail: 'the Log descriptor is the second line, once' });
        else {
          phase = 'keys';
          pre.onDescriptor(json, line);
        }
        return undefined;
      case 'KeyRecord':
        if (phase !== 'descriptor' && phase !== 'keys') {
          failures.add({
            kind: 'misplaced_line',
            line,
            found: 'KeyRecord',
            detail: 'KeyRecords come between the descriptor and the first entry',
          });
          return undefined;
        }
        if (phase === 'descriptor') pre.leaveKeys(line, phase);
        phase = 'keys';
        pre.onKeyRecord(json, line);
        return undefined;
      case 'Event':
        if (phase === 'checkpoints') {
          failures.add({ kind: 'misplaced_line', line, found: 'Event', detail: 'an entry after the checkpoints' });
          return undefined;
        }
        if (phase !== 'entries') pre.leaveKeys(line, phase);
        phase = 'entries';
        return entryChecker().entry(json, line, stringsPlain);
      case 'Payload':
        if (phase !== 'entries') {
          failures.add({ kind: 'misplaced_line', line, found: 'Payload', detail: 'a payload line comes directly after its entry' });
          return undefined;
        }
        entryChecker().payload(json as Record<string, unknown>, line, stringsPlain);
        return undefined;
      case 'Checkpoint':
        if (phase !== 'checkpoints') {
          if (phase !== 'entries') pre.leaveKeys(line, phase);
          entryChecker().close();
          phase = 'checkpoints';
        }
        checkpointChecker().checkpoint(json, line, entryChecker());
        return undefined;
    }
  }

  return {
    get stopped() {
      return phase === 'stopped';
    },
    get progress() {
      return { lines, entries: entries?.count ?? 0 };
    },
    resumePoint() {
      return entries && entries.lastSeq > 0 ? entries.resumePoint() : opts.resume;
    },

    line(text, flags = {}) {
      if (phase === 'stopped') return undefined;
      lines++;
      const unterminated = flags.unterminated === true;
      const parsed: Result<unknown> = flags.notUtf8
        ? fail('bad_json', 'the line is not UTF-8')
        : flags.tooLong
          ? fail('body_too_large', 'the line is longer than 16 MiB, more than any valid line (skipped unread)')
          : parseJson(text, LINE_LIMITS);
      if (!parsed.ok) {
        if (phase === 'header') {
          const json = parsed.code === 'bad_json';
          failures.add({
            kind: json ? 'bad_bundle_type' : parsed.code,
            line: lines,
            detail: json ? 'the first line is not JSON' : `the header line: ${parsed.detail}`,
          });
          usable = false;
          phase = 'stopped';
        } else if (unterminated && parsed.code === 'bad_json')
          failures.add({ kind: 'truncated', line: lines, detail: 'the last line is cut off (no newline, not JSON)' });
        else failures.add({ kind: parsed.code, line: lines, ...claimedPlace(text, parsed), detail: parsed.detail });
        return undefined;
      }
      const json = parsed.value;
      if (unterminated) failures.add({ kind: 'truncated', line: lines, detail: 'the last line has no newline: the file may be cut' });
      try {
        return feed(json, lines, isPlainJsonText(text));
      } catch (err) {
        // A document no reader anticipated must be named, never crash the audit.
        failures.add({ kind: 'invalid_document', line: lines, detail: `the line could not be checked: ${(err as Error).message}` });
        return undefined;
      }
    },

    async end() {
      if (phase === 'header' && usable) {
        failures.add({ kind: 'bad_bundle_type', detail: 'the bundle is empty' });
        usable = false;
      }
      if (!usable) return report(undefined, undefined);
      if (phase === 'descriptor' || phase === 'keys') pre.leaveKeys(lines, phase);
      const e = entryChecker();
      e.finish();
      await sigs.drain();
      await e.finishIds();
      const cps = checkpointChecker().summary();
      checkHeaderAgainstLines(failures, pre, e, cps);
      checkWitnessed(failures, policy, opts.requireWitnessed, e.lastSeq, cps.witnessedThrough);
      return report(e, cps);
    },
  };

  function report(e: EntryChecker | undefined, cps: CheckpointTotals | undefined): BundleReport {
    return buildReport({ failures, policy, trust, pre, usable, lines, backend: opts.backend }, e, cps);
  }
}
