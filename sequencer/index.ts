// sequencer/index.ts: the sequencer's public surface (docs/design.md §2, §5, §10, §12), what other
// folders (bin/, demo/, web/server/, tests) should import instead of reaching into its files. It
// only re-exports: the factory (app.ts: openSequencer, nothing listens there), the data directory
// `cookwala init` makes (data-dir.ts), its config file and file names (config.ts), and the CLI
// entry (cli.ts). Left out: the routes, the committer, the checkpointer and the rest of the
// internals, which only the sequencer's own files use. Invariant: no file here defines anything.

export * from './app.ts';
export * from './data-dir.ts';
export * from './config.ts';
export * from './cli.ts';
export { readConfig } from './config.ts';
export { initDataDir } from './data-dir.ts';
