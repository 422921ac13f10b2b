// verifier/bundle/entries.ts: the entry and payload lines of an audit bundle (DESIGN §4, §8), checked
// as they stream by: strict reading, the entry hash (entry_hash_mismatch), the chain (chain_broken:
// seq without gaps, prev = the previous line's `hash` member as written), the log named
// (log_mismatch), the event signature (entry-signatures.ts), (source, id) uniqueness
// (duplicate_id), per-subject cookwalaseq order (out_of_order with expected), and each payload
// against its entry (payload_hash_mismatch for its event hash or ce attributes, bad_signature for
// its cookwalasig). A missing payload waits in missing-payloads.ts for the sequencer-signed
// `cookwala.log.erased` entry that explains it (erasure_mismatch when one names no such gap;
// mode_forbids_erasure in a full log; payload_missing for what stays unexplained). The Merkle
// frontier is fed the RECOMPUTED entry hashes, so heads and roots are those of what the bundle
// really holds and a rewrite shows at the checkpoints. Time (verifier/documents/time-bounds.ts): sequencedAt never
// goes backwards from one entry to the next (time_regression), and with the descriptor's declared
// timeBounds every entry's eventSignature.signedAt lies within them of its sequencedAt
// (signed_in_future, delivery_too_late); the running maximum of sequencedAt (and the first seq
// holding it) is handed to the checkpoint section with each recorded root, which bounds it by
// the witnesses' cosignature times (checkpoints.ts) without keeping any entry.
// Memory: O(log n) frontier, the id set (id-set.ts: flat when the caller injects a spill sink, as
// `cookwala verify` does; its duplicates are then confirmed and reported by finishIds() at the end,
// with the same failure as when found on the way), one number per subject, 48 bytes per missing
// payload. Left out: checkpoints (checkpoints.ts).

import type { FailureLog, ErasedPayload } from './report.ts';
import type { Trust } from './trust.ts';
import type { SigQueue } from './signature-batches.ts';
import { createIdSet, type IdSpillOptions } from './id-set.ts';
import { createMissingPayloads } from './missing-payloads.ts';
import { readPayloadLine } from './format.ts';
import { readDocument } from '../documents/read.ts';
import { hashedView, type JsonObject } from '../documents/document-hash.ts';
import { canonicalize } from '../encoding/jcs.ts';
import { encodeCookwalasig, eventHash, readCloudEvent } from '../cloudevent/read.ts';
import { entryCeOf as ceOf, type Entry, type EntryCe } from '../documents/entry.ts';
import { createEntrySignatures, ERASED_TYPE, hashString } from './entry-signatures.ts';
import { isHashString, parseHash, timeMs } from '../encoding/wire.ts';
import { createFrontier, hashLeaf } from '../merkle/index.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';
import type { Failure, Result } from '../errors.ts';
import { checkSignedAt, checkTimeOrder, checkTimePrecision, type TimeBounds } from '../documents/time-bounds.ts';

/** The latest sequencedAt among the entries so far, and the first seq that holds it. */
export interface LatestStamp {
  ms: number;
  seq: number;
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
}

interface Pending {
  entry: Entry;
  line: number;
  sequencerSigned: boolean;
}

export function createEntryChecker(o: EntryCheckerOptions) {
  const f = o.failures;
  const backend = o.backend ?? defaultBackend();
  const frontier = createFrontier();
  const ids = createIdSet({ backend, salt: o.idSalt, spill: o.idSpill });
  const subjects = new Map<string, number>();
  const missing = createMissingPayloads();
  const signatures = createEntrySignatures({ failures: f, trust: o.trust, sigs: o.sigs, backend, allowLegacy: o.allowLegacy });
  const erased: ErasedPayload[] = [];
  const maxErased = o.maxErasedListed ?? 1000;
  let last: { seq: number; hash: string | undefined } = { seq: 0, hash: o.descriptorHash };
  let head = o.descriptorHash;
  let pending: Pending | undefined;
  let entries = 0;
  let present = 0;
  let erasedCount = 0;
  let firstBadEntry: number | undefined;
  let maxStampMs = -Infinity;
  let latest: LatestStamp | undefined;
  let prevStamp: { seq: number; sequencedAt: string } | undefined;

  /** The Core §5 document hash as bytes and string (computeHash's rule, without a hex round trip). */
  function docHash(doc: JsonObject): Result<{ hex: string; bytes: Uint8Array }> {
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
      return { ok: false, code: 'invalid_document', detail: 'an entry is a JSON object' };
    const c = canonicalize(hashedView(doc));
    if (!c.ok) return c;
    const bytes = backend.sha256Text(c.value);
    return { ok: true, value: { hex: hashString(bytes), bytes } };
  }

  const bad = (r: Failure, line: number, seq?: number, more: Record<string, unknown> = {}) =>
    f.add({ kind: r.code, seq, line, detail: r.detail, ...more });

  /** The one duplicate_id failure, found on the way (in memory) or at the end (spilled). */
  const duplicate = (seq: number, line: number, source: string, id: string) =>
    f.add({ kind: 'duplicate_id', seq, line, found: { source, id }, detail: `entry ${seq}: (source, id) was already sequenced` });

  function closePending(): void {
    const p = pending;
    if (!p) return;
    pending = undefined;
    const e = p.entry;
    if (e.ce.type === ERASED_TYPE) {
      f.add({
        kind: 'payload_missing',
        seq: e.seq,
        line: p.line,
        detail: `erasure entry ${e.seq} has no payload line: its data names what was erased, and it is never erased itself`,
      });
    } else if (o.mode === 'full') {
      f.add({
        kind: 'payload_missing',
        seq: e.seq,
        line: p.line,
        detail: `entry ${e.seq} has no payload line in a full-mode log (payloads are never erased there)`,
      });
    } else {
      // An entry line whose seq does not follow the last missing one (a repeated or reordered
      // line) was already named chain_broken; it takes no place among the gaps (issue 14 #1).
      const h = parseHash(e.eventHash);
      if (h.ok && e.seq > missing.lastSeq) missing.add(e.seq, h.value);
    }
  }

  function applyErasure(e: Entry, event: Record<string, unknown>, line: number): void {
    const at = { seq: e.seq, line };
    if (o.mode === 'full') {
      f.add({ kind: 'mode_forbids_erasure', ...at, detail: `erasure entry ${e.seq} in a full-mode log` });
      return;
    }
    const d = event.data as Record<string, unknown> | undefined;
    if (
      !d ||
      typeof d !== 'object' ||
      Array.isArray(d) ||
      !Number.isSafeInteger(d.seq) ||
      !isHashString(d.eventHash) ||
      typeof d.reason !== 'string'
    ) {
      f.add({ kind: 'erasure_mismatch', ...at, found: d, detail: `erasure entry ${e.seq}: data is not {seq, eventHash, reason}` });
      return;
    }
    const target = d.seq as number;
    if (target < 1 || target >= e.seq) {
      f.add({
        kind: 'erasure_mismatch',
        ...at,
        found: target,
        detail: `erasure entry ${e.seq} names seq ${target}, which is not an earlier entry`,
      });
      return;
    }
    const r = missing.markErased(target, (parseHash(d.eventHash) as { value: Uint8Array }).value, e.seq);
    if (!r.ok) {
      const why =
        r.why === 'hash_differs'
          ? `the entry at seq ${target} has another eventHash than ${d.eventHash}`
          : r.why === 'already_erased'
            ? `seq ${target} was already erased by entry ${r.erasedBy}`
            : `the payload of seq ${target} is in the bundle: it was not erased`;
      f.add({ kind: 'erasure_mismatch', ...at, found: { seq: target, eventHash: d.eventHash }, detail: `erasure entry ${e.seq}: ${why}` });
      return;
    }
    erasedCount++;
    if (erased.length < maxErased) erased.push({ seq: target, eventHash: d.eventHash as string, erasedBy: e.seq, reason: d.reason });
  }

  /** The log's clock: non-decreasing sequencedAt, and signedAt within the declared bounds of it. */
  function checkTime(e: Entry, line: number): void {
    const stamp = timeMs(e.sequencedAt);
    if (prevStamp !== undefined) {
      const order = checkTimeOrder(prevStamp, e);
      if (!order.ok)
        f.add({
          kind: order.code,
          seq: e.seq,
          line,
          expected: `no earlier than ${prevStamp.sequencedAt} (entry ${prevStamp.seq})`,
          found: e.sequencedAt,
          detail: order.detail,
        });
    }
    prevStamp = { seq: e.seq, sequencedAt: e.sequencedAt };
    if (stamp > maxStampMs) {
      maxStampMs = stamp;
      latest = { ms: stamp, seq: e.seq };
    }
    if (o.timePrecision === 'day') {
      for (const [what, t] of [
        ['sequencedAt', e.sequencedAt],
        ['signedAt', e.eventSignature.signedAt],
      ] as const) {
        const p = checkTimePrecision(t, 'day', `entry ${e.seq}: ${what}`);
        if (!p.ok) f.add({ kind: p.code, seq: e.seq, line, expected: String(p.bound), found: t, detail: p.detail });
      }
    }
    if (o.timeBounds) {
      const w = checkSignedAt(timeMs(e.eventSignature.signedAt), stamp, o.timeBounds);
      if (!w.ok)
        f.add({
          kind: w.code,
          seq: e.seq,
          line,
          expected: w.bound,
          found: e.eventSignature.signedAt,
          detail: `entry ${e.seq} (sequencedAt ${e.sequencedAt}): ${w.detail}`,
        });
    }
  }

  function sameCe(a: EntryCe, b: EntryCe): boolean {
    return a.source === b.source && a.id === b.id && a.type === b.type && a.subject === b.subject && a.cookwalaseq === b.cookwalaseq;
  }

  return {
    entry(json: unknown, line: number): Promise<void> | undefined {
      closePending();
      entries++;
      const raw = json as Record<string, unknown>;
      const seqOf = Number.isSafeInteger(raw.seq) ? (raw.seq as number) : undefined;
      const r = readDocument('Event', json, { allowLegacy: o.allowLegacy });
      // A line that breaks the schema still takes its place in the chain and the tree when it can.
      const recomputed = docHash(raw as JsonObject);
      const hashMember = typeof raw.hash === 'string' ? raw.hash : undefined;
      if (!r.ok) bad(r, line, seqOf, { path: (r as { path?: unknown }).path });
      const seq = seqOf ?? last.seq + 1;
      if (recomputed.ok && hashMember !== recomputed.value.hex) {
        firstBadEntry ??= seq;
        if (r.ok)
          f.add({
            kind: 'entry_hash_mismatch',
            seq,
            line,
            expected: recomputed.value.hex,
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
      last = { seq, hash: hashMember };
      if (o.log !== undefined && raw.log !== o.log)
        f.add({ kind: 'log_mismatch', seq, line, expected: o.log, found: raw.log, detail: `entry ${seq} names another log` });
      if (r.ok) checkTime(r.value, line);
      if (recomputed.ok) {
        head = recomputed.value.hex;
        frontier.append(hashLeaf(recomputed.value.bytes));
        if (o.wantsRoot(seq)) o.recordRoot(seq, head, hashString(frontier.root()), latest);
      }
      if (!recomputed.ok && r.ok) bad(recomputed, line, seq);
      if (!r.ok || !recomputed.ok) return undefined;
      const e = r.value;
      if (!ids.add(e.ce.source, e.ce.id, seq, line)) duplicate(seq, line, e.ce.source, e.ce.id);
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
      const s = signatures.check(e, line);
      pending = { entry: e, line, sequencerSigned: s.sequencerSigned };
      if (!idWait) return s.wait;
      return s.wait ? Promise.all([idWait, s.wait]).then(() => undefined) : idWait;
    },

    payload(json: Record<string, unknown>, line: number): void {
      const p = pending;
      const r = readPayloadLine(json);
      const seq = r.ok ? r.value.seq : Number.isSafeInteger(json.seq) ? (json.seq as number) : undefined;
      if (!p || seq !== p.entry.seq) {
        f.add({
          kind: 'misplaced_line',
          seq,
          line,
          expected: p ? { seq: p.entry.seq } : 'an entry line',
          found: { kind: 'Payload', seq },
          detail: 'a payload line comes directly after the entry of its seq',
        });
        return;
      }
      pending = undefined;
      if (!r.ok) return bad(r, line, seq);
      const e = p.entry;
      const at = { seq: e.seq, line };
      present++;
      const ce = readCloudEvent(r.value.event);
      if (!ce.ok) return bad(ce, line, e.seq);
      const h = eventHash(ce.value);
      if (!h.ok) return bad(h, line, e.seq);
      if (h.value !== e.eventHash) {
        f.add({
          kind: 'payload_hash_mismatch',
          ...at,
          expected: e.eventHash,
          found: h.value,
          detail: `payload of entry ${e.seq}: its event hash is not the entry's eventHash`,
        });
        return;
      }
      const attrs = ceOf(ce.value);
      if (!sameCe(attrs, e.ce))
        f.add({
          kind: 'payload_hash_mismatch',
          ...at,
          expected: e.ce,
          found: attrs,
          detail: `payload of entry ${e.seq}: the entry's ce attributes are not the event's`,
        });
      // decodeCookwalasig is strict (exactly the JCS form), so equal strings mean the same Signature.
      const sigText = ce.value.cookwalasig;
      if (sigText !== undefined && sigText !== null && sigText !== encodeCookwalasig(e.eventSignature)) {
        f.add({
          kind: 'bad_signature',
          ...at,
          expected: encodeCookwalasig(e.eventSignature),
          found: sigText,
          detail: `payload of entry ${e.seq}: its cookwalasig is not the entry's eventSignature`,
        });
      }
      if (e.ce.type === ERASED_TYPE && p.sequencerSigned) applyErasure(e, ce.value, line);
    },

    /** The entries section is over (a checkpoint line or the end came). */
    close(): void {
      closePending();
    },

    /** Every missing payload not explained by an erasure entry is payload_missing. */
    finish(): void {
      closePending();
      missing.forEach((seq, by) => {
        if (by === 0)
          f.add({ kind: 'payload_missing', seq, detail: `entry ${seq} has no payload line and no ${ERASED_TYPE} entry names it` });
      });
    },

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
      return maxStampMs;
    },
    /** The latest sequencedAt so far and the first seq holding it (undefined before any entry). */
    get latestStamp(): LatestStamp | undefined {
      return latest;
    },
    stats() {
      return {
        present,
        erased: erasedCount,
        missing: missing.unexplained,
        subjects: subjects.size,
        legacy: signatures.legacy,
        idSetBytes: ids.bytes,
        idSpilledAfter: ids.spilledAfter,
        idRuns: ids.runsWritten,
        missingPayloads: missing.count,
        erasedList: erased,
      };
    },
  };
}

export type EntryChecker = ReturnType<typeof createEntryChecker>;
