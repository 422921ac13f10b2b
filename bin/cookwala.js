#!/usr/bin/env node
// The `cookwala` command: loads the TypeScript sources through tsx (no build step), the Node 20
// polyfills, then dispatches to each part's command module (bin/main.ts).
//
// The auditor's commands read files from outside, which are hostile (docs/design.md §14): their
// memory bound (256 MB for the whole process, docs/design.md §13) must hold on any input and on
// a busy machine, where V8 left alone lets garbage grow the heap far past what is live. V8 takes
// its heap limits only at start, so these commands run in a child node started with them
// (bin/heap-bounds.js); this process only waits, forwards signals and passes the exit code on. The
// variable COOKWALA_HEAP_BOUND marks the child, so it never starts another.
//
// Started by npm (`npx cookwala witness … &`), a command stops as on SIGTERM once npm's shell is
// gone (platform/parent-watch.ts): stopping the npx job must not leave node serving, reparented.
import { spawn } from 'node:child_process';
import { BOUNDED_HEAP } from './heap-bounds.js';

/** Commands that exit as soon as they return, rather than when the event loop drains. */
const PROMPT_EXIT = new Set(['export']);

const command = process.argv[2];
const flags = Object.hasOwn(BOUNDED_HEAP, command) ? BOUNDED_HEAP[command] : undefined;
const bounded = process.execArgv.some((a) => a.startsWith('--max-old-space-size'));
if (flags && !bounded && process.env.COOKWALA_HEAP_BOUND !== '1') {
  const child = spawn(process.execPath, [...flags, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, COOKWALA_HEAP_BOUND: '1' },
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  const [code, signal] = await new Promise((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  if (signal) process.kill(process.pid, signal);
  process.exitCode = code ?? 2;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./polyfill.ts');
  const { stopWithNpmParent } = await import('../platform/parent-watch.ts');
  stopWithNpmParent();
  const { main } = await import('./main.ts');
  const code = await main(process.argv.slice(2));
  // A finished export leaves at once: winding down the loader thread and the heap on the way out
  // costs more than a fast download itself (its output went out already: stdout and stderr are
  // synchronous for files, pipes and terminals on Linux).
  if (PROMPT_EXIT.has(command)) process.exit(code);
  process.exitCode = code;
}
