// The payloads a monitor found erased, waiting for their erasure entries (erasures.ts): matched by
// seq and eventHash (another eventHash is hash_differs, an unknown seq not_missing), replaced as a
// step's pages go, due by verified entries or by time, capped with a count of the ones dropped,
// and carried through the state's form.

import { describe, expect, it } from 'vitest';
import { createErasureWaits, type WaitingErasure } from './erasures.ts';

const hash = (n: number) => new Uint8Array(32).fill(n);
const hex = (n: number) => Buffer.from(hash(n)).toString('hex');
const BOUNDS = { withinEntries: 100, withinMs: 60_000 };

describe('erasure waits', () => {
  it('clears a waiting seq when an erasure entry names it with its eventHash', () => {
    const w = createErasureWaits({ waiting: [[12, hex(1), 300, 1_000]], dropped: 0 }, BOUNDS);
    expect(w.markErased(12, hash(2), 310)).toEqual({ ok: false, why: 'hash_differs' });
    expect(w.markErased(13, hash(1), 310)).toEqual({ ok: false, why: 'not_missing' });
    expect(w.size).toBe(1);
    expect(w.markErased(12, hash(1), 310)).toEqual({ ok: true });
    expect(w.size).toBe(0);
    expect(w.snapshot()).toBeUndefined();
    expect(w.markErased(12, hash(1), 311)).toEqual({ ok: false, why: 'not_missing' });
  });

  it("keeps a step's gaps as its pages report them, the first sighting's size and time kept", () => {
    const w = createErasureWaits(undefined, BOUNDS);
    w.setFound([[5, hex(5)]], 1_000, 10);
    w.setFound(
      [
        [5, hex(5)],
        [7, hex(7)],
      ],
      1_000,
      20,
    );
    expect(w.snapshot()!.waiting).toEqual([
      [5, hex(5), 1_000, 10],
      [7, hex(7), 1_000, 20],
    ]);
    // A later page's erasure entry explained 5 within the step: it leaves the list.
    w.setFound([[7, hex(7)]], 1_000, 30);
    expect(w.snapshot()!.waiting).toEqual([[7, hex(7), 1_000, 20]]);
  });

  it('is due once the bound in verified entries or in time passed, and then no longer waits', () => {
    const waiting: WaitingErasure[] = [
      [3, hex(3), 200, 0],
      [4, hex(4), 250, 50_000],
    ];
    const w = createErasureWaits({ waiting, dropped: 0 }, BOUNDS);
    expect(w.due(299, 59_999)).toEqual([]);
    expect(w.due(300, 59_999)).toEqual([[3, hex(3), 200, 0]]);
    expect(w.due(300, 109_999)).toEqual([]);
    expect(w.due(300, 110_000)).toEqual([[4, hex(4), 250, 50_000]]);
    expect(w.size).toBe(0);
    // A gap this step found is due by the same rule.
    w.setFound([[9, hex(9)]], 400, 200_000);
    expect(w.due(499, 200_000)).toEqual([]);
    expect(w.due(500, 200_000)).toEqual([[9, hex(9), 400, 200_000]]);
  });

  it('keeps at most the cap, counts the ones past it, and carries the count in the state', () => {
    const w = createErasureWaits({ waiting: [[1, hex(1), 10, 0]], dropped: 0 }, BOUNDS, 3);
    w.setFound(
      [
        [2, hex(2)],
        [3, hex(3)],
        [4, hex(4)],
        [5, hex(5)],
      ],
      10,
      0,
    );
    expect(w.size).toBe(3);
    expect(w.dropped).toBe(2);
    const snap = w.snapshot()!;
    expect(snap.waiting.map((x) => x[0])).toEqual([1, 2, 3]);
    expect(snap.dropped).toBe(2);
    const again = createErasureWaits(snap, BOUNDS, 3);
    expect(again.dropped).toBe(2);
    expect(again.markErased(3, hash(3), 20)).toEqual({ ok: true });
    expect(again.snapshot()).toEqual({ waiting: [snap.waiting[0], snap.waiting[1]], dropped: 2 });
  });
});
