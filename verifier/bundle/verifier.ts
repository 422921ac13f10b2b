// verifier/bundle/verifier.ts: the streaming audit-bundle verifier of DESIGN §8, a state machine fed
// one line at a time (no I/O: verifier/cli/verify.ts reads the file). It enforces the line order of
// format.ts (header, descriptor, KeyRecords, entries each with its payload, checkpoints;
// misplaced_line, unknown_line_kind otherwise), reads every line as I-JSON (verifier/encoding/strict-json.ts:
// bad_json, duplicate_member, too_deep past one level more than a document; a refused line is not
// read further, and its failure names the seq it claims), checks the header against the lines
// (header_mismatch, truncated), the descriptor against the policy (descriptor_mismatch,
// log_mismatch, bad_signature), admits bundle KeyRecords only when the policy's sequencer key
// signed them (trust.ts), and hands entries and checkpoints to entries.ts and
// checkpoints.ts, with the time window the descriptor declares (timeBounds; a descriptor
// without it is reported as skipping those time checks). Trust comes only from the policy and the
// key cache. A wrong header type or major version stops reading (exit 2); every other fault is
// recorded and reading goes on, so one run names every failure. Memory is bounded as entries.ts states; signature checks are
// batched through an injected verifier (the CLI's worker pool) with bounded batches in flight.
// Invariant: nothing in the bundle is trusted because the bundle says so.

import { checkBundleType, readBundleHeader, lineKind, type BundleHeader } from './format.ts';
import { createFailureLog, MAX_LISTED, type BundleReport, type SkippedCheck } from './report.ts';
import { createTrust } from './trust.ts';
import { createSigQueue, type VerifyBatch } from './signature-batches.ts';
import { createEntryChecker, type EntryChecker } from './entries.ts';
import { createCheckpointChecker } from './checkpoints.ts';
import { readDocument } from '../documents/read.ts';
import { MAX_JSON_DEPTH, parseJson } from '../encoding/strict-json.ts';
import { fail, type Failure, type Result } from '../errors.ts';
import { verifyLogDescriptor, type LogDescriptor } from '../documents/log-descriptor.ts';
import { computeHash, type JsonObject } from '../documents/document-hash.ts';
import { timeMs } from '../encoding/wire.ts';
import type { WitnessPolicy } from '../documents/policy.ts';
import type { KeyRecord } from '../documents/keys.ts';
import type { CryptoBackend } from '../crypto/default.ts';
import type { IdSpillOptions } from './id-set.ts';

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
}

type Phase = 'header' | 'descriptor' | 'keys' | 'entries' | 'checkpoints' | 'stopped';

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

/** The skipped-check reason of a policy with quorum 0 (formatReport looks for it). */
export const UNWITNESSED_REASON =
  'UNWITNESSED: the policy asks for no witness (quorum 0), so the sequencer alone signed every checkpoint and a fork or a rewrite would not be caught; ask the operator for a policy with witnesses';

export function createBundleVerifier(opts: BundleVerifierOptions): BundleVerifier {
  const policy = opts.policy;
  const failures = createFailureLog(opts.maxListed ?? MAX_LISTED);
  const trust = createTrust(policy, opts.keys ?? [], { allowLegacy: opts.allowLegacy, backend: opts.backend });
  const sigs = createSigQueue({ verifyBatch: opts.verifyBatch, batchSize: opts.batchSize, maxInFlight: opts.maxInFlight });
  const skipped: SkippedCheck[] = [];
  let phase: Phase = 'header';
  let lines = 0;
  let usable = true;
  let header: BundleHeader | undefined;
  let descriptor: LogDescriptor | undefined;
  let descriptorHash: string | undefined; // recomputed
  let createdAtMs = -Infinity;
  let keyLines = 0;
  let lastKid: string | undefined;
  let sawSequencerKey = false;
  let entries: EntryChecker | undefined;
  let checkpoints: ReturnType<typeof createCheckpointChecker> | undefined;
  let legacyDocs = 0;

  const checkpointChecker = () =>
    (checkpoints ??= createCheckpointChecker({
      failures,
      policy,
      descriptorHash,
      seqsAhead: opts.checkpointSeqs,
      timeBounds: descriptor?.timeBounds,
      allowLegacy: opts.allowLegacy,
      backend: opts.backend,
    }));

  function entryChecker(): EntryChecker {
    if (!entries) {
      const cps = checkpointChecker();
      entries = createEntryChecker({
        failures,
        trust,
        sigs,
        mode: descriptor?.mode ?? header?.mode ?? 'full',
        log: descriptor?.log ?? policy.log,
        descriptorHash: descriptor?.hash,
        timeBounds: descriptor?.timeBounds,
        timePrecision: descriptor?.timePrecision,
        wantsRoot: cps.wantsRoot,
        recordRoot: cps.recordRoot,
        allowLegacy: opts.allowLegacy,
        backend: opts.backend,
        idSalt: opts.idSalt,
        idSpill: opts.idSpill,
      });
    }
    return entries;
  }

  function leaveKeys(line: number): void {
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
  }

  function onHeader(json: unknown, line: number): void {
    const t = checkBundleType(json);
    if (!t.ok) {
      failures.add({ kind: t.code, line, detail: t.detail });
      usable = false;
      phase = 'stopped';
      return;
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
    phase = 'descriptor';
  }

  function onDescriptor(json: unknown, line: number): void {
    phase = 'keys';
    const r = readDocument('Log', json, { allowLegacy: opts.allowLegacy });
    if (!r.ok) {
      failures.add({ kind: r.code, seq: 0, line, detail: `descriptor: ${r.detail}` });
      return;
    }
    const d = r.value;
    descriptor = d;
    const h = computeHash(d as unknown as JsonObject, opts.backend);
    if (h.ok) descriptorHash = h.value;
    createdAtMs = timeMs(d.createdAt);
    if (d.timeBounds === undefined) {
      skipped.push({
        check: 'time bounds',
        reason:
          'the descriptor declares no timeBounds (a log created before them): signedAt against sequencedAt and sequencedAt against cosignature times were not checked',
      });
    }
    const v = verifyLogDescriptor(d, policy.sequencer, { log: policy.log, allowLegacy: opts.allowLegacy, backend: opts.backend });
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
  }

  function onKeyRecord(json: unknown, line: number): void {
    phase = 'keys';
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
  }

  function feed(json: unknown, line: number): Promise<void> | undefined {
    if (phase === 'header') {
      onHeader(json, line);
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
        else onDescriptor(json, line);
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
        if (phase === 'descriptor') leaveKeys(line);
        onKeyRecord(json, line);
        return undefined;
      case 'Event':
        if (phase === 'checkpoints') {
          failures.add({ kind: 'misplaced_line', line, found: 'Event', detail: 'an entry after the checkpoints' });
          return undefined;
        }
        if (phase !== 'entries') leaveKeys(line);
        phase = 'entries';
        return entryChecker().entry(json, line);
      case 'Payload':
        if (phase !== 'entries') {
          failures.add({ kind: 'misplaced_line', line, found: 'Payload', detail: 'a payload line comes directly after its entry' });
          return undefined;
        }
        entryChecker().payload(json as Record<string, unknown>, line);
        return undefined;
      case 'Checkpoint':
        if (phase !== 'checkpoints') {
          if (phase !== 'entries') leaveKeys(line);
          entryChecker().close();
          phase = 'checkpoints';
        }
        checkpointChecker().checkpoint(json, line, entryChecker());
        return undefined;
    }
  }

  function checkHeaderAgainstLines(e: EntryChecker, cps: ReturnType<ReturnType<typeof createCheckpointChecker>['summary']>): void {
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
    const newest = Math.max(createdAtMs, e.maxStampMs, cps.maxStampMs);
    if (Number.isFinite(newest) && timeMs(header.exportedAt) < newest) {
      failures.add({
        kind: 'header_mismatch',
        expected: `no earlier than ${new Date(newest).toISOString()}`,
        found: header.exportedAt,
        detail: 'exportedAt is earlier than a time the sequencer stamped in the bundle',
      });
    }
  }

  return {
    get stopped() {
      return phase === 'stopped';
    },
    get progress() {
      return { lines, entries: entries?.count ?? 0 };
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
        return feed(json, lines);
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
      if (phase === 'descriptor' || phase === 'keys') leaveKeys(lines);
      const e = entryChecker();
      e.finish();
      await sigs.drain();
      await e.finishIds();
      const cps = checkpointChecker().summary();
      checkHeaderAgainstLines(e, cps);
      checkWitnessed(e.lastSeq, cps.witnessedThrough);
      return report(e, cps);
    },
  };

  /** Only checkpoints that meet the policy bind the chain: entries none covers prove nothing. */
  function checkWitnessed(lastSeq: number, witnessed: number): void {
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
    } else if (opts.requireWitnessed && lastSeq > witnessed) {
      failures.add({
        kind: 'quorum_not_met',
        seq: witnessed + 1,
        expected: `witnessed through seq ${lastSeq}`,
        found: `witnessed through seq ${witnessed}`,
        detail: `entries ${witnessed + 1}..${lastSeq} are not covered by a checkpoint that meets the policy (--require-witnessed)`,
      });
    }
  }

  function report(
    e: EntryChecker | undefined,
    cps: ReturnType<ReturnType<typeof createCheckpointChecker>['summary']> | undefined,
  ): BundleReport {
    const st = e?.stats();
    const lastSeq = e?.lastSeq ?? 0;
    const witnessed = cps?.witnessedThrough ?? 0;
    const skip = [...skipped, ...(cps?.skipped ?? [])];
    if (e && cps && cps.count === 0 && lastSeq > 0) skip.push({ check: 'witnessing', reason: 'the bundle holds no checkpoint' });
    // Issue 15: a log nobody witnesses is said to be so wherever it is shown (formatReport's verdict line too).
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
      unwitnessed: lastSeq > witnessed ? { from: witnessed + 1, to: lastSeq } : undefined,
      subjects: st?.subjects ?? 0,
      keys: { trusted: trust.trusted, fromBundle: trust.fromBundle },
      legacySignatures: (st?.legacy ?? 0) + legacyDocs + (cps?.legacy ?? 0),
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
      memory: { idSetBytes: st?.idSetBytes ?? 0, missingPayloads: st?.missingPayloads ?? 0, subjects: st?.subjects ?? 0 },
    };
  }
}
