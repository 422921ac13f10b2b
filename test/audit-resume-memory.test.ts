// `cookwala verify --resume STATE` keeps the 256 MB bound of its whole process tree
// (docs/design.md §13) with a side file of 10^7 (source, id) pairs (auditor/audit-ids.ts): run as a
// user runs it (`node bin/cookwala.js verify …`, default flags and workers), on the next bundle of
// a generated log whose first part was audited into that state, after the state's side file was
// replaced by one of 10^7 digests (80 MB: the pairs of that first audit among sorted random ones).
// The run reads the file, checks the new pairs against it and writes the merged file of 10^7 + 20
// digests; the test asserts the verdict, the new state and side file, and that the sum of each
// process's own peak resident memory (VmHWM, testkit/process-tree.ts) stays under 256 MB, while
// being at least the 4 bytes a pair the run must hold (so the file was read). The count is
// COOKWALA_RESUME_PAIRS (default 10^7).
import { afterAll, describe, expect, it } from 'vitest';
import { open, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateLog, runMeasuredTree, tempDirs } from '../testkit/index.ts';
import { cookwala, ROOT } from '../testkit/audit.ts';

const PAIRS = Number(process.env.COOKWALA_RESUME_PAIRS ?? 10_000_000);
const BOUND_MB = 256;

const dirs = tempDirs('cookwala-resume-mem-');
afterAll(() => dirs.cleanup());

/** The bundle of entries from..to of a generated log, as `cookwala export [--from]` at head `to` writes it. */
function part(lines: string[], from: number, to: number): string {
  const header = JSON.parse(lines[0]) as Record<string, unknown>;
  const kept = lines.slice(1).filter((l) => {
    const d = JSON.parse(l) as { kind?: string; seq?: number };
    return d.kind === 'Event' || d.kind === 'Payload' || d.kind === 'Checkpoint' ? d.seq! >= from && d.seq! <= to : true;
  });
  header.seq = to;
  header.checkpoints = kept.filter((l) => l.includes('"kind":"Checkpoint"')).length;
  if (from > 1) header.from = from;
  return [JSON.stringify(header), ...kept].map((l) => l + '\n').join('');
}

/**
 * A side file of `total` digests: the sorted ones of `real` (8 bytes each, little-endian) among
 * fillers whose high halves strictly increase, written 1 MiB at a time.
 */
async function writeSideFile(path: string, real: Buffer, total: number): Promise<void> {
  const fh = await open(path, 'w');
  const piece = Buffer.alloc(1 << 20);
  let at = 0;
  const flush = async () => {
    for (let o = 0; o < at;) o += (await fh.write(piece, o, at - o)).bytesWritten;
    at = 0;
  };
  const realCount = real.length / 8;
  const fillers = total - realCount;
  const step = 2 ** 32 / fillers;
  let r = 0;
  try {
    for (let i = 0; i <= fillers; i++) {
      const hi = i < fillers ? Math.floor(i * step) : 2 ** 32;
      const lo = (Math.random() * 2 ** 32) >>> 0;
      // The real digests that sort before this filler go first.
      while (r < realCount) {
        const rlo = real.readUInt32LE(r * 8);
        const rhi = real.readUInt32LE(r * 8 + 4);
        if (rhi > hi || (rhi === hi && rlo >= lo)) break;
        real.copy(piece, at, r * 8, r * 8 + 8);
        at += 8;
        r++;
        if (at === piece.length) await flush();
      }
      if (i === fillers) break;
      piece.writeUInt32LE(lo, at);
      piece.writeUInt32LE(hi, at + 4);
      at += 8;
      if (at === piece.length) await flush();
    }
    await flush();
  } finally {
    await fh.close();
  }
}

describe('verify --resume with a side file of many pairs', () => {
  it(`stays under ${BOUND_MB} MB for its whole process tree at ${PAIRS} pairs`, { timeout: 180_000 }, async () => {
    const dir = await dirs.make();
    const g = generateLog({ events: 60, checkpointEvery: 20 });
    const lines = [...g.lines()].join('').split('\n').filter(Boolean);
    const policy = join(dir, 'policy.json');
    await writeFile(policy, JSON.stringify(g.policy));
    const first = join(dir, 'first.ndjson');
    const next = join(dir, 'next.ndjson');
    await writeFile(first, part(lines, 1, 40));
    await writeFile(next, part(lines, 41, 60));

    // The first audit writes the state and its side file of 40 pairs.
    const state = join(dir, 'audit-state.json');
    const r1 = await cookwala(['verify', first, '--policy', policy, '--resume', state, '--json']);
    expect(r1.code, r1.stdout + r1.stderr).toBe(0);
    const s1 = JSON.parse(await readFile(state, 'utf8')) as { seq: number; ids: { file: string; count: number } };
    expect([s1.seq, s1.ids.count]).toEqual([40, 40]);

    // Its side file now stands for PAIRS audited pairs, those 40 among them.
    const side = join(dir, s1.ids.file);
    await writeSideFile(side, await readFile(side), PAIRS);
    expect((await stat(side)).size).toBe(PAIRS * 8);
    await writeFile(state, JSON.stringify({ ...s1, ids: { ...s1.ids, count: PAIRS } }));

    const run = await runMeasuredTree([join(ROOT, 'bin/cookwala.js'), 'verify', next, '--policy', policy, '--resume', state, '--json']);
    const figures = `peak ${run.peakTreeHwmMB} MB (sampled ${run.peakTreeRssMB} MB) in ${Math.round(run.ms)} ms`;
    expect(run.exitCode, run.stdout + figures).toBe(0);
    expect((JSON.parse(run.stdout) as { valid: boolean }).valid).toBe(true);
    const s2 = JSON.parse(await readFile(state, 'utf8')) as { seq: number; ids: { file: string; count: number } };
    expect([s2.seq, s2.ids.count]).toEqual([60, PAIRS + 20]);
    expect((await stat(join(dir, s2.ids.file))).size).toBe((PAIRS + 20) * 8);
    expect(await readdir(dir)).not.toContain(s1.ids.file);

    expect(run.peakTreeHwmMB, figures).toBeLessThan(BOUND_MB);
    expect(run.peakTreeHwmMB, figures).toBeGreaterThan((PAIRS * 4) / 2 ** 20);
  });
});
