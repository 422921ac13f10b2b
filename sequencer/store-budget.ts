// sequencer/store-budget.ts: the memory budget of one sequencer process shared by the LevelDB
// stores of its logs (docs/design.md §12a). Pure arithmetic, no I/O. A store's worst-case memory is two
// write buffers (one filling, one being flushed) plus its block cache plus a fixed overhead
// (LevelDB's structures, table cache for maxOpenFiles tables, the log's frontier and device keys);
// at open a store is granted write buffer and cache sized from what the budget has left after
// every other open-store slot keeps its minimum. So a log opened while few others are open (a busy
// log) gets the full 32 MiB write buffer, one opened while the budget is taken gets less, and
// the sum of grants never exceeds the budget whatever the load. Leaves out: the JS heap of
// requests in flight (the process reserve covers it). Invariant: Σ grants ≤ budget − reserve.

/** The process itself (heap, signature workers, HTTP) before any store: measured about 180 MB. */
export const PROCESS_RESERVE_BYTES = 256 * 1024 * 1024;
export const MAX_WRITE_BUFFER = 32 * 1024 * 1024;
export const MIN_WRITE_BUFFER = 1024 * 1024;
const MAX_CACHE = 8 * 1024 * 1024;
const MIN_CACHE = 256 * 1024;
/** Per open store besides its buffers (LevelDB structures, its table cache, frontier, keys). */
export const STORE_OVERHEAD_BYTES = 1024 * 1024;
/** LevelDB max_open_files per store: bounds the fds (and table-cache memory) of one log. */
export const STORE_MAX_OPEN_FILES = 32;

export interface StoreGrant {
  writeBufferSize: number;
  cacheSize: number;
  /** What this grant counts against the budget: 2 x writeBufferSize + cacheSize + overhead. */
  bytes: number;
}

export const MIN_GRANT_BYTES = 2 * MIN_WRITE_BUFFER + MIN_CACHE + STORE_OVERHEAD_BYTES;

export function grantBytes(writeBufferSize: number, cacheSize: number): number {
  return 2 * writeBufferSize + cacheSize + STORE_OVERHEAD_BYTES;
}

/**
 * The grant of a store opened now. `budget`: the process's total; `granted`: the sum of the open
 * stores' grants; `open`: how many are open (not counting this one); `maxOpen`: the cap.
 */
export function grantStore(budget: number, granted: number, open: number, maxOpen: number): StoreGrant {
  const others = Math.max(0, maxOpen - open - 1) * MIN_GRANT_BYTES;
  const free = budget - PROCESS_RESERVE_BYTES - granted - others - STORE_OVERHEAD_BYTES;
  // free = 2 wb + cache, cache = wb / 4.
  const wb = Math.min(MAX_WRITE_BUFFER, Math.max(MIN_WRITE_BUFFER, Math.floor(free / 2.25)));
  const cache = Math.min(MAX_CACHE, Math.max(MIN_CACHE, Math.floor(wb / 4)));
  return { writeBufferSize: wb, cacheSize: cache, bytes: grantBytes(wb, cache) };
}

/** The most stores a budget can keep open at their minimum grant. */
export function maxStoresFor(budget: number): number {
  return Math.max(1, Math.floor((budget - PROCESS_RESERVE_BYTES) / MIN_GRANT_BYTES));
}
