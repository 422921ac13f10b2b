// sequencer/admin-routes.ts: the process-wide routes (DESIGN §10, §12a): POST /v1/logs (operator:
// host a new log; its store and signed descriptor are created, then config.json records it),
// GET /v1/devices (liveness per device source), GET /.well-known/cookwala.json (the sequencer's
// self-signed KeyRecord and the hosted origins), GET /metrics (Prometheus) and GET /openapi.json.

import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '../verifier/errors.ts';
import { readLogConfig } from './config.ts';
import type { SequencerContext } from './context.ts';
import { OPENAPI } from './openapi.ts';

export function registerAdminRoutes(app: FastifyInstance, ctx: SequencerContext): void {
  app.post('/v1/logs', { onRequest: ctx.requireOperator }, async (request, reply) => {
    const l = readLogConfig(request.body, 'body');
    if (!l.ok) throw ProtocolError.from(l);
    const h = await ctx.addLog(l.value);
    reply.status(201);
    return { log: h.origin, mode: h.mode, descriptor: h.descriptor };
  });

  app.get('/v1/devices', async () => ({ devices: ctx.liveness.list() }));

  app.get('/.well-known/cookwala.json', async () => ({ keys: [ctx.keyRecord], logs: ctx.logs.all().map((h) => h.origin) }));

  app.get('/metrics', async (_request, reply) => {
    reply.type('text/plain; version=0.0.4; charset=utf-8');
    return ctx.metrics.render();
  });

  app.get('/openapi.json', async () => OPENAPI);
}
