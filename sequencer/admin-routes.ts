// sequencer/admin-routes.ts: the process-wide routes (docs/design.md §10, §12a): POST /v1/logs (operator:
// host a new log; its store and signed descriptor are created, then config.json records it),
// GET /v1/devices (liveness per device source), GET /.well-known/cookwala.json (the sequencer's
// self-signed KeyRecord, the hosted origins and their C2SP vkeys, the ML-DSA-44 one too when it signs with one) and GET /metrics (Prometheus). GET /openapi.json is
// platform/openapi.ts's, registered by app.ts before these.

import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '../verifier/index.ts';
import { readLogConfig } from './config.ts';
import type { SequencerContext } from './context.ts';
import { describe, json, ref } from '../platform/index.ts';
import { errors, OPERATOR } from './api-schemas.ts';
import { logVkeyOf } from '../verifier/documents/index.ts';

export function registerAdminRoutes(app: FastifyInstance, ctx: SequencerContext): void {
  const newLog = describe({
    summary: 'Host a new log (operator): its store and signed descriptor are created',
    security: OPERATOR,
    docBody: { content: { 'application/json': { schema: ref('NewLogRequest') } } },
    responses: {
      201: json('the log and its signed descriptor', ref('NewLogAnswer')),
      ...errors(
        'bad_json',
        'duplicate_member',
        'invalid_document',
        'unknown_field',
        'unauthorized',
        'log_exists',
        'body_too_large',
        'unsupported_media_type',
      ),
    },
  });
  app.post('/v1/logs', { onRequest: ctx.requireOperator, schema: newLog }, async (request, reply) => {
    const l = readLogConfig(request.body, 'body');
    if (!l.ok) throw ProtocolError.from(l);
    const h = await ctx.addLog(l.value);
    reply.status(201);
    return { log: h.origin, mode: h.mode, descriptor: h.descriptor };
  });

  app.get(
    '/v1/devices',
    {
      schema: describe({
        summary: 'Device liveness (from heartbeats and events)',
        responses: { 200: json('every device seen', ref('Devices')), ...errors() },
      }),
    },
    async () => ({ devices: ctx.liveness.list() }),
  );

  const wellKnown = describe({
    summary: "The sequencer's self-signed KeyRecord and the hosted logs",
    responses: { 200: json('keys and log origins', ref('WellKnown')), ...errors() },
  });
  app.get('/.well-known/cookwala.json', { schema: wellKnown }, async () => {
    const logs = ctx.logs.origins(); // every hosted log, open or not
    // Each log's C2SP vkey (docs/design.md §7a): what a tlog-witness operator admits the log with.
    const c2sp = logs.flatMap((log) => {
      const v = logVkeyOf(log, ctx.keyRecord);
      const pq = ctx.mldsa ? { mldsaVkey: ctx.mldsa.vkey(log) } : {};
      return v.ok ? [{ log, vkey: v.value, ...pq, tiles: `/tlog/${encodeURIComponent(log)}/` }] : [];
    });
    return { keys: [ctx.keyRecord], logs, c2sp };
  });

  const metrics = describe({
    summary: 'Prometheus metrics',
    responses: { 200: json('text exposition format 0.0.4', { type: 'string' }, ['text/plain']), ...errors() },
  });
  app.get('/metrics', { schema: metrics }, async (_request, reply) => {
    reply.type('text/plain; version=0.0.4; charset=utf-8');
    return ctx.metrics.render();
  });
}
