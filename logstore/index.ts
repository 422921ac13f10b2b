// logstore/index.ts: the public surface of the log store (docs/design.md §6): openLogStore and its types.
// The key layout, value encodings and node packing stay internal; bulkLoadTree is for benchmarks.

export { openLogStore } from './store.ts';
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
  WriteKind,
} from './types.ts';
