// bin/heap-bounds.js: the V8 heap flags of the auditor's commands that read an outside file whole
// (docs/design.md §13, §14). bin/cookwala.js starts each of these commands in a child node with its
// flags, and the verify bench (bench/verify.ts) starts its verify child with the same ones, so the
// memory it reports is that of the command as a user runs it, on every Node. Plain JavaScript: the
// launcher reads it before any TypeScript loader is registered (its types: heap-bounds.d.ts).

/** Commands that read an outside file whole and so run under a heap bound: the heap flags they get. */
export const BOUNDED_HEAP = {
  verify: ['--max-old-space-size=64', '--max-semi-space-size=8'],
  'verify-event': ['--max-old-space-size=64'],
  'verify-fork': ['--max-old-space-size=64'],
};
