// sequencer/keys-routes.ts: device key registration (docs/design.md §5, §8). POST /v1/logs/{log}/keys
// (operator) takes a device KeyRecord, read strictly; the sequencer adds `hash` and its own
// `signature`, persists it (fsync'd) and answers 201 with the signed record (200 with the stored
// one when nothing changed; key_conflict when a kid's record would change more than adding
// revokedAt). GET /v1/logs/{log}/keys answers every registered record as a KeyCache document
// ({"kind":"KeyCache","keys":[…]}), the file format `cookwala verify --keys` reads.

import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '../verifier/index.ts';
import { formatTime } from '../verifier/encoding/index.ts';
import { hostedLog, LOG_PARAMS, type SequencerContext } from './context.ts';
import { describe, json, ref } from '../platform/index.ts';
import { errors, OPERATOR } from './api-schemas.ts';

const REGISTER = describe({
  summary: 'Register or revoke a device key (operator); the sequencer adds hash and its signature',
  security: OPERATOR,
  docBody: { content: { 'application/json': { schema: ref('KeyRecord') } } },
  responses: {
    201: json('the signed KeyRecord, stored', ref('KeyRecord')),
    200: json('the stored KeyRecord: nothing changed', ref('KeyRecord')),
    ...errors(
      'bad_json',
      'duplicate_member',
      'invalid_document',
      'unknown_field',
      'unsupported_alg',
      'weak_key',
      'unauthorized',
      'not_found',
      'key_conflict',
      'body_too_large',
      'unsupported_media_type',
    ),
  },
});
const LIST = describe({
  summary: 'Registered device KeyRecords (signed by the sequencer) as a KeyCache',
  responses: { 200: json('the KeyCache document', ref('KeyCache')), ...errors('bad_request', 'not_found') },
});

export function registerKeyRoutes(app: FastifyInstance, ctx: SequencerContext): void {
  app.post(
    '/v1/logs/:log/keys',
    { onRequest: ctx.requireOperator, schema: { params: LOG_PARAMS, ...REGISTER } },
    async (request, reply) => {
      const h = hostedLog(ctx, request.params);
      if (request.body === undefined || Buffer.isBuffer(request.body))
        throw new ProtocolError('unsupported_media_type', 'a KeyRecord is sent as application/json');
      const r = await h.keys.register(request.body, formatTime(ctx.clock.now()));
      if (!r.ok) throw ProtocolError.from(r);
      reply.status(r.value.created ? 201 : 200);
      return r.value.record;
    },
  );

  app.get('/v1/logs/:log/keys', { schema: { params: LOG_PARAMS, ...LIST } }, async (request) => {
    const h = hostedLog(ctx, request.params);
    return { kind: 'KeyCache', keys: h.keys.all() };
  });
}
