// witness/client/publisher-types.ts: what the checkpoint publisher (publisher.ts) is given and
// gives back (docs/design.md §7, §7a): its store, metrics, options, the witness connections it asks
// and the per-witness rows it reports (GET …/witnesses, the explorer). Types only; the logic is in
// publisher.ts. Invariant: a witness row is one witness, named by its key (witness-identity).

import type { Logger } from '../../platform/index.ts';
import type { Checkpoint, LogDescriptor, WitnessPolicy } from '../../verifier/documents/index.ts';
import type { KeyRecord } from '../../verifier/signing/index.ts';
import type { WitnessConnection } from './connection.ts';
import type { C2spWitnessConnection } from './c2sp-http.ts';

/** A witness the publisher can ask: over libp2p or over C2SP HTTP. */
export type AnyWitnessConnection = WitnessConnection | C2spWitnessConnection;

export interface PublisherStore {
  descriptor(): LogDescriptor | undefined;
  inclusionProof(seq: number, size: number): Promise<string[]>;
  consistencyProof(from: number, to: number): Promise<string[]>;
  putCheckpoint(cp: Checkpoint): Promise<void>;
}

/** The part of a metrics registry the publisher sets (the sequencer's registry fits). */
export interface PublisherMetrics {
  set(name: string, value: number, labels?: Record<string, string>): void;
  inc(name: string, labels?: Record<string, string>, n?: number): void;
  observe?(name: string, value: number, labels?: Record<string, string>): void;
}

export interface PublisherDeps {
  store: PublisherStore;
  policy: WitnessPolicy;
  witnesses: AnyWitnessConnection[];
  gossip?: (cp: Checkpoint) => Promise<void>;
  /** The witness a libp2p peer is known to be (config.witnessPeers `{multiaddr, publicKey}`), so its row is named before it answers. */
  witnessOf?: (addr: string) => Pick<KeyRecord, 'alg' | 'publicKey'> | undefined;
  /** The service logger (bound here to the log: `log` field); default silent. */
  logger?: Logger;
  metrics?: PublisherMetrics;
  clock?: () => number;
}

export interface PublisherOptions {
  /** Per-request reply timeout. */
  timeoutMs?: number;
  /** Re-ask the witnesses about an unchanged published checkpoint this often (0: never). */
  resubmitMs?: number;
}

export interface WitnessStatus {
  addr: string;
  knownSeq: number | undefined;
  lastCosignedSeq: number | undefined;
  lastError: string | undefined;
  /** The kid of the policy witness this connection reaches, once known (by key). */
  kid?: string;
}

/** One policy witness (a witness is its key: all its transports in one row), as an operator sees it. */
export interface WitnessRow {
  /** The display name (witness-identity.ts), the same on every surface. */
  name: string;
  kid: string;
  /** How it is asked: libp2p multiaddrs and C2SP HTTP submission prefixes. */
  transports: Array<{ transport: 'libp2p' | 'http'; addr: string }>;
  /** `cosigned`, `unreachable: <why>`, `refused: <code>`, `cosignature not counted: <code>`, or `not asked yet`. */
  state: string;
  lastTriedAt: string | undefined;
  lastCosignedSeq: number | undefined;
  lastCosignedAt: string | undefined;
  lastError: string | undefined;
  /** Milliseconds of the last answered request. */
  latencyMs: number | undefined;
}

export interface CheckpointPublisherImpl {
  publish(cp: Checkpoint): Promise<Checkpoint | undefined>;
  /** The latest quorum-cosigned checkpoint, late cosignatures included. */
  latest(): Checkpoint | undefined;
  status(): { quorumMissing: boolean; reason: string | undefined; witnesses: WitnessStatus[]; rows: WitnessRow[] };
  start(): void;
  close(): Promise<void>;
}
