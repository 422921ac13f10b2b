// vitest.config.ts: where the tests are (unit tests beside the code, cross-process tests in
// test/), the setup files (polyfills, fast-check settings), timeouts, and the summary reporter.
import { defineConfig } from 'vitest/config';

// Unit tests live beside the code (x.test.ts); cross-process tests in test/.
// Crash soak rounds are controlled by COOKWALA_CRASH_ROUNDS (short by default).
export default defineConfig({
  test: {
    include: [
      '{verifier,auditor,platform,testkit,logstore,sequencer,witness,executor,device,monitor,tools,conformance,demo,test,bench,web}/**/*.test.ts',
    ],
    setupFiles: ['./bin/polyfill.ts', './test/fast-check-setup.ts'],
    globalSetup: ['./test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at a time: most cross-process tests spend their time waiting on the children
    // they start, so on 2 cores two files overlap well (vitest's default there is one). Every test
    // waits on events, never on timing, so it holds under the load of its neighbour.
    maxWorkers: 2,
    reporters: ['default', './test/summary-reporter.ts'],
  },
});
