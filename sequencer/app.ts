// sequencer/app.ts: the sequencer factory (STYLE: `createSequencer(deps, opts)`, nothing listens
// here; cli.ts does). It opens the hosted logs (a held store is store_locked, a store behind its
// last checkpoint is store_behind_checkpoint: both fatal to the caller), builds the fastify app
// with ajv that never rewrites data (removeAdditional/useDefaults/coerceTypes all off), the body
// parsers, problem+json errors, operator auth and the routes, and starts the checkpoint and
// liveness timers (opts.timers false leaves them to tick(), for tests on a manual clock).
// close(): stop accepting requests and let in-flight ones finish, then drain every committer,
// sign a last checkpoint, close the stores and the signature pool (if created here).

import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { fail, ProtocolError } from '../verifier/errors.ts';
import type { KeyRecord } from '../verifier/documents/keys.ts';
import type { Signer } from '../verifier/documents/signature.ts';
import type { WitnessPolicy } from '../verifier/documents/policy.ts';
import { createSigPool, type SigPool } from '../platform/sig-pool.ts';
import { systemClock, type Clock } from './clock.ts';
import { timeBoundsOf, type SequencerConfig } from './config.ts';
import { saveConfig, loadDataDir } from './data-dir.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createLiveness, type Liveness } from './liveness.ts';
import { createIdempotencyCache } from './idempotency.ts';
import { createOperatorAuth } from './auth.ts';
import { registerBodyParsers } from './body-parsers.ts';
import { registerProblemHandlers, sendProblem } from '../platform/http-problem.ts';
import { registerRoutes } from './routes.ts';
import { openLogHost, type LogHost } from './log-host.ts';
import { publishNever, publishUnwitnessed, type CheckpointPublisher } from './checkpointer.ts';
import { deviceLostEvent } from './system-events.ts';
import type { SequencerContext } from './context.ts';

export interface SequencerDeps {
  signer: Signer;
  keyRecord: KeyRecord;
  token: string;
  clock?: Clock;
  /** Signature worker pool; created (and closed) here when absent. */
  pool?: SigPool;
  /** The witness hook: a publisher for a log's checkpoints. Default: publish as is at quorum 0, never otherwise. */
  publisherFor?(origin: string, policy: WitnessPolicy | undefined): CheckpointPublisher | undefined;
  logger?: FastifyServerOptions['logger'];
  /** A store write failed: the process should exit and restart from disk (default: log it). */
  onFatal?(e: unknown): void;
}

export interface SequencerOptions {
  dataDir: string;
  config: SequencerConfig;
  policy?: WitnessPolicy;
  /** Run the checkpoint and liveness timers (default true). */
  timers?: boolean;
  idempotencyMax?: number;
}

export interface Sequencer {
  app: FastifyInstance;
  ctx: SequencerContext;
  logs: LogHost;
  metrics: Metrics;
  liveness: Liveness;
  /** One round of the timers' work: checkpoint every log, then check liveness. */
  tick(): Promise<void>;
  close(): Promise<void>;
}

export async function createSequencer(deps: SequencerDeps, opts: SequencerOptions): Promise<Sequencer> {
  const clock = deps.clock ?? systemClock;
  const config = opts.config;
  const metrics = createMetrics();
  const ownPool = deps.pool === undefined;
  const pool = deps.pool ?? createSigPool();
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: false,
    routerOptions: { maxParamLength: 4096 },
    ajv: { customOptions: { removeAdditional: false, useDefaults: false, coerceTypes: false, allErrors: false } },
  });
  const report = (e: unknown) => app.log.error({ err: e }, 'sequencer background task failed');
  const onFatal = deps.onFatal ?? ((e: unknown) => app.log.fatal({ err: e }, 'log store write failed'));
  const publishing = (origin: string) => {
    const policy = opts.policy && opts.policy.log === origin ? opts.policy : undefined;
    const quorum = policy?.quorum ?? 0;
    const publisher = deps.publisherFor?.(origin, policy) ?? (quorum === 0 ? publishUnwitnessed : publishNever);
    return { publisher, quorum };
  };
  let logs: LogHost;
  try {
    logs = await openLogHost({ dataDir: opts.dataDir, signer: deps.signer, keyRecord: deps.keyRecord, clock, metrics, timeBounds: timeBoundsOf(config), publishing, onFatal, onError: report }, config.logs);
  } catch (e) {
    if (ownPool) await pool.close();
    throw e;
  }
  const liveness = createLiveness({
    clock,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    lostAfterIntervals: config.lostAfterIntervals,
    onError: report,
    async onLost(log, source, lastSeenMs) {
      const h = logs.get(log);
      if (!h) return;
      const [o] = await h.committer.submit([deviceLostEvent({ log, source, lastSeenMs, atMs: clock.now() }, deps.signer)]);
      if (!o.ok) throw new ProtocolError(o.code, o.detail);
      metrics.inc('cookwala_devices_lost_total', { log });
    },
  });
  const auth = createOperatorAuth(deps.token);
  const timers = opts.timers !== false;
  const ctx: SequencerContext = {
    dataDir: opts.dataDir,
    config,
    signer: deps.signer,
    keyRecord: deps.keyRecord,
    clock,
    metrics,
    liveness,
    pool,
    logs,
    idempotency: createIdempotencyCache(opts.idempotencyMax),
    requireOperator: auth.requireOperator,
    async addLog(l) {
      const h = await logs.add(l);
      if (!config.logs.some((x) => x.log === l.log)) {
        config.logs.push(l);
        await saveConfig(opts.dataDir, config);
      }
      if (timers) h.checkpoints.start(config.checkpointIntervalMs);
      return h;
    },
  };

  // While closing, every answer asks the client to close its connection: server.close() waits
  // for keep-alive connections, and an in-flight request's connection would otherwise stay open.
  // New requests that still arrive are refused with a problem (shutting_down, 503).
  let stopping = false;
  app.addHook('onSend', async (_request, reply, payload) => {
    if (stopping) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (stopping) return sendProblem(reply, fail('shutting_down', 'the sequencer is stopping; retry later'));
    return undefined;
  });
  registerBodyParsers(app);
  registerProblemHandlers(app, (request, f) => {
    if (request.routeOptions.url === '/v1/logs/:log/events' && f.code !== 'not_found') metrics.inc('cookwala_events_rejected_total', { code: f.code });
  });
  registerRoutes(app, ctx);

  let livenessTimer: NodeJS.Timeout | undefined;
  if (timers) {
    for (const h of logs.all()) h.checkpoints.start(config.checkpointIntervalMs);
    livenessTimer = setInterval(() => void liveness.check(), config.heartbeatIntervalMs);
    livenessTimer.unref();
  }

  let closing: Promise<void> | undefined;
  return {
    app,
    ctx,
    logs,
    metrics,
    liveness,
    async tick() {
      for (const h of logs.all()) await h.checkpoints.tick();
      await liveness.check();
    },
    close() {
      closing ??= (async () => {
        stopping = true;
        if (livenessTimer) clearInterval(livenessTimer);
        try {
          await app.close();
          await logs.close();
        } finally {
          if (ownPool) await pool.close();
        }
      })();
      return closing;
    },
  };
}

/** Load a data directory and build its sequencer (what `cookwala sequencer` and tests run). */
export async function openSequencer(dir: string, over: Partial<SequencerDeps> & { config?: Partial<SequencerConfig>; timers?: boolean } = {}): Promise<Sequencer> {
  const d = await loadDataDir(dir);
  const { config: cfg, timers, ...deps } = over;
  const config = { ...d.config, ...cfg };
  return createSequencer({ signer: d.signer, keyRecord: d.keyRecord, token: d.token, ...deps }, { dataDir: dir, config, policy: d.policy, timers });
}
