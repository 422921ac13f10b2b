// sequencer/group-plan.ts: the judgement of one group commit (docs/design.md §5, §6), without I/O.
// Given the candidates of a group in order, the (source, id) hits the store returned (none when
// the committer judges optimistically), the last cookwalaseq per subject and the log's head, plan()
// decides each candidate's outcome (a duplicate of an accepted twin or a stored entry, a conflict,
// a time refusal, out_of_order, or a new entry) and builds the entries to append, with seq and
// prev chained from the head. The committer (sequencer/committer.ts) reads the store, writes the
// plan and answers. Left out: anything asynchronous (stored duplicates are answered by the
// committer from `fromStore`). Invariants: entries chain from the head with no gap; at most one
// entry per (source, id) in a group; a subject's cookwalaseq rises by exactly one per entry.

import { buildEntry, entryCeOf, type Entry } from '../verifier/documents/index.ts';
import { fail, type Failure, type Result } from '../verifier/index.ts';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import type { Signature } from '../verifier/signing/index.ts';
import type { AppendItem } from '../logstore/index.ts';

/** An event ready to sequence: verified, with its hash and the signature for the entry. */
export interface Candidate {
  ce: CloudEvent;
  eventHash: string;
  signature: Signature;
  /** The event's own JSON text as received (JSON.parse of it gives `ce`), stored as its payload. */
  payloadText?: Uint8Array;
  /** The time window against the entry's sequencedAt (ms); absent for the sequencer's own events. */
  timeCheck?(sequencedAtMs: number): Result<true>;
}

export type Outcome = { ok: true; status: 200 | 201; seq: number; hash: string; eventHash: string } | Failure;

export interface Plan {
  outcomes: Outcome[];
  appends: AppendItem[];
  /** Outcomes answered from the (source, id) index: [outcome index, seq]. */
  fromStore: Array<[number, number]>;
  subjects: Map<string, number | undefined>;
  outOfOrder: boolean;
  /** An event was refused for its time; a stored twin would make it a duplicate instead. */
  timeRefused: boolean;
}

/** The entry after `prev`, sequenced at `at`, as the store appends it. */
export function appendItemOf(log: string, c: Candidate, prev: { seq: number; hash: string }, at: string): AppendItem {
  const sig = storedOrder(c.signature);
  // Both objects are made here for this entry alone, so buildEntry need not copy them again.
  const entry = buildEntry(
    {
      log,
      seq: prev.seq + 1,
      prev: prev.hash,
      sequencedAt: at,
      ce: entryCeOf(c.ce),
      eventHash: c.eventHash,
      eventSignature: sig === c.signature ? { ...sig } : sig,
    },
    true,
  );
  const item: AppendItem = { entry, payload: c.ce, dedup: { source: c.ce.source, id: c.ce.id } };
  if (c.payloadText !== undefined) item.payloadText = c.payloadText;
  if (hasOrder(c.ce)) item.subject = { subject: c.ce.subject!, cookwalaseq: c.ce.cookwalaseq! };
  return item;
}

/** Judge the group in order; `found` holds the stored (source, id) hits (none when optimistic). */
export function plan(
  log: string,
  head: { seq: number; hash: string },
  all: readonly Candidate[],
  found: ReadonlyArray<{ seq: number; eventHash: string } | undefined>,
  base: ReadonlyMap<string, number | undefined>,
  at: string,
): Plan {
  let prev = { seq: head.seq, hash: head.hash };
  const subjects = new Map(base);
  const accepted = new Map<string, Entry>();
  const p: Plan = { outcomes: new Array(all.length), appends: [], fromStore: [], subjects, outOfOrder: false, timeRefused: false };
  const atMs = Date.parse(at);
  all.forEach((c, i) => {
    const key = `${c.ce.source}\n${c.ce.id}`;
    const twin = accepted.get(key);
    const old = found[i];
    if (twin || old) {
      const theirs = twin ? twin.eventHash : old!.eventHash;
      if (theirs !== c.eventHash) {
        p.outcomes[i] = fail(
          'duplicate_id_conflict',
          `(source, id) = (${c.ce.source}, ${c.ce.id}) was sequenced at seq ${twin?.seq ?? old!.seq} with another eventHash`,
          { seq: twin?.seq ?? old!.seq },
        );
      } else if (twin) p.outcomes[i] = { ok: true, status: 200, seq: twin.seq, hash: twin.hash, eventHash: twin.eventHash };
      else p.fromStore.push([i, old!.seq]);
      return;
    }
    const t = c.timeCheck?.(atMs);
    if (t && !t.ok) {
      p.outcomes[i] = t;
      p.timeRefused = true;
      return;
    }
    if (hasOrder(c.ce)) {
      const last = subjects.get(c.ce.subject!);
      if (last !== undefined && c.ce.cookwalaseq !== last + 1) {
        p.outcomes[i] = fail('out_of_order', `subject ${c.ce.subject}: cookwalaseq ${c.ce.cookwalaseq}, expected ${last + 1}`, {
          expected: last + 1,
        });
        p.outOfOrder = true;
        return;
      }
      subjects.set(c.ce.subject!, c.ce.cookwalaseq);
    }
    const item = appendItemOf(log, c, prev, at);
    p.appends.push(item);
    accepted.set(key, item.entry);
    prev = item.entry;
    p.outcomes[i] = { ok: true, status: 201, seq: item.entry.seq, hash: item.entry.hash, eventHash: item.entry.eventHash };
  });
  return p;
}

/**
 * The signature with its members in the order the log store's compact entry form expects (alg,
 * kid, signedAt, sig: logstore/entry-codec.ts); a signature decoded from a cookwalasig comes in
 * JCS order (sig before signedAt), which the store would keep as JSON text, twice the bytes. The
 * entry hash does not depend on member order. Any other member set is handed over as it is.
 */
const STORED_ORDER = ['alg', 'kid', 'signedAt', 'sig'];

export function storedOrder(s: Signature): Signature {
  const keys = Object.keys(s);
  if (keys.length !== 4 || keys[2] === 'signedAt' || !STORED_ORDER.every((k) => keys.includes(k))) return s;
  return { alg: s.alg, kid: s.kid, signedAt: s.signedAt, sig: s.sig };
}

export function hasOrder(ce: CloudEvent): boolean {
  return typeof ce.subject === 'string' && typeof ce.cookwalaseq === 'number';
}
