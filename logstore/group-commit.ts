// logstore/group-commit.ts: group commit for appends (DESIGN §5 "concurrent requests share one
// synced write batch", §6): the planning of one group. Appends that arrive while a batch is being
// written queue up (append-queue.ts); the next batch takes them, in call order, each planned on
// the head the previous one left, and writes them with ONE fsync. Each append keeps its own
// outcome: one that does not chain, repeats a (source, id) already stored or earlier in the group,
// or cannot be encoded is refused alone, and the appends after it are planned as if it had never
// been asked (so one built on top of it is refused too, by checkLink). Leaves out the I/O
// (append-queue.ts reads the index and writes). Invariant: the ops hold exactly the accepted
// appends, in order, ending with one head record for the last of them; a refused append
// contributes nothing.

import { ProtocolError } from '../verifier/errors.ts';
import type { Frontier } from '../verifier/merkle/index.ts';
import type { AppendItem, Head } from './types.ts';
import { dedupKey } from './keys.ts';
import { decodeDedup } from './values.ts';
import { headOp, planAppend, type Op } from './append-plan.ts';

export type Outcome = { ok: true; head: Head } | { ok: false; error: ProtocolError };

export interface GroupPlan {
  /** Empty when no append was accepted. */
  ops: Op[];
  head: Head;
  frontier: Frontier;
  outcomes: Outcome[];
  /** `pending` plus the dedup keys of the accepted appends. */
  seen: Set<string>;
}

/** The dedup keys (latin1 strings, for Map/Set use) an append would write; malformed pairs skipped (planAppend refuses them). */
export function dedupKeysOf(items: readonly AppendItem[]): string[] {
  const out: string[] = [];
  for (const it of items) {
    const d = it?.dedup;
    if (d && typeof d.source === 'string' && typeof d.id === 'string') out.push(dedupKey(d.source, d.id).toString('latin1'));
  }
  return out;
}

/**
 * Plan a group of appends. `stored` maps dedup keys already on disk to their index value, and
 * `pending` holds those of appends planned earlier but not yet durable; an append naming either
 * is refused with duplicate_id (extra: source, id, and seq, eventHash of a stored prior).
 */
export function planGroup(
  log: string,
  head: Head,
  frontier: Frontier,
  members: ReadonlyArray<readonly AppendItem[]>,
  stored: ReadonlyMap<string, Uint8Array>,
  pending: ReadonlySet<string> = new Set(),
): GroupPlan {
  const ops: Op[] = [];
  const seen = new Set<string>(pending);
  const outcomes: Outcome[] = [];
  let h = head;
  let f = frontier;
  for (const items of members) {
    if (items.length === 0) {
      outcomes.push({ ok: true, head: { ...h } });
      continue;
    }
    const keys = dedupKeysOf(items);
    const clash = keys.find((k) => stored.has(k) || seen.has(k));
    if (clash !== undefined) {
      const { source, id } = items.find((it) => it.dedup && dedupKey(it.dedup.source, it.dedup.id).toString('latin1') === clash)!.dedup!;
      const prior = stored.get(clash);
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
    let plan: ReturnType<typeof planAppend>;
    try {
      plan = planAppend(log, h, f, items);
    } catch (e) {
      outcomes.push({ ok: false, error: new ProtocolError('invalid_document', (e as Error).message) });
      continue;
    }
    if (!plan.ok) {
      outcomes.push({ ok: false, error: ProtocolError.from(plan) });
      continue;
    }
    for (const op of plan.value.ops) ops.push(op);
    for (const k of keys) seen.add(k);
    h = plan.value.head;
    f = plan.value.frontier;
    outcomes.push({ ok: true, head: { ...h } });
  }
  if (ops.length > 0) ops.push(headOp(h));
  return { ops, head: h, frontier: f, outcomes, seen };
}
