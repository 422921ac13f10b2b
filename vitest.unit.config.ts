// vitest.unit.config.ts: the fast tier, `npm run test:unit` (docs/testing.md): the tests beside the
// code (the pure core and the in-process tests of each part), run with the same setup files and
// timeouts as the full suite (vitest.config.ts). Left out: the cross-process tests of test/, the
// PostgreSQL driver's tests (logstore/postgres/) and the bench's tests that run benchmark children,
// so the tier needs neither Chromium nor PostgreSQL and starts no cluster (no globalSetup). The full
// `npm test` runs everything this runs and the rest.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

export const UNIT_EXCLUDE = [
  'test/**',
  'logstore/postgres/**',
  'bench/sections.test.ts',
  'bench/verify-floor.test.ts',
  'bench/cpu-profile.test.ts',
  '**/node_modules/**',
];

const unit = mergeConfig(base, defineConfig({ test: { exclude: UNIT_EXCLUDE } }));
unit.test!.globalSetup = [];
export default unit;
