// sequencer/keys-routes.ts: device key registration (DESIGN §5, §8). POST /v1/logs/{log}/keys
// (operator) takes a device KeyRecord, read strictly; the sequencer adds `hash` and its own
// `signature`, persists it (fsync'd) and answers 201 with the signed record (200 with the stored
// one when nothing changed; key_conflict when a kid's record would change more than adding
// revokedAt). GET /v1/logs/{log}/keys answers every registered record as a KeyCache document
// ({"kind":"KeyCache","keys":[…]}), the file format `cookwala verify --keys` reads.

import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '../verifier/errors.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import { hostedLog, LOG_PARAMS, type SequencerContext } from './context.ts';

export function registerKeyRoutes(app: FastifyInstance, ctx: SequencerContext): void {
  app.post('/v1/logs/:log/keys', { onRequest: ctx.requireOperator, schema: { params: LOG_PARAMS } }, async (request, reply) => {
    const h = hostedLog(ctx, request.params);
    if (request.body === undefined || Buffer.isBuffer(request.body)) throw new ProtocolError('unsupported_media_type', 'a KeyRecord is sent as application/json');
    const r = await h.keys.register(request.body, formatTime(ctx.clock.now()));
    if (!r.ok) throw ProtocolError.from(r);
    reply.status(r.value.created ? 201 : 200);
    return r.value.record;
  });

  app.get('/v1/logs/:log/keys', { schema: { params: LOG_PARAMS } }, async (request) => {
    const h = hostedLog(ctx, request.params);
    return { kind: 'KeyCache', keys: h.keys.all() };
  });
}
