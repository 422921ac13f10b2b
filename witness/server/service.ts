// witness/server/service.ts: `createWitness(deps, opts)`, the cosigning witness of docs/design.md §7 as one
// object: a libp2p node serving `/cookwala/witness/1.0.0` (protocol-server.ts ->
// processAddCheckpoint), gossip on `/cookwala/checkpoints/1` and `/cookwala/forks/1` (gossip.ts),
// the status API (status-api.ts), and on the same HTTP port the C2SP tlog-witness interface
// (c2sp-http.ts: POST /add-checkpoint, GET /<sha256(origin)>/checkpoint; docs/design.md §7a) over the same
// state, with logs from the config and from followed logs/v0 lists (log-list-follow.ts). Every
// libp2p cosignature also comes as cosignature/v1; with an ML-DSA-44 key (deps.mldsaSkey) the
// C2SP answer carries an ML-DSA-44 cosignature too (mldsa-cosigner.ts). Nothing listens until start(); only the CLI calls it.
// With verifyWorkers > 0 the sequencers' and logs' signatures are checked on worker threads
// (off-thread-verify.ts over platform/sig-pool.ts; same decisions), closed by stop(). With
// signWorker and the witness's secret key, its cosignatures are signed on one worker thread that
// holds that key (signing-worker.ts; same bytes, still committed before answered), closed by stop().
// A witness gossips every checkpoint it cosigns (debounced per log), not only what sequencers
// publish: a sequencer that shows different witnesses different trees cannot also keep them
// from telling each other, so a split view surfaces as a ForkProof within a gossip round
// (gossip-relay.ts). The HTTP port also serves /witness.v0.json and /about (discovery.ts), and
// /metrics carries per-log freshness, bounded (log-freshness.ts).
// Invariant: no exception from a peer's input reaches the event loop.
// Logging: one pino logger in deps (platform/logger.ts); a newly stored ForkProof is one
// `fork_detected` line (warn, with `log`, `seq`, both heads and the source; a C2SP log's fork,
// proved by two signed notes, with both roots and `form: "NoteForkProof"`, kept but not gossiped:
// the fork topic carries JSON ForkProofs), gossip and stream failures are `witness_error`.

import { availableParallelism } from 'node:os';
import type { AdmitSummary, Witness, WitnessInfo, WitnessOptions, WitnessServiceDeps } from './service-types.ts';
import { createSigningWorker } from './signing-worker.ts';
import { verifyNoteForkProof, type NoteForkProof } from '../../verifier/documents/index.ts';
import type { WitnessDeps } from './add-checkpoint.ts';
import { failureReply, parseRequest, type AddCheckpointRequest, type Reply } from '../wire/messages.ts';
import { createP2pNode, fullAddrs, keepConnected, type P2pNode } from '../wire/p2p-node.ts';
import { registerWitnessProtocol } from './protocol-server.ts';
import { CHECKPOINT_TOPIC, TOPICS } from './gossip.ts';
import { createGossipRelay } from './gossip-relay.ts';
import { createLogFreshness } from './log-freshness.ts';
import { registerDiscoveryRoutes } from './discovery.ts';
import { buildStatusApp } from './status-api.ts';
import { createWitnessMetrics } from './metrics.ts';
import { silentLogger } from '../../platform/index.ts';
import { createWitnessCosigner, type WitnessCosigner } from './note-cosigner.ts';
import { createMldsaCosigner } from './mldsa-cosigner.ts';
import { createLogRegistry } from './c2sp-logs.ts';
import type { C2spWitnessDeps } from './c2sp-add-checkpoint.ts';
import { registerC2spRoutes } from './c2sp-http.ts';
import { refreshLogLists, restoreAdmissions } from './log-list-follow.ts';
import { processAddCheckpointBoth } from './add-checkpoint.ts';
import { createSigPool } from '../../platform/index.ts';
import { defaultBackend } from '../../verifier/crypto/index.ts';
import { createOffThreadVerifier } from './off-thread-verify.ts';

export type { AdmitSummary, Witness, WitnessInfo, WitnessOptions, WitnessServiceDeps } from './service-types.ts';

/**
 * The worker threads the witness CLI uses on this machine (docs/design.md §13): none on one core; else one
 * verify worker per core, at most 4 (one event loop cannot feed more), and one signing worker.
 * Two verify workers on two cores beat one in the witness bench (docs/benchmarks.md): a burst of
 * requests is checked on both cores while the event loop waits for their verdicts.
 */
export function defaultWorkers(cores = availableParallelism()): { verifyWorkers: number; signWorker: boolean } {
  return cores > 1 ? { verifyWorkers: Math.min(cores, 4), signWorker: true } : { verifyWorkers: 0, signWorker: false };
}

export function createWitness(deps: WitnessServiceDeps, opts: WitnessOptions): Witness {
  const logger = deps.logger ?? silentLogger();
  const clock = deps.clock ?? Date.now;
  const metrics = createWitnessMetrics();
  const admitted = new Map(opts.logs.map((l) => [l.log, l]));
  const logLists = [...(opts.c2sp?.logLists ?? [])];
  const logs = { get: (origin: string) => admitted.get(origin) };
  // C2SP (docs/design.md §7a): every Cookwala log by its sequencer key's note form, C2SP logs by vkey.
  const pool = (opts.verifyWorkers ?? 0) > 0 ? createSigPool({ size: opts.verifyWorkers }) : undefined;
  const offThread = pool ? createOffThreadVerifier(pool, defaultBackend()) : undefined;
  if (opts.signWorker && !deps.secretKey) throw new TypeError('signWorker needs the witness secret key');
  const signWorker = opts.signWorker && deps.secretKey ? createSigningWorker(deps.secretKey, deps.signer) : undefined;
  const reg = createLogRegistry(opts.logs, opts.c2sp?.logs ?? [], offThread?.backend);
  if (!reg.ok) throw new TypeError(`witness logs: ${reg.code}: ${reg.detail}`);
  const registry = reg.value;
  const cosigner: WitnessCosigner | undefined =
    deps.signer.alg === 'EdDSA' ? createWitnessCosigner(opts.c2sp?.name ?? deps.keyRecord.kid, deps.signer) : undefined;
  const pq = deps.mldsaSkey === undefined ? undefined : createMldsaCosigner(deps.mldsaSkey);
  if (pq && !pq.ok) throw new TypeError(`witness ML-DSA-44 key: ${pq.code}: ${pq.detail}`);
  const mldsaCosigner = pq?.value;
  let listTimer: NodeJS.Timeout | undefined;
  metrics.set('cookwala_witness_logs', registry.size());
  let node: P2pNode | undefined;
  let httpUrl: string | undefined;
  let stopDialing = () => {};
  const gossip = createGossipRelay({ logger, metrics, logs, state: deps.state, delayMs: opts.gossipDelayMs });

  const wdeps: WitnessDeps = {
    state: deps.state,
    logs,
    signer: deps.signer,
    clock,
    hooks: deps.hooks,
    onFork: (fp) => gossip.forkFromRequest(fp),
    cosigner,
    offThread,
    signWorker,
  };

  // The per-log gauges are set when /metrics renders, not per request: a labelled prom-client
  // set costs tens of µs at 1,000 logs, per cosignature. Same values at every scrape.
  const freshness = createLogFreshness(opts.perLogMetricsLimit);

  const afterCosign = (req: AddCheckpointRequest, cosignature: Reply & { ok: true }) => {
    metrics.inc('cookwala_witness_cosignatures_total');
    freshness.record(req.checkpoint.log, req.checkpoint.seq, clock());
    gossip.cosigned(req.checkpoint, cosignature.cosignature);
  };

  const handleFrame = async (frame: Uint8Array): Promise<Reply> => {
    const req = parseRequest(frame);
    if (!req.ok) {
      metrics.inc('cookwala_witness_requests_total', { code: req.code });
      return failureReply(req);
    }
    const r = await processAddCheckpointBoth(req.value, wdeps);
    const reply: Reply = r.ok
      ? { ok: true, cosignature: r.value.cosignature, ...(r.value.noteCosignature ? { noteCosignature: r.value.noteCosignature } : {}) }
      : failureReply(r);
    metrics.inc('cookwala_witness_requests_total', { code: reply.ok ? 'ok' : reply.code });
    if (reply.ok) afterCosign(req.value, reply);
    return reply;
  };

  const app = buildStatusApp({
    logger,
    state: deps.state,
    logs: () => [...admitted.values()],
    c2spLogs: () => registry.origins().flatMap((o) => (admitted.has(o) ? [] : [{ origin: o, vkey: registry.vkeyOf(o)! }])),
    keyRecord: deps.keyRecord,
    metrics: async () => {
      metrics.set('cookwala_witness_peers', node ? node.getPeers().length : 0);
      metrics.set('cookwala_witness_gossip_peers', node ? node.services.pubsub.getSubscribers(CHECKPOINT_TOPIC).length : 0);
      // A restarted witness reports the logs it cosigned before, from its state (read once).
      if (!freshness.seeded) freshness.seed(await deps.state.logs());
      freshness.flush(metrics, clock());
      return metrics.render();
    },
    // Its C2SP identity too, so `cookwala policy add-witness --from <status URL>` keeps the vkey.
    info: () => ({
      peerId: node?.peerId.toString() ?? null,
      multiaddrs: node ? fullAddrs(node) : [],
      ...(cosigner ? { c2sp: { name: cosigner.name, vkey: cosigner.vkey } } : {}),
    }),
  });

  const recordNoteFork = (fp: NoteForkProof) => {
    const v = verifyNoteForkProof(fp, registry.vkeyOf(fp.log) ?? '');
    const seq = v.ok ? v.value.seq : Number(fp.a.split('\n')[1]);
    metrics.inc('cookwala_witness_forks_total', { log: fp.log, source: 'request' });
    logger.warn(
      {
        event: 'fork_detected',
        log: fp.log,
        seq,
        roots: v.ok ? [v.value.a.root, v.value.b.root] : undefined,
        form: fp.kind,
        source: 'request',
      },
      `fork of ${fp.log} at size ${seq}: two checkpoints signed by its key (listed in /v1/forks)`,
    );
  };

  // C2SP tlog-witness on the same HTTP port (c2sp-http.ts): same state, same lock as libp2p.
  const c2spDeps: C2spWitnessDeps | undefined = cosigner && {
    state: deps.state,
    logKeys: registry,
    cosigner,
    mldsaCosigner,
    clock,
    offThread,
    signWorker: signWorker && { worker: signWorker, signer: deps.signer },
    hooks: opts.c2sp?.hooks,
    onEvidence: (e) =>
      logger.warn(
        { event: 'c2sp_refused', log: e.origin, code: e.code, note: e.note },
        `C2SP checkpoint of ${e.origin} refused (${e.code}): ${e.detail}`,
      ),
    onFork: recordNoteFork,
  };
  if (c2spDeps) {
    registerC2spRoutes(app, {
      witness: c2spDeps,
      origins: () => registry.origins(),
      onResult: (r) => {
        metrics.inc('cookwala_witness_requests_total', { code: r.ok ? 'ok' : r.code });
        if (r.ok) {
          metrics.inc('cookwala_witness_cosignatures_total');
          freshness.record(r.value.origin, r.value.size, clock());
        }
      },
    });
    const c2spName = c2spDeps.cosigner.name;
    const vkeys = mldsaCosigner ? [c2spDeps.cosigner.vkey, mldsaCosigner.vkey] : [c2spDeps.cosigner.vkey];
    registerDiscoveryRoutes(app, {
      name: c2spName,
      vkeys,
      baseUrl: () => {
        const u = opts.c2sp?.publicUrl ?? httpUrl;
        return u === undefined ? undefined : u.endsWith('/') ? u : `${u}/`;
      },
      logCount: () => registry.size(),
      lists: () => logLists,
      listRefreshMs: opts.c2sp?.logListRefreshMs ?? 3_600_000,
      software: deps.software ?? { name: 'cookwala-log', version: 'unknown' },
    });
  }

  const followLists = async () => {
    const lists = logLists;
    if (lists.length === 0) return;
    const sum = await refreshLogLists({
      lists,
      registry,
      state: deps.state,
      clock,
      onAdded: (origin, source) => logger.info({ event: 'log_admitted', log: origin, source }, `admitted ${origin} from ${source}`),
      onRefused: (origin, source, detail) =>
        logger.warn({ event: 'log_list_refused', log: origin, source }, `${source}: ${origin}: ${detail}`),
      onError: (source, detail) => logger.warn({ event: 'log_list_error', source }, `log list ${source}: ${detail}`),
    });
    metrics.set('cookwala_witness_logs', registry.size());
    return sum;
  };

  const info = (): WitnessInfo => ({
    peerId: node?.peerId.toString() ?? '',
    multiaddrs: node ? fullAddrs(node) : [],
    ...(httpUrl ? { http: httpUrl } : {}),
    keyRecord: deps.keyRecord,
    ...(cosigner
      ? { c2sp: { name: cosigner.name, vkey: cosigner.vkey, ...(mldsaCosigner ? { mldsaVkey: mldsaCosigner.vkey } : {}) } }
      : {}),
  });

  const stop = async () => {
    stopDialing();
    gossip.stop();
    if (listTimer) clearInterval(listTimer);
    await app.close();
    await node?.stop();
    await pool?.close();
    await signWorker?.close();
  };

  const startListTimer = () => {
    if (listTimer || logLists.length === 0) return;
    listTimer = setInterval(
      () => void followLists().catch((e) => logger.error({ event: 'witness_error', err: e }, 'log list refresh failed')),
      opts.c2sp?.logListRefreshMs ?? 3_600_000,
    );
    listTimer.unref();
  };

  const admitConfig: Witness['admitConfig'] = async (c) => {
    const sum: AdmitSummary = { added: [], lists: [], refused: [] };
    for (const l of c.logs) {
      const have = admitted.get(l.log);
      if (have && have.sequencer.publicKey !== l.sequencer.publicKey) {
        sum.refused.push({ log: l.log, detail: `admitted with key ${have.sequencer.kid}; a witness does not switch a log's key` });
        continue;
      }
      const r = registry.admitCookwala(l);
      if (!r.ok) {
        sum.refused.push({ log: l.log, detail: r.detail });
        continue;
      }
      // The same key again may carry new facts (revokedAt): the record is replaced, the key kept.
      admitted.set(l.log, l);
      if (!have) sum.added.push(l.log);
    }
    for (const l of c.c2spLogs ?? []) {
      const r = registry.admit(l);
      if (!r.ok) sum.refused.push({ log: l.origin, detail: r.detail });
      else if (r.value.added) sum.added.push(l.origin);
    }
    for (const list of c.logLists ?? [])
      if (!logLists.includes(list)) {
        logLists.push(list);
        sum.lists.push(list);
      }
    metrics.set('cookwala_witness_logs', registry.size());
    for (const log of sum.added) logger.info({ event: 'log_admitted', log, source: 'config' }, `admitted ${log} from the witness config`);
    for (const r of sum.refused) logger.warn({ event: 'config_refused', log: r.log }, `witness config: ${r.log}: ${r.detail}`);
    if (sum.lists.length > 0 && node) {
      await followLists();
      startListTimer();
    }
    return sum;
  };

  const startAll = async (): Promise<WitnessInfo> => {
    node = await createP2pNode({ privateKey: opts.peerKey, listen: opts.listen, topics: TOPICS });
    gossip.attach(node);
    await registerWitnessProtocol(node, (frame) => handleFrame(frame), {
      onError: (e) => logger.warn({ event: 'witness_error', err: e }, `stream: ${e.message}`),
    });
    stopDialing = keepConnected(node, opts.bootstrap ?? [], opts.redialMs ?? 2000);
    // Logs learned from lists before serving: stored ones first, then a fresh read of each list.
    await restoreAdmissions({
      registry,
      state: deps.state,
      onRefused: (o, src, d) => logger.warn({ event: 'log_list_refused', log: o, source: src }, d),
    });
    await followLists();
    startListTimer();
    if (opts.httpPort !== undefined) httpUrl = await app.listen({ host: opts.httpHost ?? '127.0.0.1', port: opts.httpPort });
    return info();
  };

  return {
    handleFrame,
    app,
    metrics,
    info,
    admitConfig,
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
