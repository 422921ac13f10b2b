// The entries+payloads oracle of the export and the entries route (entries-with-payloads.ts) on an
// in-memory store of the two scans it reads: every entry of the range once, in order, each with
// the payload of its own seq and only that one, none where the store holds none (erased, or never
// stored); and the payload scan closed whether the caller reads to the end, stops early, or the
// entry scan fails.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { LogStore } from '../logstore/index.ts';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import type { Entry } from '../verifier/documents/index.ts';
import { entriesWithPayloads } from './entries-with-payloads.ts';

interface MemoryStore extends Pick<LogStore, 'entries' | 'payloads'> {
  /** Payload scans opened and not yet closed. */
  open: number;
}

const eventOf = (seq: number) => ({ specversion: '1.0', id: `e-${seq}`, source: 'urn:test', type: 't', data: { seq } }) as CloudEvent;

/** A log of `n` entries whose payloads are those of `withPayload`; `failAt` makes the entry scan throw there. */
function memoryStore(n: number, withPayload: ReadonlySet<number>, failAt?: number): MemoryStore {
  const s: MemoryStore = {
    open: 0,
    async *entries(from, to) {
      for (let seq = Math.max(1, from); seq <= Math.min(n, to); seq++) {
        if (seq === failAt) throw new Error(`entry scan failed at ${seq}`);
        yield { seq } as unknown as Entry;
      }
    },
    async *payloads(from, to) {
      s.open++;
      try {
        for (let seq = Math.max(1, from); seq <= Math.min(n, to); seq++) if (withPayload.has(seq)) yield { seq, event: eventOf(seq) };
      } finally {
        s.open--;
      }
    },
  };
  return s;
}

async function collect(store: MemoryStore, from: number, to: number): Promise<Array<[number, CloudEvent | undefined]>> {
  const out: Array<[number, CloudEvent | undefined]> = [];
  for await (const { entry, payload } of entriesWithPayloads(store, from, to)) out.push([entry.seq, payload]);
  return out;
}

describe('entriesWithPayloads', () => {
  it('yields every entry of the range once, in order, with its own payload or none', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.integer({ min: 1, max: 40 })),
        fc.integer({ min: 1, max: 45 }),
        fc.integer({ min: 0, max: 45 }),
        async (n, kept, from, to) => {
          const withPayload = new Set(kept.filter((s) => s <= n));
          const store = memoryStore(n, withPayload);
          const got = await collect(store, from, to);
          const want: Array<[number, CloudEvent | undefined]> = [];
          for (let seq = from; seq <= Math.min(n, to); seq++) want.push([seq, withPayload.has(seq) ? eventOf(seq) : undefined]);
          expect(got).toEqual(want);
          expect(store.open).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an entry whose payload is missing comes without one, and the next payload still pairs with its own entry', async () => {
    const got = await collect(memoryStore(6, new Set([1, 2, 5])), 1, 6);
    expect(got.map(([seq, p]) => `${seq}:${p ? (p.data as { seq: number }).seq : '-'}`)).toEqual([
      '1:1',
      '2:2',
      '3:-',
      '4:-',
      '5:5',
      '6:-',
    ]);
  });

  it('closes the payload scan when the caller stops early', async () => {
    const store = memoryStore(10, new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    const seen: number[] = [];
    for await (const { entry } of entriesWithPayloads(store, 1, 10)) {
      seen.push(entry.seq);
      expect(store.open).toBe(1);
      if (entry.seq === 3) break;
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(store.open).toBe(0);
  });

  it('closes the payload scan and passes the error on when the entry scan fails', async () => {
    const store = memoryStore(10, new Set([2, 4, 6]), 5);
    await expect(collect(store, 1, 10)).rejects.toThrow('entry scan failed at 5');
    expect(store.open).toBe(0);
  });
});
