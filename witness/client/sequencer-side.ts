// witness/client/sequencer-side.ts: what a sequencer process runs to be witnessed (docs/design.md §7): its own
// libp2p node (persisted identity in its data directory), one WitnessConnection per configured
// witness peer (config `witnessPeers`: multiaddrs ending in /p2p/<peerId>), kept connected, and a
// CheckpointPublisher per log built from the log's WitnessPolicy. Cosigned checkpoints go out on
// the gossip topic `/cookwala/checkpoints/1`. The sequencer imports only this file and
// publisher.ts (docs/design.md §2: `sequencer` may use `witness`'s client half).
// Invariant: with a policy quorum of 0 nothing here is needed and nothing is started; with
// quorum k > 0 a checkpoint is published only with k valid cosignatures.
// C2SP witnesses (docs/design.md §7a): every policy witness with `url` and `vkey` is also asked over
// tlog-witness HTTP (c2sp-http.ts), from the same publisher, toward the same quorum; with only C2SP
// witnesses no libp2p node is started (nothing to gossip to).
// Logging: the sequencer's pino logger (platform/logger.ts) comes in the options; each publisher
// binds its log (`log` field).

import { join } from 'node:path';
import type { Checkpoint } from '../../verifier/documents/index.ts';
import type { WitnessPolicy } from '../../verifier/documents/index.ts';
import type { KeyRecord } from '../../verifier/signing/index.ts';
import { loadOrCreatePeerKey } from '../wire/identity.ts';
import { createP2pNode, fullAddrs, keepConnected, type P2pNode } from '../wire/p2p-node.ts';
import { createWitnessConnection, type WitnessConnection } from './connection.ts';
import { c2spWitnessesOf, createC2spWitnessConnection, type C2spWitnessConnection } from './c2sp-http.ts';
import { createCheckpointPublisher, type CheckpointPublisherImpl, type PublisherMetrics, type PublisherStore } from './publisher.ts';
import { CHECKPOINT_TOPIC, TOPICS } from '../wire/topics.ts';
import { encodeMessage } from '../wire/messages.ts';
import { silentLogger, type Logger } from '../../platform/index.ts';

export interface SequencerWitnessingOptions {
  /** File holding the sequencer's libp2p identity (created on first use, mode 0600). */
  peerKeyPath: string;
  /** Witness multiaddrs, each with /p2p/<peerId>. */
  peers: string[];
  listen?: string[];
  timeoutMs?: number;
  resubmitMs?: number;
  logger?: Logger;
  metrics?: PublisherMetrics;
  /** The key of each peer, when known (readWitnessPeerKeys). */
  peerKeys?: Map<string, Pick<KeyRecord, 'alg' | 'publicKey'>>;
}

export interface SequencerWitnessing {
  /** The libp2p node; undefined when no libp2p witness peer is configured (C2SP witnesses only). */
  readonly node: P2pNode | undefined;
  readonly connections: WitnessConnection[];
  /** A publisher for one log; the store may be given late (a getter), e.g. while the log opens. */
  publisherFor(policy: WitnessPolicy, store: PublisherStore | (() => PublisherStore | undefined)): CheckpointPublisherImpl;
  multiaddrs(): string[];
  close(): Promise<void>;
}

/**
 * The key each configured peer is known to hold: `{multiaddr, alg, publicKey}` entries, as
 * `cookwala policy add-witness --transport libp2p` writes them (a witness is its key: its row is
 * named before it answers). Plain multiaddr strings name no key.
 */
export function readWitnessPeerKeys(x: unknown[]): Map<string, Pick<KeyRecord, 'alg' | 'publicKey'>> {
  const m = new Map<string, Pick<KeyRecord, 'alg' | 'publicKey'>>();
  for (const p of x) {
    const o = p as { multiaddr?: unknown; alg?: unknown; publicKey?: unknown } | null;
    if (o && typeof o === 'object' && typeof o.multiaddr === 'string' && typeof o.publicKey === 'string')
      m.set(o.multiaddr, { alg: o.alg === 'ES256' ? 'ES256' : 'EdDSA', publicKey: o.publicKey });
  }
  return m;
}

/** Multiaddr strings from the config's opaque `witnessPeers` (strings, or {multiaddr}). */
export function readWitnessPeers(x: unknown[]): string[] {
  return x.map((p, i) => {
    const s = typeof p === 'string' ? p : (p as { multiaddr?: unknown })?.multiaddr;
    if (typeof s !== 'string' || !s.includes('/p2p/')) throw new TypeError(`witnessPeers[${i}] is a multiaddr ending in /p2p/<peerId>`);
    return s;
  });
}

export async function createSequencerWitnessing(opts: SequencerWitnessingOptions): Promise<SequencerWitnessing> {
  const logger = opts.logger ?? silentLogger();
  let node: P2pNode | undefined;
  if (opts.peers.length > 0) {
    node = await createP2pNode({
      privateKey: await loadOrCreatePeerKey(opts.peerKeyPath),
      listen: opts.listen ?? ['/ip4/127.0.0.1/tcp/0'],
      topics: TOPICS,
    });
    await node.start();
  }
  const stopDialing = node ? keepConnected(node, opts.peers, 2000) : () => {};
  const connections = node ? opts.peers.map((addr) => createWitnessConnection(node, addr, { timeoutMs: opts.timeoutMs })) : [];
  const c2spConnections: C2spWitnessConnection[] = [];
  const publishers: CheckpointPublisherImpl[] = [];
  const gossip = node
    ? async (cp: Checkpoint) => {
        await node.services.pubsub.publish(CHECKPOINT_TOPIC, encodeMessage(cp));
      }
    : undefined;
  return {
    node,
    connections,
    multiaddrs: () => (node ? fullAddrs(node) : []),
    publisherFor(policy, store) {
      const get = typeof store === 'function' ? store : () => store;
      const lazy: PublisherStore = {
        descriptor: () => need().descriptor(),
        inclusionProof: (seq, size) => need().inclusionProof(seq, size),
        consistencyProof: (a, b) => need().consistencyProof(a, b),
        putCheckpoint: (cp) => need().putCheckpoint(cp),
      };
      function need(): PublisherStore {
        const s = get();
        if (!s) throw new Error(`the store of ${policy.log} is not open yet`);
        return s;
      }
      // Witnesses of this policy only: a peer list may serve several logs with other policies.
      // The policy's C2SP witnesses get one HTTP connection each, for this log.
      const http = c2spWitnessesOf(policy).map((witness) =>
        createC2spWitnessConnection({ witness, origin: policy.log, logger, metrics: opts.metrics, timeoutMs: opts.timeoutMs }),
      );
      c2spConnections.push(...http);
      const p = createCheckpointPublisher(
        {
          store: lazy,
          policy,
          witnesses: [...connections, ...http],
          gossip,
          logger,
          metrics: opts.metrics,
          witnessOf: (addr) => opts.peerKeys?.get(addr),
        },
        { timeoutMs: opts.timeoutMs, resubmitMs: opts.resubmitMs },
      );
      p.start();
      publishers.push(p);
      return p;
    },
    async close() {
      stopDialing();
      await Promise.allSettled(publishers.map((p) => p.close()));
      await Promise.allSettled([...connections, ...c2spConnections].map((c) => c.close()));
      await node?.stop();
    },
  };
}

export interface StartWitnessingOptions {
  dataDir: string;
  /** config.witnessPeers, as the sequencer config holds them (opaque there). */
  witnessPeers: unknown[];
  policy: WitnessPolicy | undefined;
  logger?: Logger;
  metrics?: PublisherMetrics;
  timeoutMs?: number;
  resubmitMs?: number;
}

export interface WitnessHook {
  readonly witnessing: SequencerWitnessing;
  /**
   * The sequencer's `publisherFor(origin, policy, store)`: the log's own open store when given (so a
   * publish during the log's opening never finds it "not open yet"), else looked up when needed.
   */
  publisherFor(
    store: (origin: string) => PublisherStore | undefined,
  ): (origin: string, policy: WitnessPolicy | undefined, open?: PublisherStore) => CheckpointPublisherImpl | undefined;
  close(): Promise<void>;
}

/**
 * The sequencer's witness wiring: nothing when the policy asks for no witnesses (quorum 0); with
 * a quorum but neither libp2p peers configured nor a policy witness with a C2SP `url` and `vkey`,
 * nothing either, and the reason is logged (the sequencer then publishes nothing, which is the
 * safe side). Throws for peers that are not /p2p/ multiaddrs.
 */
export async function startWitnessing(o: StartWitnessingOptions): Promise<WitnessHook | undefined> {
  if (!o.policy || o.policy.quorum === 0) return undefined;
  const logger = o.logger ?? silentLogger();
  const peers = readWitnessPeers(o.witnessPeers);
  const http = c2spWitnessesOf(o.policy);
  if (peers.length === 0 && http.length === 0) {
    logger.warn(
      {
        event: 'quorum_lost',
        log: o.policy.log,
        quorum: o.policy.quorum,
        reason: 'config.witnessPeers is empty and no policy witness has url and vkey',
      },
      `the policy for ${o.policy.log} asks for ${o.policy.quorum} witness cosignatures but config.witnessPeers is empty and no policy witness has a C2SP url and vkey: no checkpoint will be published`,
    );
    o.metrics?.set('cookwala_quorum_missing', 1, { log: o.policy.log });
    return undefined;
  }
  const witnessing = await createSequencerWitnessing({
    peerKeyPath: join(o.dataDir, 'peer.key'),
    peers,
    peerKeys: readWitnessPeerKeys(o.witnessPeers),
    logger,
    metrics: o.metrics,
    timeoutMs: o.timeoutMs,
    resubmitMs: o.resubmitMs,
  });
  logger.info(
    {
      event: 'witnessing',
      log: o.policy.log,
      witnesses: peers,
      c2spWitnesses: http.map((w) => w.url),
      quorum: o.policy.quorum,
      multiaddrs: witnessing.multiaddrs(),
    },
    `witnessing ${o.policy.log} with ${peers.length} libp2p witness peer(s) and ${http.length} C2SP witness(es), quorum ${o.policy.quorum}`,
  );
  return {
    witnessing,
    publisherFor: (store) => (origin, policy, open) =>
      policy && policy.quorum > 0 ? witnessing.publisherFor(policy, open ?? (() => store(origin))) : undefined,
    close: () => witnessing.close(),
  };
}
