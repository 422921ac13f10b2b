// witness/server/service.ts: `createWitness(deps, opts)`, the cosigning witness of DESIGN §7 as one
// object: a libp2p node serving `/cookwala/witness/1.0.0` (protocol-server.ts ->
// processAddCheckpoint), gossip on `/cookwala/checkpoints/1` and `/cookwala/forks/1` (gossip.ts),
// and the status API (status-api.ts). Nothing listens until start(); only the CLI calls it.
// A witness gossips every checkpoint it cosigns (debounced per log), not only what sequencers
// publish: a sequencer that shows different witnesses different trees cannot also keep them
// from telling each other, so a split view surfaces as a ForkProof within a gossip round.
// Invariants: a gossiped checkpoint or fork is judged (signatures with the admitted key) before
// it is stored or forwarded; no exception from a peer's input reaches the event loop.

import type { PrivateKey } from '@libp2p/interface';
import type { FastifyInstance } from 'fastify';
import type { KeyRecord } from '../../verifier/documents/keys.ts';
import type { Signer } from '../../verifier/documents/signature.ts';
import { addCosignature, type Checkpoint } from '../../verifier/documents/checkpoint.ts';
import type { ForkProof } from '../../verifier/documents/fork-proof.ts';
import { processAddCheckpoint, type AdmittedLog, type WitnessDeps } from './add-checkpoint.ts';
import { encodeMessage, failureReply, parseRequest, replyOf, type AddCheckpointRequest, type Reply } from '../wire/messages.ts';
import { createP2pNode, fullAddrs, keepConnected, type P2pNode } from '../wire/p2p-node.ts';
import { registerWitnessProtocol } from './protocol-server.ts';
import { CHECKPOINT_TOPIC, FORK_TOPIC, TOPICS, judgeCheckpoint, judgeFork, type Verdict } from './gossip.ts';
import { buildStatusApp } from './status-api.ts';
import { createMetrics, WITNESS_METRICS, type Metrics, type WitnessMetricName } from './metrics.ts';
import type { StateStore } from './state.ts';

export interface WitnessServiceDeps {
  state: StateStore;
  signer: Signer;
  keyRecord: KeyRecord;
  clock?: () => number;
  log?: (line: string) => void;
  hooks?: WitnessDeps['hooks'];
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
}

export interface WitnessInfo {
  peerId: string;
  multiaddrs: string[];
  http?: string;
  keyRecord: KeyRecord;
}

export interface Witness {
  start(): Promise<WitnessInfo>;
  stop(): Promise<void>;
  /** One request frame in, one reply out: the protocol without the transport (tests, bench). */
  handleFrame(frame: Uint8Array): Promise<Reply>;
  readonly node: P2pNode | undefined;
  readonly app: FastifyInstance;
  readonly metrics: Metrics<WitnessMetricName>;
  info(): WitnessInfo;
}

export function createWitness(deps: WitnessServiceDeps, opts: WitnessOptions): Witness {
  const log = deps.log ?? (() => {});
  const clock = deps.clock ?? Date.now;
  const metrics = createMetrics(WITNESS_METRICS);
  const admitted = new Map(opts.logs.map((l) => [l.log, l]));
  const logs = { get: (origin: string) => admitted.get(origin) };
  metrics.set('cookwala_witness_logs', admitted.size);
  let node: P2pNode | undefined;
  let httpUrl: string | undefined;
  let stopDialing = () => {};
  const pendingGossip = new Map<string, Checkpoint>();
  let gossipTimer: NodeJS.Timeout | undefined;

  const publish = async (topic: string, doc: unknown) => {
    if (!node) return;
    try {
      await node.services.pubsub.publish(topic, encodeMessage(doc));
    } catch (e) {
      log(`gossip publish on ${topic} failed: ${(e as Error).message}`);
    }
  };

  const flushGossip = () => {
    gossipTimer = undefined;
    const batch = [...pendingGossip.values()];
    pendingGossip.clear();
    for (const cp of batch) void publish(CHECKPOINT_TOPIC, cp);
  };

  const recordFork = async (fp: ForkProof, source: 'request' | 'gossip', republish: boolean) => {
    metrics.inc('cookwala_witness_forks_total', { source });
    log(`FORK ${fp.log} at seq ${fp.a.seq}: ${fp.a.head} vs ${fp.b.head} (from ${source})`);
    if (republish) await publish(FORK_TOPIC, fp);
  };

  const wdeps: WitnessDeps = {
    state: deps.state,
    logs,
    signer: deps.signer,
    clock,
    hooks: deps.hooks,
    onFork: (fp) => recordFork(fp, 'request', true),
  };

  const afterCosign = (req: AddCheckpointRequest, cosignature: Reply & { ok: true }) => {
    metrics.inc('cookwala_witness_cosignatures_total');
    metrics.set('cookwala_witness_log_seq', req.checkpoint.seq, { log: req.checkpoint.log });
    if (!node) return;
    pendingGossip.set(req.checkpoint.log, addCosignature(req.checkpoint, cosignature.cosignature));
    gossipTimer ??= setTimeout(flushGossip, opts.gossipDelayMs ?? 100);
  };

  const handleFrame = async (frame: Uint8Array): Promise<Reply> => {
    const req = parseRequest(frame);
    if (!req.ok) {
      metrics.inc('cookwala_witness_requests_total', { code: req.code });
      return failureReply(req);
    }
    const reply = replyOf(await processAddCheckpoint(req.value, wdeps));
    metrics.inc('cookwala_witness_requests_total', { code: reply.ok ? 'ok' : reply.code });
    if (reply.ok) afterCosign(req.value, reply);
    return reply;
  };

  const validator = (judge: (data: Uint8Array) => Promise<Verdict>, topic: string) => async (_peer: unknown, msg: { data: Uint8Array }) => {
    let verdict: Verdict;
    try {
      verdict = await judge(msg.data);
    } catch (e) {
      log(`gossip judge on ${topic} threw: ${(e as Error).message}`);
      verdict = 'reject';
    }
    metrics.inc('cookwala_witness_gossip_total', { topic, verdict });
    return verdict as never;
  };

  const judgeCheckpointMessage = async (data: Uint8Array): Promise<Verdict> => {
    const j = await judgeCheckpoint(data, { logs, state: deps.state });
    // Publishing waits for nobody: validation answers gossipsub now, the proof follows.
    if (j.fork && (await deps.state.putFork(j.fork))) void recordFork(j.fork, 'gossip', true);
    return j.verdict;
  };
  const judgeForkMessage = async (data: Uint8Array): Promise<Verdict> => {
    const j = judgeFork(data, { logs });
    // Forwarding is gossipsub's job once we accept; we only store and count.
    if (j.fork && (await deps.state.putFork(j.fork))) await recordFork(j.fork, 'gossip', false);
    return j.verdict;
  };

  const app = buildStatusApp({
    state: deps.state,
    logs: () => [...admitted.values()],
    keyRecord: deps.keyRecord,
    metrics: () => {
      metrics.set('cookwala_witness_peers', node ? node.getPeers().length : 0);
      metrics.set('cookwala_witness_gossip_peers', node ? node.services.pubsub.getSubscribers(CHECKPOINT_TOPIC).length : 0);
      return metrics.render();
    },
    info: () => ({ peerId: node?.peerId.toString() ?? null, multiaddrs: node ? fullAddrs(node) : [] }),
  });

  const info = (): WitnessInfo => ({ peerId: node?.peerId.toString() ?? '', multiaddrs: node ? fullAddrs(node) : [], ...(httpUrl ? { http: httpUrl } : {}), keyRecord: deps.keyRecord });

  const stop = async () => {
    stopDialing();
    if (gossipTimer) clearTimeout(gossipTimer);
    await app.close();
    await node?.stop();
  };

  const startAll = async (): Promise<WitnessInfo> => {
    node = await createP2pNode({ privateKey: opts.peerKey, listen: opts.listen, topics: TOPICS });
    const pubsub = node.services.pubsub;
    pubsub.topicValidators.set(CHECKPOINT_TOPIC, validator(judgeCheckpointMessage, CHECKPOINT_TOPIC));
    pubsub.topicValidators.set(FORK_TOPIC, validator(judgeForkMessage, FORK_TOPIC));
    for (const t of TOPICS) pubsub.subscribe(t);
    await registerWitnessProtocol(node, (frame) => handleFrame(frame), { onError: (e) => log(`stream: ${e.message}`) });
    stopDialing = keepConnected(node, opts.bootstrap ?? [], opts.redialMs ?? 2000);
    if (opts.httpPort !== undefined) httpUrl = await app.listen({ host: opts.httpHost ?? '127.0.0.1', port: opts.httpPort });
    return info();
  };

  return {
    handleFrame,
    app,
    metrics,
    info,
    get node() {
      return node;
    },
    async start() {
      try {
        return await startAll();
      } catch (e) {
        await stop().catch(() => undefined);
        throw e;
      }
    },
    stop,
  };
}
