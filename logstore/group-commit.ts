// logstore/group-commit.ts: group commit for appends (docs/design.md §5 "concurrent requests share one
// synced write batch", §6): the planning of one group. Appends that arrive while a batch is being
// written queue up (append-queue.ts); the next batch takes them, in call order, each planned on
// the head the previous one left, and writes them with ONE fsync. Each append keeps its own
// outcome: one that does not chain, repeats a (source, id) already stored or earlier in the group,
// or cannot be encoded is refused alone, and the appends after it are planned as if it had never
// been asked (so one built on top of it is refused too, by checkLink). Leaves out the I/O
// (append-queue.ts reads the index and writes). Invariant: the ops hold exactly the accepted
// appends, in order, ending with one head record for the last of them; a refused append
// contributes nothing.

import { ProtocolError } from '../verifier/index.ts';
import type { Frontier } from '../verifier/merkle/index.ts';
import type { AppendItem, Head } from './types.ts';
import { decodeDedup } from './values.ts';
import type { RecordLayout } from './keys.ts';
import { dedupKeyOf, headOp, planAppend, type DedupKey, type Op } from './append-plan.ts';

export type Outcome = { ok: true; head: Head } | { ok: false; error: ProtocolError };

export interface GroupPlan {
  /** Empty when no append was accepted. */
  ops: Op[];
  head: Head;
  frontier: Frontier;
  outcomes: Outcome[];
  /** The dedup keys (latin1 strings) of the accepted appends; the caller adds them to its `pending`. */
  added: string[];
}

/** Per append, per item: its dedup key (dedupKeyOf), computed once and shared by the index read and the plans. */
export type MemberKeys = Array<Array<DedupKey | undefined>>;

export function memberKeysOf(members: ReadonlyArray<readonly AppendItem[]>): MemberKeys {
  return members.map((items) => items.map(dedupKeyOf));
}

/**
 * Plan a group of appends. `stored` maps dedup keys already on disk to their index value, and
 * `pending` holds those of appends planned earlier but not yet durable; an append naming either
 * is refused with duplicate_id (extra: source, id, and seq, eventHash of a stored prior).
 * `keys`, when given, is memberKeysOf(members). Neither `stored` nor `pending` is changed.
 */
export function planGroup(
  layout: RecordLayout,
  log: string,
  head: Head,
  frontier: Frontier,
  members: ReadonlyArray<readonly AppendItem[]>,
  stored: ReadonlyMap<string, Uint8Array>,
  pending: ReadonlySet<string> = new Set(),
  keys: MemberKeys = memberKeysOf(members),
): GroupPlan {
  const ops: Op[] = [];
  const seen = new Set<string>();
  const added: string[] = [];
  const outcomes: Outcome[] = [];
  let h = head;
  let f = frontier;
  for (let m = 0; m < members.length; m++) {
    const items = members[m];
    if (items.length === 0) {
      outcomes.push({ ok: true, head: { ...h } });
      continue;
    }
    const mine = keys[m];
    let clash: number = -1;
    for (let i = 0; i < mine.length && clash < 0; i++) {
      const k = mine[i]?.str;
      if (k !== undefined && (stored.has(k) || pending.has(k) || seen.has(k))) clash = i;
    }
    if (clash >= 0) {
      const k = mine[clash]!.str;
      const { source, id } = items[clash].dedup!;
      const prior = stored.get(k);
      const where = prior ? `is already at seq ${decodeDedup(prior).seq}` : 'is also in an earlier append not yet written';
      outcomes.push({
        ok: false,
        error: new ProtocolError('duplicate_id', `(source, id) = (${JSON.stringify(source)}, ${JSON.stringify(id)}) ${where}`, {
          source,
          id,
          ...(prior ? decodeDedup(prior) : {}),
        }),
      });
      continue;
    }
    const before = ops.length;
    let plan: ReturnType<typeof planAppend>;
    try {
      plan = planAppend(layout, log, h, f, items, mine, ops);
    } catch (e) {
      ops.length = before;
      outcomes.push({ ok: false, error: new ProtocolError('invalid_document', (e as Error).message) });
      continue;
    }
    if (!plan.ok) {
      outcomes.push({ ok: false, error: ProtocolError.from(plan) });
      continue;
    }
    for (const k of mine)
      if (k !== undefined) {
        seen.add(k.str);
        added.push(k.str);
      }
    h = plan.value.head;
    f = plan.value.frontier;
    outcomes.push({ ok: true, head: { ...h } });
  }
  if (ops.length > 0) ops.push(headOp(h));
  return { ops, head: h, frontier: f, outcomes, added };
}
