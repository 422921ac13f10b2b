// test/fast-check-setup.ts: the one fast-check configuration of the test run (a vitest setup
// file). A failing property always reports its seed, its path and the shrunk counterexample
// (fast-check's default); verbose adds the failures met while shrinking. FC_SEED (and FC_PATH)
// replay a reported failure exactly: `FC_SEED=… FC_PATH=… npx vitest run file -t name`. A red
// property is a bug to fix and a fixed regression case to add beside it, never a rerun.
// Nothing here changes how many runs a property makes (each test states its numRuns).
import fc from 'fast-check';

const seed = process.env.FC_SEED;
const path = process.env.FC_PATH;
if (seed !== undefined && !/^-?\d+$/.test(seed)) throw new Error(`FC_SEED must be an integer, got ${seed}`);

fc.configureGlobal({
  ...fc.readConfigureGlobal(),
  verbose: fc.VerbosityLevel.Verbose,
  ...(seed !== undefined ? { seed: Number(seed) } : {}),
  ...(path !== undefined ? { path } : {}),
});
