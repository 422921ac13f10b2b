// witness/server/gossip-relay.ts: the witness's side of the libp2p gossip (docs/design.md §7), split
// out of service.ts: it publishes every checkpoint the witness cosigns on `/cookwala/checkpoints/1`
// (debounced per log: a later cosignature within the delay replaces the pending one unbuilt), judges
// what peers publish on both topics with gossip.ts, stores the fork proofs it learns of and reports
// each newly stored one (`fork_detected`, cookwala_witness_forks_total). While no peer is on the
// checkpoint topic nothing is published (it would reach nobody, yet gossipsub would still encode,
// hash and cache every message). Left out: the libp2p node itself (the service makes and stops it).
// Invariants: a gossiped checkpoint or fork is judged (signatures with the admitted key) before it
// is stored or forwarded; no exception from a peer's input reaches the event loop.

import type { Signature } from '../../verifier/signing/index.ts';
import { addCosignature, type Checkpoint, type ForkProof } from '../../verifier/documents/index.ts';
import type { Logger } from '../../platform/index.ts';
import type { AdmittedLog } from './add-checkpoint.ts';
import { encodeMessage } from '../wire/messages.ts';
import type { P2pNode } from '../wire/p2p-node.ts';
import { CHECKPOINT_TOPIC, FORK_TOPIC, TOPICS, judgeCheckpoint, judgeFork, type Verdict } from './gossip.ts';
import type { Metrics, WitnessMetricName } from './metrics.ts';
import type { StateStore } from './state.ts';

export interface GossipRelayDeps {
  logger: Logger;
  metrics: Metrics<WitnessMetricName>;
  logs: { get(origin: string): AdmittedLog | undefined };
  state: StateStore;
  /** Delay before gossiping a cosigned checkpoint (default 100 ms). */
  delayMs?: number;
}

export interface GossipRelay {
  /** Subscribe to the topics and judge what arrives on them. */
  attach(node: P2pNode): void;
  /** A checkpoint the witness cosigned: published after the delay, once a peer listens. */
  cosigned(cp: Checkpoint, cosignature: Signature): void;
  /** A fork proof found by a request: counted, logged, published on the fork topic. */
  forkFromRequest(fp: ForkProof): Promise<void>;
  stop(): void;
}

export function createGossipRelay(deps: GossipRelayDeps): GossipRelay {
  const { logger, metrics } = deps;
  let node: P2pNode | undefined;
  const pending = new Map<string, [Checkpoint, Signature]>();
  let timer: NodeJS.Timeout | undefined;

  const publish = async (topic: string, doc: unknown) => {
    if (!node) return;
    try {
      await node.services.pubsub.publish(topic, encodeMessage(doc));
    } catch (e) {
      logger.warn({ event: 'witness_error', topic, err: e }, `gossip publish on ${topic} failed`);
    }
  };

  const flush = () => {
    timer = undefined;
    const batch = [...pending.values()];
    pending.clear();
    // The next cosignature of each log is published once a peer has joined.
    if (node && node.services.pubsub.getSubscribers(CHECKPOINT_TOPIC).length === 0) return;
    for (const [cp, cosignature] of batch) void publish(CHECKPOINT_TOPIC, addCosignature(cp, cosignature));
  };

  const recordFork = async (fp: ForkProof, source: 'request' | 'gossip', republish: boolean) => {
    metrics.inc('cookwala_witness_forks_total', { log: fp.log, source });
    logger.warn(
      { event: 'fork_detected', log: fp.log, seq: fp.a.seq, heads: [fp.a.head, fp.b.head], source },
      `fork of ${fp.log} at seq ${fp.a.seq}: two checkpoints signed by its sequencer key`,
    );
    if (republish) await publish(FORK_TOPIC, fp);
  };

  const validator = (judge: (data: Uint8Array) => Promise<Verdict>, topic: string) => async (_peer: unknown, msg: { data: Uint8Array }) => {
    let verdict: Verdict;
    try {
      verdict = await judge(msg.data);
    } catch (e) {
      logger.error({ event: 'witness_error', topic, err: e }, `gossip judge on ${topic} threw`);
      verdict = 'reject';
    }
    metrics.inc('cookwala_witness_gossip_total', { topic, verdict });
    return verdict as never;
  };

  const judgeCheckpointMessage = async (data: Uint8Array): Promise<Verdict> => {
    const j = await judgeCheckpoint(data, { logs: deps.logs, state: deps.state });
    // Publishing waits for nobody: validation answers gossipsub now, the proof follows.
    if (j.fork && (await deps.state.putFork(j.fork))) void recordFork(j.fork, 'gossip', true);
    return j.verdict;
  };
  const judgeForkMessage = async (data: Uint8Array): Promise<Verdict> => {
    const j = judgeFork(data, { logs: deps.logs });
    // Forwarding is gossipsub's job once we accept; we only store and count.
    if (j.fork && (await deps.state.putFork(j.fork))) await recordFork(j.fork, 'gossip', false);
    return j.verdict;
  };

  return {
    attach(n) {
      node = n;
      const pubsub = n.services.pubsub;
      pubsub.topicValidators.set(CHECKPOINT_TOPIC, validator(judgeCheckpointMessage, CHECKPOINT_TOPIC));
      pubsub.topicValidators.set(FORK_TOPIC, validator(judgeForkMessage, FORK_TOPIC));
      for (const t of TOPICS) pubsub.subscribe(t);
    },
    cosigned(cp, cosignature) {
      if (!node) return;
      pending.set(cp.log, [cp, cosignature]);
      timer ??= setTimeout(flush, deps.delayMs ?? 100);
    },
    forkFromRequest: (fp) => recordFork(fp, 'request', true),
    stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
