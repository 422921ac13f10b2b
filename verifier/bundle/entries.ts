// verifier/bundle/entries.ts: the entry lines of an audit bundle (docs/design.md §4, §8), checked as they
// stream by: strict reading, the entry hash (entry_hash_mismatch), the chain (chain_broken: seq
// without gaps, prev = the previous line's `hash` member as written), the log named
// (log_mismatch), the event signature (entry-signatures.ts), (source, id) uniqueness
// (duplicate_id), per-subject cookwalaseq order (out_of_order with expected), and the log's clock
// (entry-time.ts: time_regression, and with the descriptor's timeBounds signed_in_future and
// delivery_too_late). Each payload line is handed to payload-lines.ts with the entry before it
// (payload hashes, erasures, missing payloads). The Merkle frontier is fed the RECOMPUTED entry
// hashes, so heads and roots are those of what the bundle really holds and a rewrite shows at the
// checkpoints; with each recorded root goes the running maximum of sequencedAt, which the
// checkpoint section bounds by the witnesses' cosignature times without keeping any entry.
// Memory: O(log n) frontier, the id set (id-set.ts: flat when the caller injects a spill sink, as
// `cookwala verify` does; its duplicates are then confirmed and reported by finishIds() at the end,
// with the same failure as when found on the way), one number per subject, 48 bytes per missing
// payload. With `resume` it goes on from where an earlier run stopped (EntryResume: chain, tree,
// subjects, clock), so a monitor or an incremental audit checks each new entry exactly as a full
// run does; `earlierIds` carries the (source, id) pairs of the runs before it, `earlierMissing`
// the payloads they found missing and no erasure entry explained yet. Left out: checkpoints
// (checkpoints.ts).

import type { FailureLog } from './report.ts';
import type { Trust } from './trust.ts';
import type { SigQueue } from './signature-batches.ts';
import { createIdSet, type IdSet, type IdSpillOptions } from './id-set.ts';
import { createPayloadLines, type EarlierMissing } from './payload-lines.ts';
import { createEntryClock, type ClockResume, type LatestStamp } from './entry-time.ts';
import { readDocument } from '../documents/read.ts';
import { hashedView, type JsonObject } from '../signing/document-hash.ts';
import { entryCanonicalText, type Entry } from '../documents/entry.ts';
import { canonicalize } from '../encoding/jcs.ts';
import { createEntrySignatures, hashString } from './entry-signatures.ts';
import { createFrontier, hashLeafOfHex, type Hash32, type NodeId } from '../merkle/index.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import type { Failure, Result } from '../errors.ts';
import type { TimeBounds } from '../documents/time-bounds.ts';
import { timeMs } from '../encoding/wire.ts';

export type { LatestStamp, ClockResume } from './entry-time.ts';

/**
 * Where an earlier check of the same log stopped, so a monitor or an incremental audit goes on
 * from entry `seq + 1` as if it had read every entry before: the last entry's hash (the chain),
 * the Merkle frontier at `seq` (the tree), the last cookwalaseq per subject, and the clock.
 * The caller vouches for it: it comes from the caller's own earlier run, tied to a verified
 * checkpoint at `seq` (the frontier's root equals that checkpoint's root).
 */
export interface EntryResume {
  seq: number;
  /** The hash of entry `seq` (the descriptor's hash when seq is 0). */
  hash: string;
  frontier: Array<{ id: NodeId; hash: Hash32 }>;
  subjects: Iterable<[string, number]>;
  clock?: ClockResume;
}

export { SEQUENCER_TYPES } from './entry-signatures.ts';

export interface EntryCheckerOptions {
  failures: FailureLog;
  trust: Trust;
  sigs: SigQueue;
  mode: 'full' | 'hash_only';
  /** The descriptor's origin, and its hash: claimed (for prev of entry 1) and recomputed (head at 0). */
  log?: string;
  descriptorHash?: string;
  /** The descriptor's declared time window; undefined: only time_regression is checked. */
  timeBounds?: TimeBounds;
  /** The descriptor's createdAt (ms): no entry is sequenced before it. */
  createdAtMs?: number;
  /** The descriptor's timePrecision: "day" = every sequencedAt and signedAt is a UTC midnight (§8). */
  timePrecision?: 'day';
  /** Called after each entry whose seq the checkpoint section will ask about. */
  wantsRoot(seq: number): boolean;
  recordRoot(seq: number, head: string, root: string, latest: LatestStamp | undefined): void;
  allowLegacy?: boolean;
  backend?: CryptoBackend;
  idSalt?: Uint8Array;
  /** Where the (source, id) set spills beyond its table (id-set.ts); without it, all in memory. */
  idSpill?: IdSpillOptions;
  maxErasedListed?: number;
  /** Go on from an earlier run (see EntryResume); absent: from the descriptor. */
  resume?: EntryResume;
  /** With `resume`: the payloads found missing before it and not yet explained (payload-lines.ts EarlierMissing). */
  earlierMissing?: EarlierMissing;
  /** The (source, id) set to use instead of a fresh one (a monitor's bounded window). */
  ids?: IdSet;
  /**
   * The pairs of the runs before `resume` (an incremental audit): add() is false for a pair they
   * hold, which is then a duplicate_id as one found within this run; it remembers the others.
   */
  earlierIds?: EarlierIds;
}

/** The (source, id) pairs audited before a resume point (auditor/audit-ids.ts keeps them). */
export interface EarlierIds {
  add(source: string, id: string): boolean;
}

/** The members an entry line may have for the direct encoder: its own eight and `hash` (left out of the hash). */
const ENTRY_MEMBERS: ReadonlySet<string> = new Set([
  'kind',
  'log',
  'seq',
  'prev',
  'sequencedAt',
  'ce',
  'eventHash',
  'eventSignature',
  'hash',
]);

/**
 * True when every member of `doc` is one of ENTRY_MEMBERS: then its hashed view is exactly what
 * entryCanonicalText reads (it declines, with undefined, when one of the eight is missing or odd).
 */
function usualEntry(doc: object): boolean {
  const keys = Object.keys(doc);
  if (keys.length > ENTRY_MEMBERS.size) return false;
  for (let i = 0; i < keys.length; i++) if (!ENTRY_MEMBERS.has(keys[i])) return false;
  return true;
}

export function createEntryChecker(o: EntryCheckerOptions) {
  const f = o.failures;
  const backend = o.backend ?? defaultBackend();
  const frontier = o.resume ? createFrontier(o.resume.seq, o.resume.frontier) : createFrontier();
  const ids = o.ids ?? createIdSet({ backend, salt: o.idSalt, spill: o.idSpill });
  const subjects = new Map<string, number>(o.resume?.subjects ?? []);
  const payloads = createPayloadLines({
    failures: f,
    mode: o.mode,
    maxErasedListed: o.maxErasedListed,
    resumedAfter: o.resume?.seq,
    earlierMissing: o.earlierMissing,
  });
  const clock = createEntryClock({
    failures: f,
    timeBounds: o.timeBounds,
    timePrecision: o.timePrecision,
    resume: o.resume?.clock,
    createdAtMs: o.createdAtMs,
  });
  const signatures = createEntrySignatures({ failures: f, trust: o.trust, sigs: o.sigs, backend, allowLegacy: o.allowLegacy });
  // The previous entry line: its seq and its `hash` member as written (two values, no object per entry).
  const last: { seq: number; hash: string | undefined } = o.resume
    ? { seq: o.resume.seq, hash: o.resume.hash }
    : { seq: 0, hash: o.descriptorHash };
  let head = o.resume ? o.resume.hash : o.descriptorHash;
  let entries = 0;
  let firstBadEntry: number | undefined;

  /**
   * The Core §5 document hash, as the hex the `hash` member spells (computeHash's rule). An entry
   * of the usual shape (no member but the entry's own and `hash`) is written directly by
   * entryCanonicalText, the sequencer's own encoder, which declines anything less plain; every
   * other line is canonicalized generically, so the bytes hashed are those of
   * canonicalize(hashedView(doc)) either way. Kept as hex: the Merkle leaf is hashed from it
   * (hashLeafOfHex), so no digest array and no second spelling of it is made per entry.
   */
  function docHash(doc: JsonObject, stringsPlain: boolean): Result<string> {
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      return { ok: false, code: 'invalid_document', detail: 'an entry is a JSON object' };
    let text = usualEntry(doc) ? entryCanonicalText(doc as unknown as Entry, stringsPlain) : undefined;
    if (text === undefined) {
      const c = canonicalize(hashedView(doc));
      if (!c.ok) return c;
      text = c.value;
    }
    return { ok: true, value: 'sha256:' + backend.sha256Hex(text) };
  }

  const bad = (r: Failure, line: number, seq?: number, more: Record<string, unknown> = {}) =>
    f.add({ kind: r.code, seq, line, detail: r.detail, ...more });

  /** The one duplicate_id failure, found on the way (in memory) or at the end (spilled). */
  const duplicate = (seq: number, line: number, source: string, id: string) =>
    f.add({ kind: 'duplicate_id', seq, line, found: { source, id }, detail: `entry ${seq}: (source, id) was already sequenced` });

  return {
    /**
     * An entry line's value; `stringsPlain` when the caller parsed it from text that
     * isPlainJsonText accepted (the direct encoders then skip their per-string checks).
     */
    entry(json: unknown, line: number, stringsPlain = false): Promise<void> | undefined {
      payloads.closePending();
      entries++;
      const raw = json as Record<string, unknown>;
      const seqOf = Number.isSafeInteger(raw.seq) ? (raw.seq as number) : undefined;
      const r = readDocument('Event', json, { allowLegacy: o.allowLegacy });
      // A line that breaks the schema still takes its place in the chain and the tree when it can.
      const recomputed = docHash(raw as JsonObject, stringsPlain);
      const hashMember = typeof raw.hash === 'string' ? raw.hash : undefined;
      if (!r.ok) bad(r, line, seqOf, { path: (r as { path?: unknown }).path });
      const seq = seqOf ?? last.seq + 1;
      if (recomputed.ok && hashMember !== recomputed.value) {
        firstBadEntry ??= seq;
        if (r.ok)
          f.add({
            kind: 'entry_hash_mismatch',
            seq,
            line,
            expected: recomputed.value,
            found: hashMember,
            detail: `entry ${seq}: the hash member is not the hash of its contents`,
          });
      }
      if (seq !== last.seq + 1) {
        f.add({
          kind: 'chain_broken',
          seq: last.seq + 1,
          line,
          expected: { seq: last.seq + 1 },
          found: { seq },
          detail: `entry seq ${seq} where seq ${last.seq + 1} should follow seq ${last.seq}`,
        });
      } else if (last.hash !== undefined && raw.prev !== last.hash) {
        f.add({
          kind: 'chain_broken',
          seq,
          line,
          expected: last.hash,
          found: raw.prev,
          detail: `entry ${seq}: prev is not the hash of ${last.seq === 0 ? 'the descriptor' : `entry ${last.seq}`}`,
        });
      }
      last.seq = seq;
      last.hash = hashMember;
      if (o.log !== undefined && raw.log !== o.log)
        f.add({ kind: 'log_mismatch', seq, line, expected: o.log, found: raw.log, detail: `entry ${seq} names another log` });
      // signedAt is read once for the clock and the key's validity window.
      const signedAtMs = r.ok ? timeMs(r.value.eventSignature.signedAt) : NaN;
      if (r.ok) clock.check(r.value, line, signedAtMs);
      if (recomputed.ok) {
        head = recomputed.value;
        frontier.push(hashLeafOfHex(head, 7)); // after 'sha256:'
        if (o.wantsRoot(seq)) o.recordRoot(seq, head, hashString(frontier.root()), clock.latest);
      }
      if (!recomputed.ok && r.ok) bad(recomputed, line, seq);
      if (!r.ok || !recomputed.ok) return undefined;
      const e = r.value;
      if (o.earlierIds && !o.earlierIds.add(e.ce.source, e.ce.id)) duplicate(seq, line, e.ce.source, e.ce.id);
      else if (!ids.add(e.ce.source, e.ce.id, seq, line)) duplicate(seq, line, e.ce.source, e.ce.id);
      const idWait = ids.wait();
      const { subject, cookwalaseq } = e.ce;
      if (subject !== undefined && cookwalaseq !== undefined) {
        const prevSeq = subjects.get(subject);
        if (prevSeq !== undefined && cookwalaseq !== prevSeq + 1) {
          f.add({
            kind: 'out_of_order',
            seq,
            line,
            expected: prevSeq + 1,
            found: cookwalaseq,
            detail: `entry ${seq}: cookwalaseq ${cookwalaseq} for subject ${subject} after ${prevSeq}`,
          });
        }
        subjects.set(subject, cookwalaseq);
      }
      const s = signatures.check(e, line, signedAtMs, stringsPlain);
      payloads.expect(e, line, s.sequencerSigned, stringsPlain);
      if (!idWait) return s.wait;
      return s.wait ? Promise.all([idWait, s.wait]).then(() => undefined) : idWait;
    },

    /** A payload line: it belongs to the entry line just before it. */
    payload: payloads.line,

    /** The entries section is over (a checkpoint line or the end came). */
    close(): void {
      payloads.closePending();
    },

    /** Every missing payload not explained by an erasure entry is payload_missing. */
    finish: payloads.finish,

    /** Instead of finish() (a monitor's step): the missing payloads settled so far that no erasure entry explained. */
    unexplainedPayloads: payloads.unexplained,

    /** Confirms and reports the duplicates a spilled id set holds, and removes its files. */
    finishIds(): Promise<void> {
      return ids.finish((d) => duplicate(d.seq, d.line, d.source, d.id));
    },

    /** Removes the id set's spill files (a run that ends without finishIds). */
    disposeIds(): Promise<void> {
      return ids.dispose();
    },

    get lastSeq() {
      return last.seq;
    },
    /** What a later run needs to go on from here (valid when the run recorded no failure). */
    resumePoint(): EntryResume {
      return { seq: last.seq, hash: head ?? '', frontier: frontier.nodes(), subjects: subjects.entries(), clock: clock.resume };
    },
    get count() {
      return entries;
    },
    get head() {
      return head;
    },
    root(): string {
      return hashString(frontier.root());
    },
    get treeSize() {
      return frontier.size;
    },
    get firstBadEntry() {
      return firstBadEntry;
    },
    get maxStampMs() {
      return clock.maxStampMs;
    },
    /** The latest sequencedAt so far and the first seq holding it (undefined before any entry). */
    get latestStamp(): LatestStamp | undefined {
      return clock.latest;
    },
    stats() {
      const p = payloads.stats();
      return {
        present: p.present,
        erased: p.erased,
        missing: p.missing,
        subjects: subjects.size,
        legacy: signatures.legacy,
        idSetBytes: ids.bytes,
        idSpilledAfter: ids.spilledAfter,
        idRuns: ids.runsWritten,
        missingPayloads: p.missingPayloads,
        erasedList: p.erasedList,
      };
    },
  };
}

export type EntryChecker = ReturnType<typeof createEntryChecker>;
