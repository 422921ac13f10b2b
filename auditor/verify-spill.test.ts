// `cookwala verify`'s (source, id) check with its spill directory (verifyBundleFile, spill-dir.ts,
// verifier/bundle/id-set.ts) on generated bundles with tiny set sizes, so the table is dropped
// after a few dozen entries and runs spill to a real temp directory: duplicate pairs placed before,
// across and after that point are each reported as duplicate_id with the later entry's seq, line
// and {source, id}, exactly the failures the all-in-memory verifier (the browser's) names; a clean
// bundle stays valid; the spill directory is gone after the run, after a failing run, and after a
// run that throws half way. The sink itself: files appear only when first written, read back
// at offsets, and dispose() removes the directory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { generateLog } from '../testkit/log-generator.ts';
import { edit, entryLine, rechain } from '../testkit/audit.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { verifyBundleFile } from './verify.ts';
import { createSpillDir } from './spill-dir.ts';
import { createBundleVerifier } from '../verifier/bundle/verifier.ts';
import type { BundleFailure } from '../verifier/bundle/report.ts';
import type { WitnessPolicy } from '../verifier/documents/policy.ts';

let dir: string;
let spillParent: string;
let lines: string[];
let policy: WitnessPolicy;
let policyPath: string;
const SIZES = { tableSlots: 64, runRecords: 16, sideBuffer: 512 }; // the table is dropped at 39 pairs

beforeAll(async () => {
  dir = await makeTempDir('cookwala-verify-spill-');
  spillParent = join(dir, 'spill');
  await mkdir(spillParent);
  const g = generateLog({ events: 1000, checkpointEvery: 100 });
  lines = [...g.lines()].join('').split('\n');
  lines.pop();
  policy = g.policy;
  policyPath = join(dir, 'policy.json');
  await writeFile(policyPath, JSON.stringify(g.policy));
});
afterAll(async () => {
  await removeDir(dir);
});

/** Entry `to` takes the (source, id) of entry `from`; the chain is recomputed from there. */
function copyPair(ls: string[], from: number, to: number): string[] {
  const ce = JSON.parse(ls[entryLine(ls, from)]).ce;
  const i = entryLine(ls, to);
  return rechain(
    edit(ls, i, (d) => {
      d.ce.source = ce.source;
      d.ce.id = ce.id;
    }),
    i,
  );
}

async function file(name: string, ls: string[]): Promise<string> {
  const p = join(dir, name);
  await writeFile(p, ls.join('\n') + '\n');
  return p;
}

/** The all-in-memory verifier (what the browser page runs) on the same lines. */
async function inMemory(ls: string[]) {
  const v = createBundleVerifier({ policy });
  for (const l of ls) await v.line(l);
  return v.end();
}

const dupsOf = (fs: BundleFailure[]) => fs.filter((f) => f.kind === 'duplicate_id');

describe('verify with the (source, id) set spilling', () => {
  it('reports duplicates before, across and after the spill point, as the in-memory verifier does', async () => {
    let ls = copyPair(lines, 5, 20); // both within the table: a candidate confirmed at the end
    ls = copyPair(ls, 10, 700); // across: the first is long spilled as a run
    ls = copyPair(ls, 400, 950); // both after
    const path = await file('dups.ndjson', ls);
    const r = await verifyBundleFile(path, { policyPath, spillDir: spillParent, idSet: SIZES, workers: 0 });
    const dups = dupsOf(r.failures);
    expect(dups.map((f) => f.seq)).toEqual([20, 700, 950]);
    const src = (seq: number) => JSON.parse(ls[entryLine(ls, seq)]).ce;
    expect(dups[1]).toEqual({
      kind: 'duplicate_id',
      seq: 700,
      line: entryLine(ls, 700) + 1,
      found: { source: src(10).source, id: src(10).id },
      detail: 'entry 700: (source, id) was already sequenced',
    });
    expect(dups).toEqual(dupsOf((await inMemory(ls)).failures));
    expect(r.exitCode).toBe(1);
    expect(r.notes.join('\n')).toMatch(/after the first 39 were checked in \d+ sorted runs on disk/);
    expect(await readdir(spillParent)).toEqual([]);
  });

  it('a clean bundle that spills is valid and leaves no file; with default sizes it spills nothing', async () => {
    const path = await file('clean.ndjson', lines);
    const r = await verifyBundleFile(path, { policyPath, spillDir: spillParent, idSet: SIZES });
    expect(r.exitCode).toBe(0);
    expect(r.failuresTotal).toBe(0);
    expect(r.notes.some((n) => n.includes('sorted runs on disk'))).toBe(true);
    expect(r.memory.idSetBytes).toBeLessThanOrEqual(20 * 16);
    expect(await readdir(spillParent)).toEqual([]);
    const d = await verifyBundleFile(path, { policyPath, spillDir: spillParent, workers: 0 });
    expect(d.exitCode).toBe(0);
    expect(d).toMatchObject({ memory: (await inMemory(lines)).memory, notes: (await inMemory(lines)).notes });
  });

  it('removes the spill directory when the run throws half way', async () => {
    const path = await file('cut.ndjson', copyPair(lines, 3, 600));
    let during: string[] = [];
    let calls = 0;
    await expect(
      verifyBundleFile(path, {
        policyPath,
        spillDir: spillParent,
        idSet: SIZES,
        workers: 0,
        onProgress: () => {
          // The second read: the first MiB of entries has been fed, and spilled.
          if (++calls === 2) {
            during = readdirSync(spillParent).flatMap((d) => readdirSync(join(spillParent, d)));
            throw new Error('stop here');
          }
        },
      }),
    ).rejects.toThrow('stop here');
    expect(during).toContain('pairs'); // the side file and runs existed when it threw
    expect(during.filter((f) => f.startsWith('run-')).length).toBeGreaterThan(0);
    expect(await readdir(spillParent)).toEqual([]);
  });

  it('the sink makes its directory on the first file only, reads at offsets, and removes it all', async () => {
    const s = createSpillDir(spillParent);
    expect(s.path).toBeUndefined();
    expect(await readdir(spillParent)).toEqual([]);
    const a = await s.create('a');
    await a.append(Uint8Array.from([1, 2, 3]));
    await a.append(Uint8Array.from([4, 5]));
    expect([...(await a.read(1, 3))]).toEqual([2, 3, 4]);
    expect([...(await a.read(4, 10))]).toEqual([5]);
    const b = await s.create('b');
    await b.append(new Uint8Array(10));
    expect((await readdir(s.path as string)).sort()).toEqual(['a', 'b']);
    await b.remove();
    expect(await readdir(s.path as string)).toEqual(['a']);
    await s.dispose();
    expect(await readdir(spillParent)).toEqual([]);
    await expect(s.create('c')).rejects.toThrow(/removed/);
  });
});
