// logstore/types.ts: the public shape of the log store (docs/design.md §6), the API the sequencer codes
// against. One LogStore = one log = one LevelDB directory held by one process (store.ts), or one
// log in a PostgreSQL database shared by several processes, one leading (postgres/store.ts). Leaves out the
// implementation (store.ts) and the key layout (keys.ts). Invariant stated here for callers:
// every write is one synced atomic LevelDB batch, and a failed write leaves the in-memory head
// as it was (after a failure inside LevelDB itself the store refuses further writes until it is
// reopened, because only the disk then knows whether the batch landed).

import type { Entry } from '../verifier/documents/index.ts';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import type { LogDescriptor } from '../verifier/documents/index.ts';
import type { Checkpoint } from '../verifier/documents/index.ts';

export interface AppendItem {
  /** Built by the caller with seq = head+1…, prev = the previous entry's hash. */
  entry: Entry;
  /** The event, stored apart and keyed by seq; absent when there is none. */
  payload?: CloudEvent;
  /**
   * The payload's JSON text as the caller received it (UTF-8, starting with `{`), stored as it is
   * instead of being written again from `payload`; the caller vouches that JSON.parse of it gives
   * `payload`, member order included (the sequencer passes the bytes it parsed the event from).
   */
  payloadText?: Uint8Array;
  /** (source, id) index -> {seq, eventHash}; a pair already indexed is refused. */
  dedup?: { source: string; id: string };
  /** Per-subject index of the last cookwalaseq. */
  subject?: { subject: string; cookwalaseq: number };
}

export interface Head {
  seq: number;
  /** Hash of entry `seq`, or of the descriptor when seq is 0. */
  hash: string;
  /** Merkle root of the first `seq` entries, `sha256:<hex>`. */
  root: string;
}

export interface ErasureRecord {
  seq: number;
  eventHash: string;
  reason: string;
  erasedAt: string;
  /** Seq of the cookwala.log.erased entry; the store fills it in. */
  erasureSeq?: number;
}

export type PayloadRecord = { event: CloudEvent } | { erased: ErasureRecord };

export interface LogStore {
  readonly dir: string;
  descriptor(): LogDescriptor | undefined;
  /** Once; the same descriptor again is a no-op, another one descriptor_mismatch. */
  init(d: LogDescriptor): Promise<void>;
  /** The durable head (it moves only after a synced batch). */
  head(): Head;
  /**
   * Resolves, with the head after these items, once they are durable. Atomic per call; calls made
   * while a batch is being written share the next batch (group commit), so a caller may issue
   * several, each chained on the previous call's last entry. Refusals (each alone, nothing of that
   * call written): chain_broken, log_mismatch, duplicate_id (a (source, id) already stored or
   * earlier in the batch), invalid_hash, invalid_event / invalid_document (no JSON form),
   * bad_request (malformed index fields); store_failed once a write failed.
   */
  append(items: AppendItem[]): Promise<Head>;
  getEntry(seq: number): Promise<Entry | undefined>;
  entries(from: number, to: number): AsyncIterable<Entry>;
  /** The stored entry records of a range, undecoded, in seq order and in batches (logstore's json-lines.ts writes lines from them). */
  rawEntries(from: number, to: number): AsyncIterable<StoredRecord[]>;
  getPayload(seq: number): Promise<PayloadRecord | undefined>;
  payloads(from: number, to: number): AsyncIterable<{ seq: number; event: CloudEvent }>;
  /** The stored payload records of a range, undecoded, in seq order and in batches. */
  rawPayloads(from: number, to: number): AsyncIterable<StoredRecord[]>;
  lookupId(source: string, id: string): Promise<{ seq: number; eventHash: string } | undefined>;
  /** Seqs of the entries indexed under `source` (every appended item with a dedup pair), ascending. */
  seqsOfSource(source: string): Promise<number[]>;
  lastSubjectSeq(subject: string): Promise<number | undefined>;
  /**
   * Synced, keyed by seq. Same seq, head and root as a stored one: cosignatures merged. Refused:
   * fork_detected (another head or root at a stored seq), store_behind_checkpoint (seq beyond the
   * head), rewrite_detected (head or root not those of the stored entries), log_mismatch.
   */
  putCheckpoint(cp: Checkpoint): Promise<void>;
  latestCheckpoint(): Promise<Checkpoint | undefined>;
  checkpoint(seq: number): Promise<Checkpoint | undefined>;
  /** Stored checkpoints in seq order (newest first with `reverse`). */
  checkpoints(opts?: { reverse?: boolean }): AsyncIterable<Checkpoint>;
  rootAt(size: number): Promise<string>;
  inclusionProof(seq: number, size: number): Promise<string[]>;
  consistencyProof(from: number, to: number): Promise<string[]>;
  /** C2SP tlog-tiles tile (level, index) of `width` hashes, concatenated, from the stored nodes (store-read.ts). */
  tileHashes(level: number, index: number, width: number): Promise<Uint8Array>;
  /**
   * hash_only logs: one synced batch deletes the payload, stores the record (erasureSeq filled
   * in) and appends `erasedEntry` (type cookwala.log.erased); then the bytes are compacted away.
   * Refused: mode_forbids_erasure, not_found, payload_erased, bad_request (record or entry type).
   */
  erasePayload(seq: number, record: ErasureRecord, erasedEntry: AppendItem): Promise<Head>;
  close(): Promise<void>;
}

export type WriteKind = 'init' | 'append' | 'checkpoint' | 'erase' | 'migrate';

/**
 * Fault injection for crash-consistency tests (STYLE: fault-injecting storage wrappers). A hook
 * that throws in `beforeWrite` models a failure before anything reaches LevelDB; one that throws
 * in `afterWrite` models a batch that landed on disk but whose caller saw an error.
 */
export interface FaultHooks {
  beforeWrite?(kind: WriteKind): void | Promise<void>;
  afterWrite?(kind: WriteKind): void | Promise<void>;
}

/** One durable step of moving a store to this build's key layout (migrate.ts). */
export interface MigrationStep {
  /** Records moved so far, all families. */
  moved: number;
  /** True once the version record names the new format. */
  done: boolean;
}

export interface MigrationReport {
  from: string;
  to: string;
  /** Entry, payload and Merkle node records moved. */
  moved: number;
  ms: number;
}

export interface OpenOptions {
  /** Create the directory's database when absent (default true). */
  createIfMissing?: boolean;
  /**
   * LevelDB's memtable size in bytes (default 32 MiB, LevelDB's own is 4 MiB). A larger memtable
   * means fewer, larger level-0 tables and less compaction per appended byte: on the append bench
   * it cut the CPU per block by about a third. Memory: up to twice this per open store.
   */
  writeBufferSize?: number;
  /** LevelDB's block cache in bytes (LevelDB's default 8 MiB); a sequencer sizes it from its memory budget. */
  cacheSize?: number;
  /** LevelDB's max_open_files (its default 1000): bounds the file descriptors of one store. */
  maxOpenFiles?: number;
  /**
   * Called once a store of the earlier key layout has been moved to this build's at open
   * (migrate.ts): a LevelDB store of 10^6 entries takes tens of seconds.
   */
  onMigrated?(r: MigrationReport): void;
  /** Tests only: after each durable step of such a move. */
  onMigrateStep?(s: MigrationStep): void | Promise<void>;
  /** Tests only. */
  faults?: FaultHooks;
}

export type { Entry, CloudEvent, LogDescriptor, Checkpoint };

/** One stored record of the entry or payload family, as the store keeps it. */
export interface StoredRecord {
  seq: number;
  value: Uint8Array;
}
