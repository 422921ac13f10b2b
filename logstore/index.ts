// logstore/index.ts: the public surface of the log store (docs/design.md §6): openLogStore and its types.
// The key layout, value encodings and node packing stay internal; bulkLoadTree is for benchmarks.

export { openLogStore } from './store.ts';
export { createLineWriter, LineBuffer, type LineWriter } from './json-lines.ts';
export type {
  AppendItem,
  ErasureRecord,
  FaultHooks,
  Head,
  LogStore,
  MigrationReport,
  MigrationStep,
  OpenOptions,
  PayloadRecord,
  StoredRecord,
  WriteKind,
} from './types.ts';
