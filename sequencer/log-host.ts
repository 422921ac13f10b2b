// sequencer/log-host.ts: the logs one sequencer process hosts (DESIGN §12a). Each hosted log has
// its own LevelDB store (opened once; a second process gets store_locked), its registered device
// keys, a group committer and a checkpointer. Logs come from the config at start and from
// POST /v1/logs at run time (store and signed descriptor first, then the config file, so a crash
// in between leaves a store that the next add adopts). Opening refuses a store behind the
// checkpoint mark kept outside it (checkpoint-mark.ts: store_behind_checkpoint). Closing a log:
// stop taking events, finish what was taken, sign a last checkpoint over the final durable head,
// then close the store. Each hosted log enforces the time window its descriptor declares (or, for a
// descriptor written before time bounds, the config's).

import { ProtocolError } from '../verifier/errors.ts';
import type { KeyRecord } from '../verifier/documents/keys.ts';
import type { Signer } from '../verifier/documents/signature.ts';
import type { LogDescriptor, LogMode } from '../verifier/documents/log-descriptor.ts';
import type { TimeBounds, TimePrecision } from '../verifier/documents/time-bounds.ts';
import type { FaultHooks, LogStore } from '../logstore/index.ts';
import type { LogConfig } from './config.ts';
import type { Clock } from './clock.ts';
import type { Metrics } from './metrics.ts';
import { createCommitter, type Committer } from './committer.ts';
import { createCheckpointer, type CheckpointPublisher, type Checkpointer } from './checkpointer.ts';
import { openDeviceKeys, type DeviceKeyRegistry } from './device-keys.ts';
import { deviceKeysFile, openOrCreateLogStore } from './data-dir.ts';
import type { StoreBackend } from './store-backend.ts';
import { sequencerSource } from './system-events.ts';
import { openCheckpointMark } from './checkpoint-mark.ts';
import type { Logger } from '../platform/logger.ts';

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
  publishing(origin: string): { publisher: CheckpointPublisher; quorum: number };
  /** A store write of the log `origin` failed (once per log). */
  onFatal(e: unknown, origin: string): void;
  onError(e: unknown): void;
}

export interface LogHost {
  get(origin: string): HostedLog | undefined;
  all(): HostedLog[];
  /** Open (creating when new) and host a log; log_exists if it is hosted already. */
  add(l: LogConfig): Promise<HostedLog>;
  close(): Promise<void>;
}

async function openHostedLog(d: LogHostDeps, l: LogConfig): Promise<HostedLog> {
  const store = await openOrCreateLogStore(d.dataDir, l, d.signer, d.clock.now, d.timeBounds, d.storeFaults, d.storeBackend);
  try {
    const descriptor = store.descriptor()!;
    // A store rolled back with its own checkpoints (an old backup) is caught here.
    const mark = await openCheckpointMark(d.dataDir, l.log, store);
    const keys = await openDeviceKeys(deviceKeysFile(d.dataDir, l.log), d.signer, d.keyRecord);
    const timePrecision: TimePrecision = descriptor.timePrecision ?? 'ms';
    const committer = createCommitter({ store, log: l.log, clock: d.clock, metrics: d.metrics, timePrecision, onFatal: (e) => d.onFatal(e, l.log) });
    const { publisher, quorum } = d.publishing(l.log);
    const checkpoints = await createCheckpointer({ store, log: l.log, signer: d.signer, clock: d.clock, publisher, quorum, metrics: d.metrics, logger: d.logger?.child({ log: l.log }), mark, onError: d.onError });
    d.metrics.set('cookwala_log_head_seq', store.head().seq, { log: l.log });
    const timeBounds = descriptor.timeBounds ?? d.timeBounds;
    return { origin: l.log, mode: descriptor.mode, store, descriptor, source: sequencerSource(l.log), keys, timeBounds, timePrecision, committer, checkpoints, publisher };
  } catch (e) {
    await store.close();
    throw e;
  }
}

async function closeHostedLog(h: HostedLog): Promise<void> {
  await h.committer.close();
  try {
    await h.checkpoints.stop();
    await h.checkpoints.tick();
  } finally {
    await h.keys.close();
    await h.store.close();
  }
}

export async function openLogHost(d: LogHostDeps, logs: LogConfig[]): Promise<LogHost> {
  const hosted = new Map<string, HostedLog>();
  let adding: Promise<unknown> = Promise.resolve();
  try {
    for (const l of logs) hosted.set(l.log, await openHostedLog(d, l));
  } catch (e) {
    for (const h of hosted.values()) await closeHostedLog(h).catch(() => undefined);
    throw e;
  }
  return {
    get: (origin) => hosted.get(origin),
    all: () => [...hosted.values()],
    add(l) {
      const p = adding.then(async () => {
        if (hosted.has(l.log)) throw new ProtocolError('log_exists', `log ${l.log} is hosted already`);
        const h = await openHostedLog(d, l);
        hosted.set(l.log, h);
        return h;
      });
      adding = p.catch(() => undefined);
      return p;
    },
    async close() {
      await adding;
      const all = [...hosted.values()];
      hosted.clear();
      const errors = (await Promise.allSettled(all.map(closeHostedLog))).filter((r) => r.status === 'rejected');
      if (errors.length > 0) throw (errors[0] as PromiseRejectedResult).reason;
    },
  };
}
