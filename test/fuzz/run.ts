// test/fuzz/run.ts: `npm run fuzz -- [--runs N] [--seconds S] [--target NAME[,NAME]] [--seed X]`:
// long fuzz runs of test/fuzz/targets.ts (default 10,000 runs or 60 s per target, whichever comes
// first). A counterexample is printed with fast-check's seed and path and appended to
// test/fuzz-corpus/<target>.json, so `npm test` replays it from then on; exit 1 when one was found.
import fc from 'fast-check';
import { parseArgs } from 'node:util';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { targets } from './targets.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string' }, seconds: { type: 'string' }, target: { type: 'string' }, seed: { type: 'string' } },
});
const runs = Number(values.runs ?? 10_000);
const seconds = Number(values.seconds ?? 60);
const only = values.target?.split(',');
let found = 0;
for (const t of targets()) {
  if (only && !only.includes(t.name)) continue;
  const t0 = Date.now();
  const r = await fc.check(
    fc.asyncProperty(t.input, async (s) => {
      await t.run(s);
    }),
    { numRuns: runs, interruptAfterTimeLimit: seconds * 1000, seed: values.seed === undefined ? undefined : Number(values.seed) },
  );
  await t.close?.();
  const took = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.failed) {
    found++;
    const input = (r.counterexample as [string])[0];
    const file = new URL(`../fuzz-corpus/${t.name}.json`, import.meta.url);
    const corpus: string[] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
    if (!corpus.includes(input)) writeFileSync(file, JSON.stringify([...corpus, input], null, 2) + '\n');
    console.log(
      `fuzz ${t.name}: FOUND after ${r.numRuns} runs in ${took} s (seed ${r.seed}, path ${r.counterexamplePath}): ${String(r.errorInstance).slice(0, 300)}\n  input ${JSON.stringify(input).slice(0, 300)} saved to ${file.pathname}`,
    );
  } else
    console.log(`fuzz ${t.name}: ${r.numRuns} runs in ${took} s${r.interrupted ? ' (time limit)' : ''}, nothing found (seed ${r.seed})`);
}
process.exitCode = found === 0 ? 0 : 1;
