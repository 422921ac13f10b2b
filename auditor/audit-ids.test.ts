// The (source, id) pairs of an incremental audit (audit-ids.ts) across resume points, against an
// independent reference of the documented digest (the first 8 bytes of SHA-256(salt ||
// u32be(byte length of source) || source || id), sorted, little-endian): a pair of an earlier run
// is refused and a new one taken, however the new digests spill (runs of a few digests in a real
// spill directory) and however many repeat within the run; the saved side file is exactly the
// sorted union; a run that spills nothing leaves the spill directory unmade; and a state whose
// side file is missing, of the wrong size or out of order is unusable input.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { tmpDir } from '../testkit/tmp.ts';
import { createSpillDir } from './spill-dir.ts';
import { openAuditIds, type AuditIdsRef } from './audit-ids.ts';
import { InputError } from './trust-files.ts';

type Pair = [string, string];

function reference(saltHex: string, [source, id]: Pair): bigint {
  const s = Buffer.from(source, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(s.length);
  return createHash('sha256').update(Buffer.from(saltHex, 'hex')).update(len).update(s).update(id).digest().readBigUInt64BE(0);
}

function fileOf(ds: Iterable<bigint>): Buffer {
  const sorted = [...new Set(ds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const b = Buffer.alloc(sorted.length * 8);
  sorted.forEach((d, i) => b.writeBigUInt64LE(d, i * 8));
  return b;
}

/** One audit run over `pairs`: what add() said of each, and the state's new ref. */
async function run(dir: string, state: string, ref: AuditIdsRef | undefined, pairs: Pair[], seq: number, runDigests: number) {
  const spill = createSpillDir(dir);
  const ids = await openAuditIds(state, ref, { sink: spill, runDigests });
  try {
    const took = pairs.map(([s, i]) => ids.add(s, i));
    const count = ids.count;
    const now = await ids.save(state, seq);
    return { took, count, now, salt: ids.salt, spilled: spill.path !== undefined };
  } finally {
    await ids.close();
    await spill.dispose();
  }
}

const pair = fc.tuple(fc.constantFrom('urn:dev:1', 'urn:dev:2', 'urn:dév:3', ''), fc.string({ maxLength: 3 }));

describe('openAuditIds', () => {
  it('refuses the pairs of earlier runs and saves the sorted union, however the new digests spill', async () => {
    const dir = await tmpDir('cookwala-audit-ids-');
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(pair, { maxLength: 40 }),
        fc.array(pair, { maxLength: 40 }),
        fc.integer({ min: 1, max: 9 }),
        async (first, second, runDigests) => {
          const state = join(dir, `state-${n++}.json`);
          const a = await run(dir, state, undefined, first, 1, runDigests);
          expect(a.took.every(Boolean)).toBe(true); // a first audit has no earlier pairs (repeats within it are the run's own set's)
          const firstDigests = first.map((p) => reference(a.salt, p));
          expect(await readFile(join(dir, a.now.file))).toEqual(fileOf(firstDigests));
          expect(a.now).toEqual({ salt: a.salt, file: `${basename(state)}.ids-1`, count: new Set(firstDigests).size });

          const b = await run(dir, state, a.now, second, 2, runDigests);
          expect(b.salt).toBe(a.salt);
          const earlier = new Set(firstDigests);
          expect(b.took).toEqual(second.map((p) => !earlier.has(reference(a.salt, p))));
          const union = fileOf([...firstDigests, ...second.map((p) => reference(a.salt, p))]);
          expect(await readFile(join(dir, b.now.file))).toEqual(union);
          expect(b.now.count).toBe(union.length / 8);
        },
      ),
      { numRuns: 60 },
    );
    // Every spill directory went with its run.
    expect((await readdir(dir)).filter((f) => f.startsWith('cookwala-verify-'))).toEqual([]);
  });

  it('spills the new digests only past a run, and a small run touches no spill directory', async () => {
    const dir = await tmpDir('cookwala-audit-ids-');
    const state = join(dir, 'state.json');
    const pairs: Pair[] = Array.from({ length: 10 }, (_, i) => ['urn:dev:1', `e-${i}`]);
    expect((await run(dir, state, undefined, pairs, 10, 16)).spilled).toBe(false);
    const spilled = await run(dir, state, undefined, pairs, 10, 4);
    expect(spilled.spilled).toBe(true);
    expect(spilled.now.count).toBe(10);
  });

  it('refuses a side file that is missing, of the wrong size or out of order, as unusable input', async () => {
    const dir = await tmpDir('cookwala-audit-ids-');
    const state = join(dir, 'state.json');
    const salt = '00'.repeat(16);
    const open = (ref: AuditIdsRef) => openAuditIds(state, ref, { sink: createSpillDir(dir) });
    await expect(open({ salt, file: 'gone', count: 0 })).rejects.toThrow(/cannot read its \(source, id\) file gone/);
    await writeFile(join(dir, 'short'), Buffer.alloc(12));
    await expect(open({ salt, file: 'short', count: 2 })).rejects.toThrow('short holds 12 bytes, not 2 digests');
    const unsorted = Buffer.alloc(16);
    unsorted.writeBigUInt64LE(5n, 0);
    unsorted.writeBigUInt64LE(4n, 8);
    await writeFile(join(dir, 'unsorted'), unsorted);
    await expect(open({ salt, file: 'unsorted', count: 2 })).rejects.toThrow('unsorted is not sorted');
    await expect(open({ salt: 'xyz', file: 'unsorted', count: 2 })).rejects.toThrow('ids is not {salt, file, count}');
    await expect(open({ salt, file: '../unsorted', count: 2 })).rejects.toBeInstanceOf(InputError);
    const ok = await open({ salt, file: 'unsorted', count: 0 }).catch((e: Error) => e);
    expect(ok).toBeInstanceOf(InputError); // 16 bytes are not 0 digests
  });
});
