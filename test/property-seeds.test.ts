// Property tests are evidence: under the run's fast-check configuration (test/fast-check-setup.ts)
// a failing property throws a report naming its seed, its path and the shrunk counterexample, and
// the seed and path replay that exact failure. No test file may hide this: none lowers the
// verbosity, replaces the reporter, or runs fc.check (which returns instead of throwing).
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    if (d.name === 'node_modules' || d.name.startsWith('.')) return [];
    const p = path.join(dir, d.name);
    return d.isDirectory() ? testFiles(p) : /\.test\.ts$/.test(d.name) ? [p] : [];
  });
}

describe('fast-check failures print their seed', () => {
  it('a failing property reports seed, path and counterexample, and they replay it', () => {
    expect(fc.readConfigureGlobal().verbose).toBe(fc.VerbosityLevel.Verbose);
    const prop = fc.property(fc.integer(), (n) => n < 1000);
    let message = '';
    try {
      fc.assert(prop, { numRuns: 10_000 });
    } catch (e) {
      message = (e as Error).message;
    }
    const m = /seed: (-?\d+), path: "([\d:]+)"/.exec(message);
    expect(m, message).not.toBeNull();
    expect(message).toContain('Counterexample: [1000]');
    // The reported seed and path give back the same shrunk counterexample at once.
    const again = fc.check(prop, { seed: Number(m![1]), path: m![2] });
    expect(again.failed).toBe(true);
    expect(again.counterexample).toEqual([1000]);
  });

  it('no test file hides a failure (verbosity lowered, reporter replaced, fc.check outside this file)', () => {
    const files = ['verifier', 'logstore', 'sequencer', 'witness', 'executor', 'conformance', 'demo', 'test', 'bench'].flatMap((d) =>
      testFiles(path.join(ROOT, d)),
    );
    expect(files.length).toBeGreaterThan(50);
    const offences: string[] = [];
    for (const f of files) {
      if (f === import.meta.filename) continue;
      const src = readFileSync(f, 'utf8');
      if (/verbose:\s*(?:0|false|fc\.VerbosityLevel\.None)/.test(src)) offences.push(`${path.relative(ROOT, f)}: verbose off`);
      if (/\b(?:reporter|asyncReporter)\s*:/.test(src) && /fast-check/.test(src))
        offences.push(`${path.relative(ROOT, f)}: custom reporter`);
      if (/\bfc\.check\(/.test(src)) offences.push(`${path.relative(ROOT, f)}: fc.check returns failures instead of throwing`);
    }
    expect(offences).toEqual([]);
  });
});
