// bench/id-set-memory.ts: the memory of the (source, id) set alone at 10^7 pairs (docs/design.md §13),
// without 10^7 signatures: `node --import tsx bench/id-set-memory.ts [PAIRS] [spill|memory]` runs
// the set in a child process of its own (so the peak is the set's plus a bare Node) with pairs
// shaped like a generated bundle's (16 device sources, ids ev-N), two planted duplicates, the
// spill sink of `cookwala verify` (auditor/spill-dir.ts) or none (the browser's table), and
// prints one JSON line {pairs, mode, ms, duplicates, peakRssMB, baseRssMB, setBytes, runs, spillMB,
// and the largest heapTotalMB, externalMB, arrayBuffersMB sampled every 100 ms}.
// baseRssMB is the child's high-water mark before the first pair. Invariant: both duplicates found.

import { fileURLToPath } from 'node:url';
import { createIdSet } from '../verifier/bundle/id-set.ts';
import { createSpillDir } from '../auditor/spill-dir.ts';
import { runJsonChild } from './json-child.ts';
import { peakRssMB } from './proc-cpu.ts';

async function child(pairs: number, mode: string): Promise<void> {
  const base = peakRssMB();
  const sink = createSpillDir();
  let spillBytes = 0;
  const counting = {
    async create(name: string) {
      const f = await sink.create(name);
      return { ...f, append: (b: Uint8Array) => ((spillBytes += b.length), f.append(b)) };
    },
  };
  const set = createIdSet(mode === 'spill' ? { spill: { sink: counting } } : {});
  const max = { heapTotalMB: 0, externalMB: 0, arrayBuffersMB: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    max.heapTotalMB = Math.max(max.heapTotalMB, Math.round(m.heapTotal / 1e5) / 10);
    max.externalMB = Math.max(max.externalMB, Math.round(m.external / 1e5) / 10);
    max.arrayBuffersMB = Math.max(max.arrayBuffersMB, Math.round(m.arrayBuffers / 1e5) / 10);
  };
  const timer = setInterval(sample, 100);
  const t0 = performance.now();
  let dups = 0;
  for (let i = 0; i < pairs; i++) {
    // Two planted copies: one of an early pair late, one of a late pair at the very end.
    const n = i === pairs - 2 ? 17 : i === pairs - 1 ? pairs - 5 : i;
    if (!set.add(`urn:cookwala:device:d${n % 16}`, `ev-${n}`, i + 1, 2 * i + 4)) dups++;
    const w = set.wait();
    if (w) await w;
  }
  const bytes = set.bytes;
  await set.finish(() => dups++);
  await sink.dispose();
  clearInterval(timer);
  sample();
  process.stdout.write(
    JSON.stringify({
      pairs,
      mode,
      ms: Math.round(performance.now() - t0),
      duplicates: dups,
      peakRssMB: peakRssMB(),
      baseRssMB: base,
      setBytes: bytes,
      runs: set.runsWritten,
      spillMB: Math.round(spillBytes / 1e5) / 10,
      ...max,
    }) + '\n',
  );
}

export function measureIdSet(pairs: number, mode: 'spill' | 'memory'): Promise<Record<string, unknown>> {
  return runJsonChild(fileURLToPath(import.meta.url), ['--child', String(pairs), mode], 'id-set');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') await child(Number(args[1]), args[2]);
  else {
    const r = await measureIdSet(Number(args[0] ?? 10_000_000), (args[1] as 'spill' | 'memory') ?? 'spill');
    console.log(JSON.stringify(r));
    if (r.duplicates !== 2) process.exitCode = 1;
  }
}
