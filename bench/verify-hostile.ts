// bench/verify-hostile.ts: `verify.hostilePeakRssMB` of docs/design.md §13: the offline verifier's
// peak resident memory on inputs built to exhaust it, each verified as a user runs it (`node
// bin/cookwala.js verify FILE --policy P`, default flags and workers), the figure being the peak of
// the whole process tree's resident memory (bench/process-tree.ts). The
// inputs are generated on the fly into a temp dir and removed: a small valid bundle with one
// hostile line put after its descriptor: 16.5 MB of `[{},{},…]`, 8 million nested arrays, 2 million
// nested objects, 16 MB of `[0,0,…]`, the worst line the bounds still let through (2^18 objects and
// a 15 MB string), and one line of 2 GB (quick: 256 MB) with no newline until its end; plus copies of
// the last checkpoint line (20,000 and 80,000, time per copy compared: linear means equal). The
// figure is the largest peak of them all; the target is <= 256 MB. Leaves out the valid-bundle
// figures (bench/verify.ts).

import { createWriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateLog } from '../testkit/log-generator.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { runMeasuredTree } from './process-tree.ts';

const COOKWALA = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'cookwala.js');

interface ChildResult {
  ms: number;
  exitCode: number;
  peakRssMB: number;
}

/** `cookwala verify FILE --policy POLICY` as a user runs it; its process tree's peak memory. */
async function verifyInChild(file: string, policy: string): Promise<ChildResult> {
  const r = await runMeasuredTree([COOKWALA, 'verify', file, '--policy', policy]);
  return { ms: r.ms, exitCode: r.exitCode, peakRssMB: r.peakTreeRssMB };
}

/** Writes `parts` (strings, or [unit, count] repeated) in 1 MiB pieces. */
async function writeParts(file: string, parts: Array<string | [string, number]>): Promise<void> {
  const ws = createWriteStream(file);
  const put = async (s: string) => {
    if (!ws.write(s)) await once(ws, 'drain');
  };
  for (const p of parts) {
    if (typeof p === 'string') {
      await put(p);
      continue;
    }
    const [unit, count] = p;
    const per = Math.max(1, Math.floor((1 << 20) / unit.length));
    const block = unit.repeat(per);
    let left = count;
    while (left >= per) {
      await put(block);
      left -= per;
    }
    if (left > 0) await put(unit.repeat(left));
  }
  await new Promise<void>((r) => ws.end(r));
}

export async function runHostile(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const dir = await makeTempDir('cookwala-bench-hostile-');
  try {
    const g = generateLog({ events: 20, checkpointEvery: 10 });
    const lines = [...g.lines()].join('').split('\n');
    lines.pop();
    const policy = join(dir, 'policy.json');
    await writeFile(policy, JSON.stringify(g.policy));
    const head = lines.slice(0, 2).join('\n') + '\n';
    const tail = '\n' + lines.slice(2).join('\n') + '\n';
    const bigLine = ctx.quick ? 256 * 1024 ** 2 : 2 * 1024 ** 3;
    const cases: Array<[string, Array<string | [string, number]>]> = [
      ['emptyObjects16.5MB', [head, '[', ['{},', 5_500_000], '{}]', tail]],
      ['nestedArrays8M', [head, ['[', 8_000_000], [']', 8_000_000], tail]],
      ['nestedObjects2M', [head, ['{"a":', 2_000_000], '0', ['}', 2_000_000], tail]],
      ['zeros16MB', [head, '[', ['0,', 8_000_000], '0]', tail]],
      ['worstAllowed', [head, '[', ['{},', (1 << 18) - 2], '"', ['x', 15 << 20], '"]', tail]],
      [`oneLine${ctx.quick ? '256MB' : '2GB'}`, [head, ['a', bigLine], tail]],
    ];
    const out: Record<string, unknown> = {};
    let peak = 0;
    for (const [name, parts] of cases) {
      const file = join(dir, `${name}.ndjson`);
      await writeParts(file, parts);
      const r = await verifyInChild(file, policy);
      await rm(file, { force: true });
      if (r.exitCode === 0) throw new Error(`hostile input ${name} verified as valid`);
      out[name] = { peakRssMB: r.peakRssMB, ms: r.ms, exitCode: r.exitCode };
      peak = Math.max(peak, r.peakRssMB);
    }
    // Copies of the last checkpoint line: time per copy at two sizes (linear: the same).
    const perCopy: number[] = [];
    for (const copies of ctx.quick ? [5_000, 20_000] : [20_000, 80_000]) {
      const file = join(dir, `copies-${copies}.ndjson`);
      await writeParts(file, [lines.join('\n') + '\n', [lines[lines.length - 1] + '\n', copies]]);
      const r = await verifyInChild(file, policy);
      await rm(file, { force: true });
      out[`checkpointCopies${copies}`] = { peakRssMB: r.peakRssMB, ms: r.ms, exitCode: r.exitCode };
      peak = Math.max(peak, r.peakRssMB);
      perCopy.push(r.ms / copies);
    }
    return { hostilePeakRssMB: peak, hostileCopiesTimeRatio: Math.round((perCopy[1] / perCopy[0]) * 100) / 100, hostile: out };
  } finally {
    await removeDir(dir);
  }
}

export const run = runHostile;

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runHostile({ quick: process.argv.includes('--quick') }), null, 2));
}
