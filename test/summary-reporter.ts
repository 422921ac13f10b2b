// test/summary-reporter.ts: a vitest reporter that ends the run with the plain line
// `N passed, M failed, K skipped`, which CI reads to know how many tests ran. Counts tests (not
// files); a file that fails to load counts as one failure so a broken import cannot pass silently.
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandled.length;
    let skipped = 0;
    for (const m of modules) {
      let tests = 0;
      for (const t of m.children.allTests()) {
        tests++;
        const s = t.result().state;
        if (s === 'passed') passed++;
        else if (s === 'failed') failed++;
        else skipped++;
      }
      if (tests === 0 || m.state() === 'failed') {
        if (!m.ok() && [...m.children.allTests()].every((t) => t.result().state !== 'failed')) failed++;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
