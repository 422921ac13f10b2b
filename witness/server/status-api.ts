// witness/server/status-api.ts: the witness's small read-only HTTP API (fastify, 127.0.0.1 by default):
//   GET /v1/logs[?log=ORIGIN]       followed logs (Cookwala ones by sequencer kid, C2SP ones with
//                                   their vkey), each with its latest cosigned checkpoint
//   GET /v1/forks                   every ForkProof this witness stored (from requests or gossip)
//   GET /.well-known/cookwala.json  {keys:[its witness KeyRecord], logs:[origins]}
//   GET /metrics                    Prometheus text
//   GET /                           the status page (web/pages/witness.html: logs, checkpoints, forks)
// `buildStatusApp` does not listen (tests use inject()); the service listens. Errors are RFC 9457
// problem+json from the shared mapper (platform/http-problem.ts). Left out: any write endpoint: logs are admitted
// by configuration only, and the witness protocol runs over libp2p (the C2SP tlog-witness routes,
// POST /add-checkpoint and GET /<sha256(origin)>/checkpoint, are added to this app by c2sp-http.ts).

import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../../platform/index.ts';
import { fail } from '../../verifier/index.ts';
import { sendProblem } from '../../platform/index.ts';
import { boundedServerOptions, capConnections } from '../../platform/index.ts';
import type { KeyRecord } from '../../verifier/signing/index.ts';
import { addCosignature } from '../../verifier/documents/index.ts';
import type { AdmittedLog } from './add-checkpoint.ts';
import type { StateStore } from './state.ts';
import { registerPage } from '../../web/server/index.ts';

export interface StatusDeps {
  state: StateStore;
  logs: () => AdmittedLog[];
  /** The C2SP logs admitted by vkey (config or logs/v0 lists), beside the Cookwala ones. */
  c2spLogs?: () => Array<{ origin: string; vkey: string }>;
  keyRecord: KeyRecord;
  metrics: () => Promise<string>;
  /** Extra facts for /v1/logs' top level (peer id, addresses). */
  info?: () => Record<string, unknown>;
  /** The witness's logger; fastify logs through it (no per-request lines). */
  logger?: Logger;
}

export function buildStatusApp(deps: StatusDeps): FastifyInstance {
  const logging = deps.logger
    ? { loggerInstance: deps.logger as FastifyBaseLogger, logController: new LogController({ disableRequestLogging: true }) }
    : { logger: false };
  const app = Fastify({
    ...boundedServerOptions(),
    ...logging,
    ajv: { customOptions: { removeAdditional: false, useDefaults: false, coerceTypes: false } },
  });
  capConnections(app.server);
  app.setNotFoundHandler((req, reply) => sendProblem(reply, fail('not_found', `no route ${req.method} ${req.url.split('?')[0]}`)));
  // A read that fails here is the witness's store failing: say so with the witness's own code.
  app.setErrorHandler((err, _req, reply) => {
    if (((err as { statusCode?: number }).statusCode ?? 500) >= 500)
      deps.logger?.error({ event: 'witness_error', err }, 'a status API read failed');
    return sendProblem(reply, fail('witness_unavailable', (err as Error).message));
  });

  app.get('/v1/logs', async (req) => {
    const only = (req.query as { log?: unknown } | undefined)?.log;
    const want = typeof only === 'string' ? (o: string) => o === only : () => true;
    const states = new Map((await deps.state.logs()).filter((s) => want(s.log)).map((s) => [s.log, s]));
    const logs: Array<Record<string, unknown> & { log: string }> = deps
      .logs()
      .filter((l) => want(l.log))
      .map((l) => {
        const s = states.get(l.log);
        return {
          log: l.log,
          sequencer: l.sequencer.kid,
          descriptor: s?.descriptorHash ?? null,
          seq: s?.seq ?? null,
          root: s?.root ?? null,
          head: s?.head ?? null,
          updatedAt: s?.updatedAt ?? null,
          checkpoint: s?.checkpoint && s.cosignature ? addCosignature(s.checkpoint, s.cosignature) : null,
        };
      });
    for (const l of deps.c2spLogs?.() ?? []) {
      if (!want(l.origin)) continue;
      const s = states.get(l.origin);
      logs.push({
        log: l.origin,
        sequencer: '',
        vkey: l.vkey,
        descriptor: null,
        seq: s?.seq ?? null,
        root: s?.root ?? null,
        head: null,
        updatedAt: s?.updatedAt ?? null,
        checkpoint: null,
      });
    }
    // A log whose admission was removed from the config keeps its state: show it too.
    for (const s of states.values()) {
      if (!logs.some((l) => l.log === s.log))
        logs.push({
          log: s.log,
          sequencer: s.checkpoint?.signature[0]?.kid ?? '',
          descriptor: s.descriptorHash ?? null,
          seq: s.seq,
          root: s.root,
          head: s.head ?? null,
          updatedAt: s.updatedAt,
          checkpoint: s.checkpoint && s.cosignature ? addCosignature(s.checkpoint, s.cosignature) : null,
        });
    }
    return { ...(deps.info?.() ?? {}), logs };
  });

  registerPage(app, '/', 'witness'); // the status page (web/, docs/design.md §12b) over the reads below

  app.get('/v1/forks', async () => ({ forks: await deps.state.forks() }));

  app.get('/.well-known/cookwala.json', async () => ({ keys: [deps.keyRecord], logs: deps.logs().map((l) => l.log) }));

  app.get('/metrics', async (_req, reply) => {
    void reply.type('text/plain; version=0.0.4; charset=utf-8');
    return deps.metrics();
  });
  return app;
}
