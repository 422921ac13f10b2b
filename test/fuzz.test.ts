// Fuzzing with memory: every input in test/fuzz-corpus/<target>.json (inputs that once
// found a bug, and edge cases kept on purpose) is replayed against its target, then each target
// runs a short fast-check property (the long runs are `npm run fuzz`). A target must never throw,
// and every refusal carries a code of verifier/errors.ts (HTTP: < 500, problem+json, nothing
// appended). A failure prints fast-check's seed and counterexample; add it to the corpus.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync, existsSync } from 'node:fs';
import { targets } from './fuzz/targets.ts';

const all = targets();
afterAll(async () => {
  for (const t of all) await t.close?.();
});

describe.each(all.map((t) => [t.name, t] as const))('fuzz %s', (name, t) => {
  const file = new URL(`./fuzz-corpus/${name}.json`, import.meta.url);
  const corpus: string[] = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : [];
  it.each(corpus.map((c, i) => [i, c] as const))('corpus #%i', async (_i, input) => {
    await expect(Promise.resolve().then(() => t.run(input))).resolves.toBeDefined();
  });
  it('a short property run: never throws, refusals carry our codes', async () => {
    await fc.assert(
      fc.asyncProperty(t.input, async (s) => {
        await t.run(s);
      }),
      { numRuns: name.startsWith('http-') ? 40 : 150 },
    );
  }, 60_000);
});
