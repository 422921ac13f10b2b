// witness/server/service-types.ts: the contract of `createWitness` (service.ts, docs/design.md §7,
// §7a): what it is given (deps: state, keys, logger; options: addresses, logs, workers, the C2SP
// side), what it reports when started (WitnessInfo, the witness card's facts) and the Witness
// object the CLI, the tests and the bench drive. Types only: the assembly is service.ts's.

import type { PrivateKey } from '@libp2p/interface';
import type { FastifyInstance } from 'fastify';
import type { KeyRecord, SecretKey, Signer } from '../../verifier/signing/index.ts';
import type { Logger } from '../../platform/index.ts';
import type { AdmittedLog, WitnessDeps } from './add-checkpoint.ts';
import type { Reply } from '../wire/messages.ts';
import type { P2pNode } from '../wire/p2p-node.ts';
import type { Metrics, WitnessMetricName } from './metrics.ts';
import type { StateStore } from './state.ts';
import type { C2spLog } from './c2sp-logs.ts';
import type { C2spWitnessDeps } from './c2sp-add-checkpoint.ts';

export interface WitnessServiceDeps {
  state: StateStore;
  signer: Signer;
  /** The signer's secret key: needed only for opts.signWorker (the worker signs with it). */
  secretKey?: SecretKey;
  keyRecord: KeyRecord;
  clock?: () => number;
  /** The witness's logger (platform/logger.ts); default silent. */
  logger?: Logger;
  hooks?: WitnessDeps['hooks'];
  /** An ML-DSA-44 skey (type 0x06): the optional second C2SP cosigner (mldsa-cosigner.ts). */
  mldsaSkey?: string;
  /** What /witness.v0.json and /about name as the software (default cookwala-log, version unknown). */
  software?: { name: string; version: string };
}

export interface WitnessOptions {
  peerKey: PrivateKey;
  listen: string[];
  bootstrap?: string[];
  httpHost?: string;
  /** 0 picks a free port; undefined runs no HTTP server. */
  httpPort?: number;
  logs: AdmittedLog[];
  /** Delay before gossiping a cosigned checkpoint; later cosignatures for the log replace it. */
  gossipDelayMs?: number;
  redialMs?: number;
  /**
   * Worker threads that check the sequencer's checkpoint signature (libp2p) and the log's note
   * signature (C2SP) off the event loop (off-thread-verify.ts, platform/sig-pool.ts); 0 (default)
   * checks them inline. Same decisions either way.
   */
  verifyWorkers?: number;
  /**
   * Sign our cosignatures (JCS and cosignature/v1) on a worker thread holding deps.secretKey
   * (signing-worker.ts); needs an Ed25519 key. Same bytes either way; default inline.
   */
  signWorker?: boolean;
  /** The C2SP side (docs/design.md §7a): cosigner name, logs admitted by vkey, followed logs/v0 lists. */
  c2sp?: {
    name?: string;
    logs?: C2spLog[];
    logLists?: string[];
    logListRefreshMs?: number;
    hooks?: C2spWitnessDeps['hooks'];
    /** Public URL of the HTTP port for /witness.v0.json and /about (default: the address it listens on). */
    publicUrl?: string;
  };
  /** Logs above which the per-log metric series are dropped for aggregates (log-freshness.ts). */
  perLogMetricsLimit?: number;
}

export interface WitnessInfo {
  peerId: string;
  multiaddrs: string[];
  http?: string;
  keyRecord: KeyRecord;
  /** The C2SP cosigner: key name and vkey (type 0x04), and the ML-DSA-44 vkey (0x06) when it has that key. */
  c2sp?: { name: string; vkey: string; mldsaVkey?: string };
}

/** What a reread configuration changed in a running witness (admitConfig). */
export interface AdmitSummary {
  /** Origins newly admitted (Cookwala or C2SP), and lists newly followed. */
  added: string[];
  lists: string[];
  /** Origins the config names with another key than the one admitted: refused, the old key kept. */
  refused: Array<{ log: string; detail: string }>;
}

export interface Witness {
  start(): Promise<WitnessInfo>;
  stop(): Promise<void>;
  /**
   * Take the logs of a reread witness.json while running, add-only: new origins are admitted (and
   * cosigned from the next request), a known origin keeps its key (another is refused), an origin
   * the file no longer names stays admitted; new logs/v0 lists are followed from now on.
   */
  admitConfig(c: { logs: readonly AdmittedLog[]; c2spLogs?: readonly C2spLog[]; logLists?: readonly string[] }): Promise<AdmitSummary>;
  /** One request frame in, one reply out: the protocol without the transport (tests, bench). */
  handleFrame(frame: Uint8Array): Promise<Reply>;
  readonly node: P2pNode | undefined;
  readonly app: FastifyInstance;
  readonly metrics: Metrics<WitnessMetricName>;
  info(): WitnessInfo;
}
