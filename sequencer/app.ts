// sequencer/app.ts: the sequencer factory (STYLE: `createSequencer(deps, opts)`, nothing listens
// here; cli.ts does). It opens the hosted logs (a held store is store_locked, a store behind its
// last checkpoint is store_behind_checkpoint: both fatal to the caller), builds the fastify app
// with ajv that never rewrites data (removeAdditional/useDefaults/coerceTypes all off), the body
// parsers, problem+json errors, operator auth and the routes, and starts the checkpoint and
// liveness timers (opts.timers false leaves them to tick(), for tests on a manual clock).
// close(): stop accepting requests and let in-flight ones finish, then drain every committer,
// sign a last checkpoint, close the stores and the signature pool (if created here).
// Logging: one pino logger in deps (platform/logger.ts), the same instance fastify logs with
// (`loggerInstance`; per-request lines off); events `log_created`, `device_lost`, `store_failed`
// (then onFatal), `service_error` and the lease changes of a shared store (`lease_acquired`,
// `lease_lost`, `lease_released`, with epoch and reason) and its erasure wipes
// (`erasure_wipe_deferred`, `erasure_wiped`) here, checkpoint and erasure events where they happen.

import { truncateTime } from '../verifier/documents/index.ts';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { fail, ProtocolError } from '../verifier/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { Signer } from '../verifier/signing/index.ts';
import type { LogMldsaSigner, WitnessPolicy } from '../verifier/documents/index.ts';
import type { PublisherStore } from '../witness/client/index.ts';
import { createSigPool, type SigPool } from '../platform/index.ts';
import { silentLogger, type Logger } from '../platform/index.ts';
import type { FaultHooks } from '../logstore/index.ts';
import { systemClock, type Clock } from '../platform/index.ts';
import { timeBoundsOf, type SequencerConfig } from './config.ts';
import { saveConfig, loadDataDir } from './data-dir.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createLiveness, type Liveness } from './liveness.ts';
import { createIdempotencyCache } from './idempotency.ts';
import { createOperatorAuth } from './auth.ts';
import { registerBodyParsers } from './body-parsers.ts';
import { registerProblemHandlers, sendProblem } from '../platform/index.ts';
import { registerRoutes } from './routes.ts';
import { routeRawIngest } from './ingest-raw.ts';
import { registerOpenApi } from '../platform/index.ts';
import { SEQUENCER_OPENAPI } from './api-schemas.ts';
import { openLogHost, type LogHost, type LogHostDeps } from './log-host.ts';
import { publishNever, publishUnwitnessed, type CheckpointPublisher } from './checkpointer.ts';
import { deviceLostEvent } from './system-events.ts';
import { judgeSilence, signsInLog } from './device-lost.ts';
import type { SequencerContext } from './context.ts';
import type { StoreBackend } from './store-backend.ts';
import type { LeaseChange, WipeChange } from '../logstore/postgres/index.ts';
import { boundedServerOptions, capConnections, type HttpLimits } from '../platform/index.ts';

export interface SequencerDeps {
  signer: Signer;
  keyRecord: KeyRecord;
  /** The log's ML-DSA-44 signer (mldsa-key.ts): checkpoints then carry both log signatures. */
  mldsa?: LogMldsaSigner;
  token: string;
  clock?: Clock;
  /** Signature worker pool; created (and closed) here when absent. */
  pool?: SigPool;
  /** The witness hook: a publisher for a log's checkpoints. Default: publish as is at quorum 0, never otherwise. */
  publisherFor?(origin: string, policy: WitnessPolicy | undefined, store?: PublisherStore): CheckpointPublisher | undefined;
  /** The service logger (platform/logger.ts createLogger); fastify logs through it too. Default silent. */
  logger?: Logger;
  /** A store write failed (logged as store_failed first): the process should exit and restart from disk. */
  onFatal?(e: unknown, origin: string): void;
  /** Fault injection around every log store write (tests of store_failed). */
  storeFaults?: FaultHooks;
  /** Where the logs live: PostgreSQL (store-backend.ts) instead of LevelDB under the data directory. */
  storeBackend?: StoreBackend;
  /** Connection, header and body bounds (platform/http-limits.ts); the defaults there otherwise. */
  httpLimits?: Partial<HttpLimits>;
  /**
   * Answer the plain ingest posts on the server before fastify routes them (ingest-raw.ts), as
   * production does; false sends every request through fastify (tests compare the two). Default true.
   */
  rawIngest?: boolean;
}

export interface SequencerOptions {
  dataDir: string;
  config: SequencerConfig;
  policy?: WitnessPolicy;
  /** Run the checkpoint and liveness timers (default true). */
  timers?: boolean;
  idempotencyMax?: number;
  /** Bytes of kept Idempotency-Key answers (default IDEMPOTENCY_MAX_BYTES, 64 MiB). */
  idempotencyMaxBytes?: number;
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
  const clock = deps.clock ?? systemClock();
  const config = opts.config;
  const metrics = createMetrics();
  const ownPool = deps.pool === undefined;
  const pool = deps.pool ?? createSigPool();
  const logger = deps.logger ?? silentLogger();
  const app = Fastify({
    ...boundedServerOptions(deps.httpLimits),
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: false,
    routerOptions: { maxParamLength: 4096 },
    ajv: { customOptions: { removeAdditional: false, useDefaults: false, coerceTypes: false, allErrors: false } },
  });
  capConnections(app.server, deps.httpLimits);
  const report = (e: unknown) => {
    // A background write (a checkpoint, a summary) refused because the lease moved is no fault:
    // the lease change is its one line (lease_lost), and the next leader does the work.
    if (e instanceof ProtocolError && e.code === 'not_leader') return;
    logger.error({ event: 'service_error', err: e }, 'sequencer background task failed');
  };
  const onFatal = (e: unknown, origin: string) => {
    logger.fatal(
      { event: 'store_failed', log: origin, err: e },
      `a store write of ${origin} failed; the log refuses appends until a restart reads the disk`,
    );
    deps.onFatal?.(e, origin);
  };
  const publishing = (origin: string, store?: PublisherStore) => {
    const policy = opts.policy && opts.policy.log === origin ? opts.policy : undefined;
    const quorum = policy?.quorum ?? 0;
    metrics.set('cookwala_witness_quorum', quorum, { log: origin }); // 0: unwitnessed, said on /metrics
    const publisher = deps.publisherFor?.(origin, policy, store) ?? (quorum === 0 ? publishUnwitnessed : publishNever);
    return { publisher, quorum, policy };
  };
  // Every change of this process's lease on a log is one named line and moves the lease metrics.
  /** Since when (clock ms) this process leads each log of a shared store: liveness counts silences from there at the earliest. */
  const leadSince = new Map<string, number>();
  const leaseChanged = (c: LeaseChange) => {
    const leads = c.event === 'lease_acquired';
    if (leads) leadSince.set(c.log, clock.now());
    else leadSince.delete(c.log);
    if (!leads) metrics.set('cookwala_erasures_unwiped', 0, { log: c.log }); // the leader's gauge counts them now
    metrics.set('cookwala_lease_epoch', leads ? c.epoch : 0, { log: c.log });
    metrics.set('cookwala_lease_leader', leads ? 1 : 0, { log: c.log });
    metrics.inc('cookwala_lease_changes_total', { log: c.log, event: c.event });
    const line = { event: c.event, log: c.log, epoch: c.epoch, reason: c.reason };
    if (c.event === 'lease_lost') logger.warn(line, `lost the lease of ${c.log} (epoch ${c.epoch}): ${c.reason}`);
    else if (leads) logger.info(line, `leading ${c.log} under lease epoch ${c.epoch}`);
    else logger.info(line, `released the lease of ${c.log} (epoch ${c.epoch}): ${c.reason}`);
  };
  // An erasure whose bytes an older snapshot still holds in PostgreSQL's files: one line when it
  // must wait (and when the reason changes), one when it is done; the gauge counts the waiting ones.
  const wipeChanged = (w: WipeChange) => {
    metrics.set('cookwala_erasures_unwiped', w.pending, { log: w.log });
    const line = { event: w.event, log: w.log, seqs: w.seqs, reason: w.reason };
    if (w.event === 'erasure_wiped') logger.info(line, `the erased payloads ${w.seqs.join(', ')} of ${w.log} left the database files`);
    else logger.warn(line, `the erased payloads ${w.seqs.join(', ')} of ${w.log} are still in the database files: ${w.reason}`);
  };
  const storeBackend = deps.storeBackend && { ...deps.storeBackend, onLeaseChange: leaseChanged, onWipe: wipeChanged };
  let logs: LogHost;
  try {
    logs = await openLogHost(
      {
        dataDir: opts.dataDir,
        signer: deps.signer,
        keyRecord: deps.keyRecord,
        mldsa: deps.mldsa,
        clock,
        metrics,
        logger,
        storeFaults: deps.storeFaults,
        storeBackend,
        timeBounds: timeBoundsOf(config),
        publishing,
        onFatal,
        onError: report,
        ...hostLimits(config, opts.timers !== false),
      },
      config.logs,
    );
  } catch (e) {
    if (ownPool) await pool.close();
    throw e;
  }
  const lostLimitMs = config.heartbeatIntervalMs * config.lostAfterIntervals;
  const liveness = createLiveness({
    clock,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    lostAfterIntervals: config.lostAfterIntervals,
    onError: report,
    leading(log) {
      const h = logs.get(log);
      // LevelDB: this process alone sequences its logs (a closed one opens for the entry).
      if (!storeBackend) return 0;
      const st = h?.store as { role?(): string } | undefined;
      if (st?.role?.() !== 'leader') return undefined;
      if (!leadSince.has(log)) leadSince.set(log, clock.now());
      return leadSince.get(log);
    },
    async onLost(log, source, lastSeenMs) {
      if (!logs.has(log)) return 'already';
      // A lost device's log may be closed (idle): open it for the entry, like any request would.
      return logs.use(log, async (h) => {
        // The log, not this process's memory, says whether this silence was declared already and when the device last spoke.
        const v = judgeSilence(await signsInLog(h.store, log, source), lastSeenMs);
        if (v === 'already') return 'already';
        if (clock.now() - v.since < lostLimitMs) return { seenAt: v.since };
        const [o] = await h.committer.submit([
          deviceLostEvent(
            { log, source, lastSeenMs: truncateTime(v.since, h.timePrecision), atMs: truncateTime(clock.now(), h.timePrecision) },
            deps.signer,
          ),
        ]);
        // The lease moved while judging: the next leader judges; nothing to report.
        if (!o.ok && o.code === 'not_leader') return { seenAt: lastSeenMs };
        if (!o.ok) throw new ProtocolError(o.code, o.detail);
        metrics.inc('cookwala_devices_lost_total', { log });
        logger.warn(
          { event: 'device_lost', log, source, lastSeen: new Date(v.since).toISOString(), seq: o.seq },
          `device ${source} missed its heartbeats`,
        );
        return 'declared';
      });
    },
  });
  const auth = createOperatorAuth(deps.token);
  const timers = opts.timers !== false;
  const ctx: SequencerContext = {
    dataDir: opts.dataDir,
    config,
    signer: deps.signer,
    keyRecord: deps.keyRecord,
    ...(deps.mldsa ? { mldsa: deps.mldsa } : {}),
    clock,
    metrics,
    logger,
    liveness,
    pool,
    logs,
    idempotency: createIdempotencyCache(opts.idempotencyMax, opts.idempotencyMaxBytes),
    requireOperator: auth.requireOperator,
    async addLog(l) {
      const h = await logs.add(l);
      if (!config.logs.some((x) => x.log === l.log)) {
        config.logs.push(l);
        await saveConfig(opts.dataDir, config);
      }
      logger.info({ event: 'log_created', log: l.log, mode: l.mode }, `hosting ${l.log} (${l.mode})`);
      return h;
    },
  };

  // While closing, every answer asks the client to close its connection: server.close() waits
  // for keep-alive connections, and an in-flight request's connection would otherwise stay open.
  // New requests that still arrive are refused with a problem (shutting_down, 503).
  // The per-request hooks are callback-style, not async: an async hook costs every request a
  // promise and a microtask hop, and these four run on every request.
  let stopping = false;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (stopping) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onRequest', (_request, reply, done) => {
    // An answer sent from a callback hook ends the request there: done is not called.
    if (stopping) sendProblem(reply, fail('shutting_down', 'the sequencer is stopping; retry later'));
    else done();
  });
  registerBodyParsers(app);
  registerProblemHandlers(app, (request, f) => {
    if (request.routeOptions.url === '/v1/logs/:log/events' && f.code !== 'not_found')
      metrics.inc('cookwala_events_rejected_total', { log: String((request.params as { log?: unknown }).log ?? ''), code: f.code });
  });
  await registerOpenApi(app, SEQUENCER_OPENAPI); // before the routes: it documents them as they are added
  // A route naming a hosted log holds its store open from here until its answer is sent (the log
  // host opens it on first use and closes idle ones at its cap): never closed under a request.
  const leases = new WeakMap<object, () => void>();
  app.addHook('preHandler', (request, _reply, done) => {
    const origin = (request.params as { log?: unknown } | undefined)?.log;
    if (typeof origin !== 'string' || !logs.has(origin)) return done();
    logs.acquire(origin).then(
      (lease) => {
        leases.set(request, lease.release);
        done();
      },
      (err: Error) => done(err),
    );
  });
  app.addHook('onResponse', (request, _reply, done) => {
    leases.get(request)?.();
    leases.delete(request);
    done();
  });
  registerRoutes(app, ctx);
  if (deps.rawIngest !== false)
    routeRawIngest(app, {
      ctx,
      logs,
      metrics,
      logger: logger as FastifyBaseLogger,
      bodyLimitBytes: config.bodyLimitBytes,
      stopping: () => stopping,
    });

  let livenessTimer: NodeJS.Timeout | undefined;
  if (timers) {
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

/** The log host's memory budget, open-store cap and timers from the config (docs/design.md §12a). */
function hostLimits(
  c: SequencerConfig,
  timers: boolean,
): Pick<LogHostDeps, 'memoryBudgetBytes' | 'maxOpenLogs' | 'checkpointIntervalMs' | 'idleCloseMs'> {
  return {
    ...(c.memoryBudgetMB !== undefined ? { memoryBudgetBytes: c.memoryBudgetMB * 1024 * 1024 } : {}),
    ...(c.maxOpenLogs !== undefined ? { maxOpenLogs: c.maxOpenLogs } : {}),
    ...(timers ? { checkpointIntervalMs: c.checkpointIntervalMs, idleCloseMs: c.idleCloseMs ?? 300_000 } : {}),
  };
}

/** Load a data directory and build its sequencer (what `cookwala sequencer` and tests run). */
export async function openSequencer(
  dir: string,
  over: Partial<SequencerDeps> & { config?: Partial<SequencerConfig>; timers?: boolean } = {},
): Promise<Sequencer> {
  const d = await loadDataDir(dir);
  const { config: cfg, timers, ...deps } = over;
  const config = { ...d.config, ...cfg };
  return createSequencer(
    { signer: d.signer, keyRecord: d.keyRecord, token: d.token, ...(d.mldsa ? { mldsa: d.mldsa } : {}), ...deps },
    { dataDir: dir, config, policy: d.policy, timers },
  );
}
