// monitor/id-window.test.ts: the (source, id) window against a plain model (an array of hex digests
// with includes, push and shift): every add's verdict, the size and the snapshot agree after each
// step, through restarts from a snapshot (the state file) and from windows crafted so that their
// digests crowd a few slots of the table (long probe runs, wrap-around, backward-shift deletion).
// fast-check prints the seed of a failure; FC_SEED replays it (test/fast-check-setup.ts).

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createIdWindow } from './id-window.ts';

const SALT = '000102030405060708090a0b0c0d0e0f';

function refDigest(source: string, id: string): string {
  const s = Buffer.from(source, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(s.length);
  const h = createHash('sha256').update(Buffer.from(SALT, 'hex')).update(len).update(s).update(Buffer.from(id, 'utf8')).digest('hex');
  return h.slice(0, 16);
}

/** The model: the last `size` distinct digests, oldest first. */
function model(size: number, from: string[]) {
  const order: string[] = [];
  for (const d of from.slice(-size)) if (/^[0-9a-f]{16}$/.test(d) && !order.includes(d)) order.push(d);
  return {
    order,
    add(source: string, id: string): boolean {
      const d = refDigest(source, id);
      if (order.includes(d)) return false;
      order.push(d);
      if (order.length > size) order.shift();
      return true;
    },
  };
}

type Op = { kind: 'add'; source: string; id: string } | { kind: 'restart' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({ kind: fc.constant('add' as const), source: fc.constantFrom('a', 'b', 'ü/β'), id: fc.nat(40).map(String) }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

/**
 * Digests that share their low bits, so most of them start probing at the same few slots: the
 * first and the last of a table of 16, 32 or 64 slots, so probe runs wrap around its end.
 */
const LOW = [0, 1, 2, 13, 14, 15, 29, 30, 31, 61, 62, 63];
const crowded = fc.array(
  fc
    .tuple(fc.constantFrom(...LOW), fc.nat(0xffff))
    .map(([low, high]) => '00000000' + (((high << 16) | low) >>> 0).toString(16).padStart(8, '0')),
  { maxLength: 40 },
);

/**
 * Ids whose digests (source 'c') start probing at the last two or the first slot of a table of 16
 * slots (a window of 1 to 8): long runs that wrap around the table's end, whose deletions shift
 * entries back across it, and whose every entry is looked up again by a repeat.
 */
const home16 = (d: string) => (parseInt(d.slice(0, 8), 16) ^ parseInt(d.slice(8), 16)) & 15;
const WRAPPING = Array.from({ length: 2000 }, (_, i) => String(i))
  .filter((id) => [14, 15, 0].includes(home16(refDigest('c', id))))
  .slice(0, 12);
const wrappingOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('add' as const), source: fc.constant('c'), id: fc.constantFrom(...WRAPPING) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

function run(size: number, start: string[], ops: Op[]): void {
  const m = model(size, start);
  let w = createIdWindow(size, { salt: SALT, window: start });
  expect(w.snapshot().window).toEqual(m.order);
  for (const o of ops) {
    if (o.kind === 'restart') w = createIdWindow(size, w.snapshot());
    else expect(w.add(o.source, o.id)).toBe(m.add(o.source, o.id));
    expect(w.size).toBe(m.order.length);
    expect(w.snapshot()).toEqual({ salt: SALT, window: m.order });
  }
}

describe('id window', () => {
  it('agrees with the plain model through adds and restarts', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 }), fc.array(op, { maxLength: 300 }), (size, ops) => run(size, [], ops)),
      { numRuns: 200 },
    );
  });

  it('agrees with the model from a crowded window in the state', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 24 }), crowded, fc.array(op, { maxLength: 200 }), (size, start, ops) => run(size, start, ops)),
      { numRuns: 200 },
    );
  });

  it('agrees with the model when every digest crowds the end of the table', () => {
    expect(WRAPPING.length).toBe(12);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(wrappingOp, { maxLength: 300 }), (size, ops) => run(size, [], ops)),
      { numRuns: 500 },
    );
  });

  it('skips what is not a digest in a stored window and keeps the newest `size`', () => {
    const w = createIdWindow(2, {
      salt: SALT,
      window: ['00000000000000aa', 'XYZ', '00000000000000AB', '00000000000000bb', '00000000000000cc'],
    });
    expect(w.snapshot().window).toEqual(['00000000000000bb', '00000000000000cc']);
  });

  it('finds a repeat inside the window and forgets one beyond it', () => {
    const w = createIdWindow(3, { salt: SALT, window: [] });
    expect(w.add('s', '1')).toBe(true);
    expect(w.add('s', '1')).toBe(false);
    for (const id of ['2', '3', '4']) expect(w.add('s', id)).toBe(true);
    expect(w.add('s', '1')).toBe(true);
    expect(w.snapshot().window).toEqual(['3', '4', '1'].map((id) => refDigest('s', id)));
  });
});
