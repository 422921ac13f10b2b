// The sorted digest files of an incremental audit (digest-file.ts): the prefixes read across chunk
// boundaries and refused when short or out of order; a digest found among many that share its
// 32-bit prefix (more than one probe read) and not found when only its prefix is there; the k-way
// merge equal to the sorted union of its sources (each digest once), over pieces, and refusing a
// source out of order.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { closeSync, openSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpDir } from '../testkit/tmp.ts';
import { CHUNK_BYTES, hasDigest, memoryReadAt, mergeDigests, readPrefixes, type DigestSource } from './digest-file.ts';

/** The file bytes of these digests, in the order given: 8 bytes each, little-endian. */
function bytesOf(ds: readonly bigint[]): Buffer {
  const b = Buffer.alloc(ds.length * 8);
  ds.forEach((d, i) => b.writeBigUInt64LE(d, i * 8));
  return b;
}
const sourceOf = (ds: readonly bigint[]): DigestSource => ({ read: memoryReadAt(bytesOf(ds)), count: ds.length });
const d = (hi: number, lo: number) => (BigInt(hi) << 32n) | BigInt(lo);
const sortedUnique = (ds: Iterable<bigint>) => [...new Set(ds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

async function merged(sources: DigestSource[]): Promise<{ digests: bigint[]; count: number; pieces: number }> {
  const out = { count: 0 };
  const parts: Buffer[] = [];
  for await (const piece of mergeDigests(sources, out)) parts.push(Buffer.from(piece)); // a piece is reused: copy it
  const all = Buffer.concat(parts);
  const digests: bigint[] = [];
  for (let i = 0; i < all.length; i += 8) digests.push(all.readBigUInt64LE(i));
  return { digests, count: out.count, pieces: parts.length };
}

describe('readPrefixes', () => {
  it('reads the high halves across chunk boundaries', async () => {
    const n = (CHUNK_BYTES / 8) * 2 + 77;
    const ds = Array.from({ length: n }, (_, i) => d(i * 3 + 1, (i * 2654435761) >>> 0));
    const r = await readPrefixes(sourceOf(ds).read, n);
    if (!r.ok) throw new Error(r.detail);
    expect(r.prefixes.length).toBe(n);
    expect([r.prefixes[0], r.prefixes[CHUNK_BYTES / 8], r.prefixes[n - 1]]).toEqual([1, (CHUNK_BYTES / 8) * 3 + 1, (n - 1) * 3 + 1]);
  });

  it('refuses digests out of order, a repeated one, and a file shorter than its count', async () => {
    const at = (ds: bigint[], count = ds.length) => readPrefixes(sourceOf(ds).read, count);
    expect(await at([d(1, 5), d(1, 4)])).toEqual({ ok: false, detail: 'is not sorted' });
    expect(await at([d(1, 5), d(0, 9)])).toEqual({ ok: false, detail: 'is not sorted' });
    expect(await at([d(1, 5), d(1, 5)])).toEqual({ ok: false, detail: 'is not sorted' });
    expect(await at([d(1, 5), d(2, 0)], 3)).toEqual({ ok: false, detail: 'holds 16 bytes, not 3 digests' });
    expect((await at([])).ok).toBe(true);
  });
});

describe('hasDigest', () => {
  it('finds a digest among many sharing its prefix, and no digest whose prefix alone is there', async () => {
    const dir = await tmpDir('cookwala-digests-');
    // 150 digests share the prefix 7: more than one probe read.
    const ds = [d(3, 1), ...Array.from({ length: 150 }, (_, i) => d(7, i * 2 + 1)), d(9, 0), d(0xffffffff, 0xffffffff)];
    const path = join(dir, 'side');
    await writeFile(path, bytesOf(ds));
    const r = await readPrefixes(sourceOf(ds).read, ds.length);
    if (!r.ok) throw new Error(r.detail);
    const fd = openSync(path, 'r');
    try {
      const idx = { fd, prefixes: r.prefixes, name: path };
      for (const x of ds) expect(hasDigest(idx, Number(x >> 32n), Number(x & 0xffffffffn))).toBe(true);
      for (const [hi, lo] of [
        [7, 0],
        [7, 2],
        [7, 300],
        [3, 0],
        [4, 1],
        [0, 0],
        [0xffffffff, 0],
      ])
        expect(hasDigest(idx, hi, lo), `${hi}:${lo}`).toBe(false);
    } finally {
      closeSync(fd);
    }
  });
});

describe('mergeDigests', () => {
  it('is the sorted union of its sources, each digest once', async () => {
    // Small halves, so that sources share digests and prefixes.
    const digest = fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 })).map(([hi, lo]) => d(hi, lo));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(digest, { maxLength: 30 }), { maxLength: 6 }), async (lists) => {
        const sources = lists.map((l) => sourceOf(sortedUnique(l)));
        const m = await merged(sources);
        const want = sortedUnique(lists.flat());
        expect(m.digests).toEqual(want);
        expect(m.count).toBe(want.length);
      }),
      { numRuns: 300 },
    );
  });

  it('streams a union larger than one piece in pieces', async () => {
    const per = CHUNK_BYTES / 8;
    const a = Array.from({ length: per }, (_, i) => d(i, 1));
    const b = Array.from({ length: per }, (_, i) => d(i, 2));
    const c = Array.from({ length: 1000 }, (_, i) => d(i * 5, 1)); // all in a already
    const m = await merged([sourceOf(a), sourceOf(b), sourceOf(c)]);
    expect(m.count).toBe(2 * per);
    expect(m.pieces).toBe(2);
    expect(m.digests.slice(0, 4)).toEqual([d(0, 1), d(0, 2), d(1, 1), d(1, 2)]);
    expect(m.digests.at(-1)).toBe(d(per - 1, 2));
  });

  it('refuses a source out of order, and one shorter than its count', async () => {
    await expect(merged([sourceOf([d(1, 1), d(5, 1)]), sourceOf([d(3, 1), d(2, 1)])])).rejects.toThrow('not sorted');
    await expect(merged([{ read: memoryReadAt(bytesOf([d(1, 1)])), count: 2 }])).rejects.toThrow('fewer than its 2 digests');
  });
});
