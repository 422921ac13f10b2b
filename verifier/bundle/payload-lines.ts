// verifier/bundle/payload-lines.ts: the payload lines of an audit bundle (docs/design.md §4, §8), each
// checked against the entry line just before it: its seq (misplaced_line otherwise), the event read
// strictly, its event hash against the entry's eventHash and its ce attributes against the entry's
// (payload_hash_mismatch), its cookwalasig against the entry's eventSignature (bad_signature). An
// entry without its payload line waits in missing-payloads.ts for the sequencer-signed
// `cookwala.log.erased` entry that explains it (erasure_mismatch when one names no such gap;
// mode_forbids_erasure in a full log; payload_missing in a full log, for an erasure entry's own
// payload, and for what stays unexplained at the end). A run resumed after an earlier one (a
// monitor's step) matches an erasure naming an entry before its resume point against the gaps the
// earlier runs left unexplained (`earlierMissing`), and hands its own unexplained gaps back
// (unexplained()) for the caller to keep. Left out: the entry lines themselves and
// who signed them (entries.ts, entry-signatures.ts). Memory: one pending entry, 48 bytes per
// missing payload, the erased list capped at maxErasedListed. Invariant: an erasure counts only
// when the sequencer signed its entry and it names an earlier gap with that gap's eventHash.

import type { FailureLog, ErasedPayload } from './report.ts';
import { createMissingPayloads, type MarkResult } from './missing-payloads.ts';
import { readPayloadLine } from './format.ts';
import { encodeCookwalasig, eventHash, readCloudEvent, type CloudEvent } from '../cloudevent/read.ts';
import { entryCeOf as ceOf, type Entry, type EntryCe } from '../documents/entry.ts';
import { ERASED_TYPE } from './entry-signatures.ts';
import { isHashString, parseHash } from '../encoding/wire.ts';
import type { Failure } from '../errors.ts';

/**
 * The payloads found missing by the runs before a resume point and not yet explained (a monitor
 * keeps them in its state): markErased answers as MissingPayloads.markErased does, and forgets a
 * gap it explained. `not_missing` is quiet there: the earlier run saw that payload present (it was
 * erased after being checked) or no longer holds it.
 */
export interface EarlierMissing {
  markErased(seq: number, eventHash: Uint8Array, by: number): MarkResult;
}

interface Pending {
  entry: Entry;
  line: number;
  sequencerSigned: boolean;
  /** The entry line's text was one isPlainJsonText accepted. */
  stringsPlain: boolean;
}

export function createPayloadLines(o: {
  failures: FailureLog;
  mode: 'full' | 'hash_only';
  maxErasedListed?: number;
  /** Entries through this seq were checked by an earlier run: an erasure naming one of them is matched only against earlierMissing. */
  resumedAfter?: number;
  /** With resumedAfter: the gaps the earlier runs left unexplained, matched by an erasure naming one. */
  earlierMissing?: EarlierMissing;
}) {
  const f = o.failures;
  const missing = createMissingPayloads();
  const erased: ErasedPayload[] = [];
  const maxErased = o.maxErasedListed ?? 1000;
  let pending: Pending | undefined;
  let present = 0;
  let erasedCount = 0;

  const bad = (r: Failure, line: number, seq?: number) => f.add({ kind: r.code, seq, line, detail: r.detail });

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
      // line) was already named chain_broken; it takes no place among the gaps.
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
    const hash = (parseHash(d.eventHash) as { value: Uint8Array }).value;
    const earlier = o.resumedAfter !== undefined && target <= o.resumedAfter;
    const r: MarkResult = earlier
      ? (o.earlierMissing?.markErased(target, hash, e.seq) ?? { ok: true })
      : missing.markErased(target, hash, e.seq);
    if (!r.ok && !(earlier && r.why === 'not_missing')) {
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

  /** entryCeOf(ev) equals a, read off the event without building the copy (a null attribute is absent there). */
  function sameCe(a: EntryCe, ev: CloudEvent): boolean {
    return (
      a.source === ev.source &&
      a.id === ev.id &&
      a.type === ev.type &&
      a.subject === (ev.subject === null ? undefined : ev.subject) &&
      a.cookwalaseq === (ev.cookwalaseq === null ? undefined : ev.cookwalaseq)
    );
  }

  return {
    /** The entry line that the next payload line belongs to (the one before it was settled by closePending). */
    expect(entry: Entry, line: number, sequencerSigned: boolean, stringsPlain = false): void {
      pending = { entry, line, sequencerSigned, stringsPlain };
    },

    /** The entry before has no payload line after all (another entry, a checkpoint or the end came). */
    closePending,

    /** `stringsPlain`: the payload line's text was one isPlainJsonText accepted. */
    line(json: Record<string, unknown>, line: number, stringsPlain = false): void {
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
      const h = eventHash(ce.value, stringsPlain);
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
      if (!sameCe(e.ce, ce.value))
        f.add({
          kind: 'payload_hash_mismatch',
          ...at,
          expected: e.ce,
          found: ceOf(ce.value),
          detail: `payload of entry ${e.seq}: the entry's ce attributes are not the event's`,
        });
      // decodeCookwalasig is strict (exactly the JCS form), so equal strings mean the same Signature.
      const sigText = ce.value.cookwalasig;
      if (sigText !== undefined && sigText !== null && sigText !== encodeCookwalasig(e.eventSignature, p.stringsPlain)) {
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

    /** Every missing payload not explained by an erasure entry is payload_missing. */
    finish(): void {
      closePending();
      missing.forEach((seq, by) => {
        if (by === 0)
          f.add({ kind: 'payload_missing', seq, detail: `entry ${seq} has no payload line and no ${ERASED_TYPE} entry names it` });
      });
    },

    /** The entries settled so far whose payload is missing and that no erasure entry explained (a resumed run's caller keeps them). */
    unexplained(f: (seq: number, eventHash: Uint8Array) => void): void {
      missing.forEach((seq, by, hash) => {
        if (by === 0) f(seq, hash);
      });
    },

    stats() {
      return { present, erased: erasedCount, missing: missing.unexplained, missingPayloads: missing.count, erasedList: erased };
    },
  };
}
