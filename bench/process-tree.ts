// bench/process-tree.ts: the bench's name for the process-tree memory sampler, which lives in the
// test kit (testkit/process-tree.ts) so that the memory tests measure as the bench does.
// Invariant: nothing is defined here.

export { processTree, runMeasuredTree, treeRssKiB, type TreeRun } from '../testkit/process-tree.ts';
