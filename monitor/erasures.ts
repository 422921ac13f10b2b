// monitor/erasures.ts: the payloads a monitor found missing (erased) when it checked their entries,
// before the erasure entry naming them was in a verified checkpoint (docs/monitoring.md "Erased
// payloads", docs/design.md §4: an erasure is an entry appended after the one it erases, so a
// reader can meet the gap a checkpoint earlier than its explanation). Each waits, in the state,
// for the sequencer-signed `cookwala.log.erased` entry that names its seq and eventHash: the
// verifier's entry checker asks markErased when such an entry names a seq before its resume point
// (verifier/bundle/payload-lines.ts EarlierMissing), which clears it. One whose bound passes first
// (`withinEntries` more verified entries, or `withinMs` since it was found) is due: the follower
// reports it as the full audit does, `payload_missing` with its seq. Bounded: at most `cap` seqs
// wait (the first found); the ones past it are counted in `dropped` and not matched.
// Left out: payloads erased after their entry was checked (the monitor saw them present; their
// erasure entry is checked as an entry), the matching within one step (the entry checker's own).
// Invariant: a seq waits at most once, with the eventHash of its entry as checked.

import { toHex } from '../verifier/encoding/index.ts';
import type { EarlierMissing, MarkResult } from '../verifier/bundle/index.ts';

/** At most this many seqs wait per log; past it they are counted, not kept. */
export const MAX_WAITING_ERASURES = 10_000;
export const DEFAULT_ERASURE_WITHIN_MS = 10 * 60_000;
export const DEFAULT_ERASURE_WITHIN_ENTRIES = 1_000_000;

/** [seq, hex eventHash, the size of the checkpoint whose step found it, when (ms)]. */
export type WaitingErasure = [number, string, number, number];

/** Its form in the state file (absent while nothing waits and nothing was dropped). */
export interface ErasureWaitState {
  waiting: WaitingErasure[];
  dropped: number;
}

export interface ErasureBounds {
  withinEntries: number;
  withinMs: number;
}

export interface ErasureWaits extends EarlierMissing {
  /**
   * The gaps the current step found and did not explain so far (seq, hex eventHash), replacing the
   * ones it reported before: a gap a later page of the step explains leaves this list.
   */
  setFound(found: ReadonlyArray<readonly [number, string]>, seenSize: number, seenAt: number): void;
  /** The waiting seqs whose bound passed at a verified checkpoint of `size` at `now`: removed and returned. */
  due(size: number, now: number): WaitingErasure[];
  snapshot(): ErasureWaitState | undefined;
  readonly dropped: number;
  readonly size: number;
}

export function createErasureWaits(from: ErasureWaitState | undefined, bounds: ErasureBounds, cap = MAX_WAITING_ERASURES): ErasureWaits {
  // Found by earlier steps (the state), and by this step (replaced as its pages go).
  const earlier = new Map<number, WaitingErasure>();
  for (const w of from?.waiting ?? []) if (earlier.size < cap) earlier.set(w[0], w);
  let found: WaitingErasure[] = [];
  const droppedBefore = from?.dropped ?? 0;
  let droppedNow = 0;

  return {
    markErased(seq: number, eventHash: Uint8Array): MarkResult {
      const w = earlier.get(seq);
      if (!w) return { ok: false, why: 'not_missing' };
      if (w[1] !== toHex(eventHash)) return { ok: false, why: 'hash_differs' };
      earlier.delete(seq);
      return { ok: true };
    },
    setFound(list, seenSize, seenAt) {
      const kept = new Map(found.map((w) => [w[0], w]));
      found = [];
      droppedNow = 0;
      for (const [seq, hash] of list) {
        if (earlier.has(seq)) continue;
        if (earlier.size + found.length >= cap) {
          droppedNow++;
          continue;
        }
        found.push(kept.get(seq) ?? [seq, hash, seenSize, seenAt]);
      }
    },
    due(size, now) {
      const out: WaitingErasure[] = [];
      const isDue = (w: WaitingErasure) => size - w[2] >= bounds.withinEntries || now - w[3] >= bounds.withinMs;
      for (const [seq, w] of earlier)
        if (isDue(w)) {
          earlier.delete(seq);
          out.push(w);
        }
      const stay = found.filter((w) => !isDue(w));
      out.push(...found.filter(isDue));
      found = stay;
      return out.sort((a, b) => a[0] - b[0]);
    },
    snapshot() {
      const waiting = [...earlier.values(), ...found].sort((a, b) => a[0] - b[0]);
      const dropped = droppedBefore + droppedNow;
      return waiting.length === 0 && dropped === 0 ? undefined : { waiting, dropped };
    },
    get dropped() {
      return droppedBefore + droppedNow;
    },
    get size() {
      return earlier.size + found.length;
    },
  };
}
