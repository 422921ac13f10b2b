// witness/wire/p2p-node.ts: the libp2p node every witness-network participant runs (docs/design.md §7, §15):
// TCP, noise, yamux, identify and @libp2p/gossipsub 17 (the @chainsafe one silently drops
// messages under libp2p 3). Used by the witness and by the sequencer's witness client.
// `keepConnected` dials the bootstrap list and redials lost peers, which is all the peer discovery
// a small witness network needs (mDNS and DHT left out).
// Invariant: nothing listens on anything but what the caller passes (tests: 127.0.0.1 only).

import { createLibp2p, type Libp2p } from 'libp2p';
import { tcp } from '@libp2p/tcp';
import { noise } from '@chainsafe/libp2p-noise';
import { yamux } from '@chainsafe/libp2p-yamux';
import { identify } from '@libp2p/identify';
import { gossipsub, StrictNoSign, type GossipSub } from '@libp2p/gossipsub';
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr';
import type { PrivateKey } from '@libp2p/interface';

export type P2pNode = Libp2p<{ identify: ReturnType<ReturnType<typeof identify>>; pubsub: GossipSub }>;

export interface P2pNodeOptions {
  privateKey: PrivateKey;
  listen: string[];
  /** Topics this node may carry; others are dropped by gossipsub. */
  topics?: string[];
}

export async function createP2pNode(opts: P2pNodeOptions): Promise<P2pNode> {
  return (await createLibp2p({
    privateKey: opts.privateKey,
    addresses: { listen: opts.listen },
    transports: [tcp()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    services: {
      identify: identify(),
      pubsub: gossipsub({
        allowPublishToZeroTopicPeers: true,
        emitSelf: false,
        // The mesh of a witness network is small: flood to every topic peer on publish.
        floodPublish: true,
        // Our messages authenticate themselves (sequencer signatures, fork proofs), so libp2p's
        // per-message signature adds nothing but a sign and a verify per message; without it the
        // message id is the hash of the content, so one checkpoint from two peers is one message.
        globalSignaturePolicy: StrictNoSign,
        ignoreDuplicatePublishError: true,
        // 1 MiB gossip messages at most, like the protocol frames.
        maxInboundDataLength: 1024 * 1024 + 4096,
        ...(opts.topics ? { allowedTopics: opts.topics } : {}),
      }),
    },
  })) as unknown as P2pNode;
}

export function parseMultiaddr(s: string): Multiaddr {
  return multiaddr(s);
}

/** The node's addresses, each ending in /p2p/<peerId>. */
export function fullAddrs(node: P2pNode): string[] {
  return node.getMultiaddrs().map((a) => a.toString());
}

/** Dial every address now and redial any that dropped every `intervalMs`; returns a stopper. */
export function keepConnected(node: P2pNode, addrs: string[], intervalMs = 2000, onError?: (addr: string, e: Error) => void): () => void {
  if (addrs.length === 0) return () => {};
  const targets = addrs.map((a) => ({ text: a, ma: parseMultiaddr(a) }));
  let stopped = false;
  const tick = async () => {
    for (const t of targets) {
      if (stopped) return;
      const peer = t.ma.getComponents().find((c) => c.name === 'p2p')?.value;
      if (peer && peer === node.peerId.toString()) continue;
      if (peer && node.getConnections().some((c) => c.remotePeer.toString() === peer)) continue;
      try {
        await node.dial(t.ma, { signal: AbortSignal.timeout(5000) });
      } catch (e) {
        onError?.(t.text, e as Error);
      }
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
