// The (source, id) set with a spill sink (id-set.ts, id-spill.ts), on the in-memory sink with
// tiny sizes so that the table is dropped early and many runs are written and compacted: every
// later copy of a pair is reported with its own seq and line, across the spill boundary in both
// directions, and nothing else; a backend whose digests collide on purpose (16 bits) shows that
// equal digests are only candidates, confirmed away by the strings; every spill file is removed
// after finish() and after dispose() (a run abandoned half way).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createIdSet, type IdDuplicate, type IdSpillOptions } from './id-set.ts';
import { createMemorySink } from './id-spill.ts';
import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';

/** node:crypto, but only 16 bits of each digest survive in the 8 the set uses: collisions galore. */
function collidingBackend(): CryptoBackend {
  const real = defaultBackend();
  return {
    ...real,
    sha256(d: Uint8Array) {
      const h = real.sha256(d);
      h.fill(0, 0, 6);
      return h;
    },
  };
}

async function run(
  pairs: Array<[string, string]>,
  spill: Omit<IdSpillOptions, 'sink'>,
  backend?: CryptoBackend,
): Promise<{ dups: IdDuplicate[]; sink: ReturnType<typeof createMemorySink>; runs: number; spilledAfter: number }> {
  const sink = createMemorySink();
  const set = createIdSet({ spill: { ...spill, sink }, backend });
  for (let i = 0; i < pairs.length; i++) {
    expect(set.add(pairs[i][0], pairs[i][1], i + 1, 2 * i + 4)).toBe(true); // spill mode decides at the end
    const w = set.wait();
    if (w) await w;
  }
  const dups: IdDuplicate[] = [];
  await set.finish((d) => dups.push(d));
  dups.sort((a, b) => a.seq - b.seq);
  return { dups, sink, runs: set.runsWritten, spilledAfter: set.spilledAfter };
}

/** What must be reported: every occurrence of a pair after its first, at (seq, line) of the copy. */
function expected(pairs: Array<[string, string]>): IdDuplicate[] {
  const seen = new Set<string>();
  const out: IdDuplicate[] = [];
  pairs.forEach(([source, id], i) => {
    const k = JSON.stringify([source, id]);
    if (seen.has(k)) out.push({ seq: i + 1, line: 2 * i + 4, source, id });
    seen.add(k);
  });
  return out;
}

describe('id set with a spill sink', () => {
  it('reports exactly the later copies, with their seq and line, whatever the sizes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom('s', 'src', 'ab', 'a'), fc.string({ maxLength: 3 })), { maxLength: 300 }),
        fc.constantFrom(16, 32, 1024),
        fc.integer({ min: 2, max: 40 }),
        fc.constantFrom(64, 100, 4096),
        fc.boolean(),
        async (pairs, tableSlots, runRecords, sideBuffer, colliding) => {
          const r = await run(pairs, { tableSlots, runRecords, sideBuffer }, colliding ? collidingBackend() : undefined);
          expect(r.dups).toEqual(expected(pairs));
          expect(r.sink.live).toBe(0);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('finds copies before, across and after the point where the table is dropped', async () => {
    const pairs: Array<[string, string]> = Array.from({ length: 2000 }, (_, i) => ['urn:cookwala:device:d1', `ev-${i}`]);
    pairs[700] = pairs[3]; // both long before the table (16 slots, 9 pairs) is dropped: a table candidate
    pairs[5] = pairs[4];
    pairs[1500] = ['urn:cookwala:device:d1', 'ev-1200']; // both after
    pairs[1999] = pairs[8]; // the last one against one of the first
    const r = await run(pairs, { tableSlots: 16, runRecords: 8, sideBuffer: 256 });
    expect(r.spilledAfter).toBe(10); // 16 slots at load 0.6
    expect(r.runs).toBeGreaterThan(200);
    expect(r.dups).toEqual(expected(pairs));
    expect(r.dups.map((d) => d.seq)).toEqual([6, 701, 1501, 2000]);
    expect(r.sink.live).toBe(0);
    expect(r.sink.created).toBeGreaterThan(200); // runs were written and compacted (FAN_IN at a time)
  });

  it('a source/id split that concatenates alike is no duplicate', async () => {
    const pairs: Array<[string, string]> = [
      ['ab', 'c'],
      ['a', 'bc'],
      ['abc', ''],
      ['', 'abc'],
      ['a\u0000b', 'c'],
      ['a', 'bc'],
    ];
    expect((await run(pairs, { tableSlots: 16, runRecords: 2 })).dups).toEqual([{ seq: 6, line: 14, source: 'a', id: 'bc' }]);
  });

  it('no false duplicate over 10^6 distinct pairs whose digests collide, with many runs spilled', async () => {
    const n = 1_000_000;
    const pairs: Array<[string, string]> = Array.from({ length: n }, (_, i) => [`urn:cookwala:device:d${i % 16}`, `ev-${i}`]);
    pairs.push(pairs[123_456], pairs[999_999]);
    const r = await run(pairs, { tableSlots: 1 << 12, runRecords: 1 << 12 }, collidingBackend());
    expect(r.runs).toBeGreaterThan(200);
    expect(r.dups).toEqual([
      { seq: n + 1, line: 2 * n + 4, source: 'urn:cookwala:device:d0', id: 'ev-123456' },
      { seq: n + 2, line: 2 * n + 6, source: 'urn:cookwala:device:d15', id: 'ev-999999' },
    ]);
    expect(r.sink.live).toBe(0);
  }, 120_000);

  it('with no duplicate and under the table cap, nothing is spilled; dispose() removes what a cut run left', async () => {
    const small = await run(
      Array.from({ length: 100 }, (_, i): [string, string] => ['s', `${i}`]),
      { tableSlots: 1024 },
    );
    expect(small).toMatchObject({ dups: [], runs: 0, spilledAfter: 0 });
    expect(small.sink.created).toBe(0); // the side records fitted the write buffer
    const sink = createMemorySink();
    const set = createIdSet({ spill: { sink, tableSlots: 16, runRecords: 4, sideBuffer: 64 } });
    for (let i = 0; i < 500; i++) {
      set.add('s', `${i % 300}`, i + 1, i + 1);
      await set.wait();
    }
    await set.dispose();
    expect(sink.created).toBeGreaterThan(20); // the side file and runs, some compacted
    expect(sink.live).toBe(0);
    expect(() => set.add('s', 'x')).toThrow(/finished/);
  });

  it('keeps its memory bound while spilling: the record buffer, not the pairs', async () => {
    const sink = createMemorySink();
    const set = createIdSet({ spill: { sink, tableSlots: 1 << 10, runRecords: 1 << 10 } });
    for (let i = 0; i < 50_000; i++) {
      set.add('urn:cookwala:device:d1', `ev-${i}`, i + 1, i + 1);
      await set.wait();
    }
    expect(set.bytes).toBeLessThanOrEqual(20 * (1 << 10));
    expect(set.size).toBe(50_000);
    let dups = 0;
    await set.finish(() => dups++);
    expect(dups).toBe(0);
    expect(sink.live).toBe(0);
  });
});
