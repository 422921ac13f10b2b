// logstore/append-queue.ts: the append path of the store (docs/design.md §5 group commit, §6). Appends
// queue; a turn (run in the store's write order) takes the queued appends, up to GROUP_ENTRIES
// entries, as one group, plans it (group-commit.ts) and writes it as ONE synced batch. While a
// group's batch is being written the next group is already planned on the head that batch will
// leave, so hashing and encoding overlap the disk; batches are still issued strictly one after
// another, and a group planned on a batch that then fails goes back to the queue, to be planned
// again on the durable head. A turn handles a bounded number of groups, so checkpoints and
// erasures queued meanwhile get their turn. Leaves out the batch writing itself and the poisoning
// (deps.write). Invariant: the durable head only moves forward, batch after batch, and an append
// resolves only once the batch holding it is durable.

import type { Frontier } from '../verifier/merkle/index.ts';
import type { AppendItem, Head } from './types.ts';
import type { Op } from './append-plan.ts';
import { memberKeysOf, planGroup, type Outcome } from './group-commit.ts';
import type { RecordLayout } from './keys.ts';

export interface AppendQueueDeps {
  /** Where the store keeps its per-entry records. */
  layout: RecordLayout;
  /** Runs fn after every write the store was asked for earlier. */
  exclusive(fn: () => Promise<void>): Promise<void>;
  /** The durable state to plan on; throws when the store cannot take writes. */
  state(): { log: string; head: Head; frontier: Frontier };
  readIndex(keys: Buffer[]): Promise<Array<Uint8Array | undefined>>;
  /** One synced batch; throws on failure. */
  write(ops: Op[]): Promise<void>;
  /** Called once a batch is durable, before the appends in it resolve. */
  commit(head: Head, frontier: Frontier): void;
}

interface Waiting {
  items: AppendItem[];
  resolve(h: Head): void;
  reject(e: unknown): void;
}

/** Groups one turn handles before yielding to other writes. */
const GROUPS_PER_TURN = 16;
/**
 * Entries per batch, at most (a single larger append is never split). Bounding the group keeps
 * the pipeline moving: while one group is on its way to disk, the appends behind it are planned.
 */
export const GROUP_ENTRIES = 256;

function settle(group: Waiting[], outcomes: Outcome[], failure?: unknown): void {
  outcomes.forEach((o, i) => {
    if (!o.ok) group[i].reject(o.error);
    else if (failure !== undefined) group[i].reject(failure);
    else group[i].resolve(o.head);
  });
}

export function createAppendQueue(deps: AppendQueueDeps): { append(items: AppendItem[]): Promise<Head> } {
  const queued: Waiting[] = [];
  let scheduled = false;
  let wake: (() => void) | undefined;

  /** The queue's front: appends in call order up to GROUP_ENTRIES entries (at least one append). */
  function takeGroup(): Waiting[] {
    let n = 0;
    let k = 0;
    while (k < queued.length && (k === 0 || n + queued[k].items.length <= GROUP_ENTRIES)) n += queued[k++].items.length;
    return queued.splice(0, k);
  }

  function schedule(): void {
    scheduled = true;
    void deps.exclusive(async () => {
      try {
        await turn();
      } finally {
        scheduled = false;
        if (queued.length > 0) schedule();
      }
    });
  }

  async function turn(): Promise<void> {
    let planned: ReturnType<AppendQueueDeps['state']>;
    try {
      planned = deps.state();
    } catch (e) {
      for (const w of queued.splice(0)) w.reject(e);
      return;
    }
    const pending = new Set<string>();
    let inflight: Promise<unknown> = Promise.resolve();
    let writing = false;
    let failed: unknown;
    for (let g = 0; g < GROUPS_PER_TURN && failed === undefined;) {
      if (queued.length === 0) {
        if (!writing) break;
        // A batch is on its way to disk: plan whatever arrives meanwhile, or end with it.
        await Promise.race([inflight, new Promise<void>((r) => (wake = r))]);
        wake = undefined;
        continue;
      }
      g++;
      const group = takeGroup();
      const members = group.map((w) => w.items);
      let plan: ReturnType<typeof planGroup>;
      try {
        // Read the dedup index on LevelDB's thread while this one plans; a clash on disk (rare:
        // the sequencer looks ids up first) re-plans the group without the refused appends.
        // Each dedup key is computed once (memberKeysOf) for the read and both plans.
        const memberKeys = memberKeysOf(members);
        const byStr = new Map<string, Buffer>();
        for (const ks of memberKeys) for (const k of ks) if (k !== undefined) byStr.set(k.str, k.buf);
        const keys = [...byStr.keys()];
        const reading = keys.length ? deps.readIndex([...byStr.values()]) : Promise.resolve([]);
        reading.catch(() => undefined);
        plan = planGroup(deps.layout, planned.log, planned.head, planned.frontier, members, new Map(), pending, memberKeys);
        const stored = new Map<string, Uint8Array>();
        (await reading).forEach((v, i) => v && stored.set(keys[i], v));
        if (stored.size > 0)
          plan = planGroup(deps.layout, planned.log, planned.head, planned.frontier, members, stored, pending, memberKeys);
      } catch (e) {
        for (const w of group) w.reject(e);
        continue;
      }
      await inflight; // the previous batch is durable (or failed) before this one is issued
      if (failed !== undefined) {
        // Planned on a batch that failed: back to the front of the queue, to be planned again on
        // the durable head by the next turn (or refused there if the failure poisoned the store).
        queued.unshift(...group);
        break;
      }
      if (plan.ops.length === 0) {
        settle(group, plan.outcomes);
        continue;
      }
      const p = plan;
      planned = { log: planned.log, head: p.head, frontier: p.frontier };
      for (const k of p.added) pending.add(k);
      writing = true;
      inflight = deps.write(p.ops).then(
        () => {
          writing = false;
          deps.commit(p.head, p.frontier);
          settle(group, p.outcomes);
        },
        (e: unknown) => {
          writing = false;
          failed = e;
          settle(group, p.outcomes, e);
        },
      );
    }
    await inflight;
  }

  return {
    append(items: AppendItem[]): Promise<Head> {
      return new Promise<Head>((resolve, reject) => {
        queued.push({ items, resolve, reject });
        if (!scheduled) schedule();
        else wake?.();
      });
    },
  };
}
