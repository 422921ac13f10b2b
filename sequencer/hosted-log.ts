// sequencer/hosted-log.ts: one log as a sequencer process hosts it (docs/design.md §12a): opening it (its
// LevelDB or PostgreSQL store under the memory grant store-budget.ts gave it, the checkpoint mark
// kept outside the store, its registered device keys, a group committer and a checkpointer with
// the log's witness hook) and closing it (stop taking events, finish what was taken, sign a last
// checkpoint over the final durable head, stop the publisher, then close the keys and the store).
// Each hosted log enforces the time window its descriptor declares (or, for a descriptor written
// before time bounds, the config's). Left out: which logs are open, the cap and the idle closing
// (log-host.ts). Invariants: a log whose open fails leaves no store open; a closed log keeps no
// store handle, whatever failed before the close.

import type { PublisherStore } from '../witness/client/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { Signer } from '../verifier/signing/index.ts';
import type { LogDescriptor, LogMode } from '../verifier/documents/index.ts';
import type { TimeBounds, TimePrecision } from '../verifier/documents/index.ts';
import type { FaultHooks, LogStore, MigrationReport } from '../logstore/index.ts';
import type { LogConfig } from './config.ts';
import type { Clock } from '../platform/index.ts';
import type { Metrics } from './metrics.ts';
import { createCommitter, type Committer } from './committer.ts';
import type { LogMldsaSigner, WitnessPolicy } from '../verifier/documents/index.ts';
import { createCheckpointer, type CheckpointPublisher, type Checkpointer } from './checkpointer.ts';
import { openDeviceKeys, type DeviceKeyRegistry } from './device-keys.ts';
import { deviceKeysFile, openOrCreateLogStore } from './data-dir.ts';
import type { StoreBackend } from './store-backend.ts';
import { sequencerSource } from './system-events.ts';
import { openCheckpointMark } from './checkpoint-mark.ts';
import type { Logger } from '../platform/index.ts';
import { STORE_MAX_OPEN_FILES, type StoreGrant } from './store-budget.ts';

export interface HostedLog {
  readonly origin: string;
  readonly mode: LogMode;
  readonly store: LogStore;
  readonly descriptor: LogDescriptor;
  /** The source of the sequencer's own events in this log. */
  readonly source: string;
  readonly keys: DeviceKeyRegistry;
  /** The time window ingest enforces: the descriptor's, else the config's. */
  readonly timeBounds: TimeBounds;
  /** The descriptor's timePrecision (§8 open datasets): "day" = every time in the log is a UTC midnight. */
  readonly timePrecision: TimePrecision;
  readonly committer: Committer;
  readonly checkpoints: Checkpointer;
  /** The witness hook of this log (its status() feeds the explorer). */
  readonly publisher: CheckpointPublisher;
}

export interface LogHostDeps {
  dataDir: string;
  signer: Signer;
  keyRecord: KeyRecord;
  /** The log's ML-DSA-44 signer, when the sequencer has one (mldsa-key.ts). */
  mldsa?: LogMldsaSigner;
  clock: Clock;
  metrics: Metrics;
  logger?: Logger;
  /** Fault injection around every store write (tests). */
  storeFaults?: FaultHooks;
  /** PostgreSQL instead of LevelDB under dataDir (store-backend.ts). */
  storeBackend?: StoreBackend;
  /** The time window new logs declare (config maxClockSkewMs, maxDeliveryDelayMs). */
  timeBounds: TimeBounds;
  /** The checkpoint publisher and quorum of a log (the witness hook). */
  publishing(origin: string, store?: PublisherStore): { publisher: CheckpointPublisher; quorum: number; policy?: WitnessPolicy };
  /** A store write of the log `origin` failed (once per log). */
  onFatal(e: unknown, origin: string): void;
  onError(e: unknown): void;
  /** The memory budget of all stores together, bytes (store-budget.ts). Default 2 GiB. */
  memoryBudgetBytes?: number;
  /** At most this many stores open at once (default: what the budget allows, at most 256). */
  maxOpenLogs?: number;
  /** Logs opened at start, the first in config order (default 16); the others open on first use. */
  eagerOpen?: number;
  /** Start each log's checkpoint timer when it opens (absent: tests tick by hand). */
  checkpointIntervalMs?: number;
  /** Close logs unused this long (ms), checked every idleCloseMs / 2; absent: only the cap closes logs. */
  idleCloseMs?: number;
}

export async function openHostedLog(d: LogHostDeps, l: LogConfig, grant: StoreGrant): Promise<HostedLog> {
  const level = {
    writeBufferSize: grant.writeBufferSize,
    cacheSize: grant.cacheSize,
    maxOpenFiles: STORE_MAX_OPEN_FILES,
    onMigrated: (r: MigrationReport) =>
      d.logger?.info(
        { event: 'store_migrated', log: l.log, ...r },
        `store moved from ${r.from} to ${r.to}: ${r.moved} records in ${r.ms} ms`,
      ),
  };
  const store = await openOrCreateLogStore(d.dataDir, l, d.signer, d.clock.now, d.timeBounds, d.storeFaults, d.storeBackend, level);
  try {
    const descriptor = store.descriptor()!;
    // A store rolled back with its own checkpoints (an old backup) is caught here.
    const mark = await openCheckpointMark(d.dataDir, l.log, store);
    const keys = await openDeviceKeys(deviceKeysFile(d.dataDir, l.log), d.signer, d.keyRecord);
    const timePrecision: TimePrecision = descriptor.timePrecision ?? 'ms';
    const committer = createCommitter({
      store,
      log: l.log,
      clock: d.clock,
      metrics: d.metrics,
      timePrecision,
      onFatal: (e) => d.onFatal(e, l.log),
    });
    const { publisher, quorum, policy } = d.publishing(l.log, store);
    const checkpoints = await createCheckpointer({
      store,
      log: l.log,
      signer: d.signer,
      mldsa: d.mldsa,
      clock: d.clock,
      publisher,
      quorum,
      policy,
      metrics: d.metrics,
      logger: d.logger?.child({ log: l.log }),
      mark,
      onError: d.onError,
    });
    d.metrics.set('cookwala_log_head_seq', store.head().seq, { log: l.log });
    const timeBounds = descriptor.timeBounds ?? d.timeBounds;
    return {
      origin: l.log,
      mode: descriptor.mode,
      store,
      descriptor,
      source: sequencerSource(l.log),
      keys,
      timeBounds,
      timePrecision,
      committer,
      checkpoints,
      publisher,
    };
  } catch (e) {
    await store.close();
    throw e;
  }
}

export async function closeHostedLog(h: HostedLog): Promise<void> {
  // The store is closed whatever fails before it: a log taken out of the open set must not keep
  // its LevelDB handle (and file descriptors) behind.
  try {
    await h.committer.close();
    await h.checkpoints.stop();
    await h.checkpoints.tick();
    // A log reopened later gets a new publisher (publishing()): this one's timers stop here.
    await h.publisher.close?.();
  } finally {
    try {
      await h.keys.close();
    } finally {
      await h.store.close();
    }
  }
}
