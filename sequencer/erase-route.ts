// sequencer/erase-route.ts: DELETE /v1/logs/{log}/events/{seq}/payload (docs/design.md §4, §6, §10):
// operator only, `hash_only` logs only (mode_forbids_erasure otherwise), body {reason}. In one
// atomic synced batch (logstore erasePayload) the payload goes, the erasure record is kept, and a
// `cookwala.log.erased` entry (data {seq, eventHash, reason}, signed by the sequencer) is
// appended, so auditors see what went and why (sequencer/erasure.ts). The erased entry itself
// stays: the chain, every proof and the device signature over eventHash still verify. A second
// erase of the same seq answers 410 payload_erased with the record and appends nothing.

import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '../verifier/index.ts';
import { hostedLog, intParam, LOG_PARAMS, type SequencerContext } from './context.ts';
import { erasePayload } from './erasure.ts';
import { describe, json, ref } from '../platform/index.ts';
import { errors, OPERATOR } from './api-schemas.ts';

const PARAMS = {
  type: 'object',
  properties: { log: LOG_PARAMS.properties.log, seq: { type: 'string' } },
  required: ['log', 'seq'],
} as const;
const BODY = {
  type: 'object',
  properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } },
  required: ['reason'],
  additionalProperties: false,
} as const;

const DOC = describe({
  summary: 'Erase a payload (operator, hash_only logs): the entry and every proof stay, a cookwala.log.erased entry is appended',
  security: OPERATOR,
  body: BODY,
  responses: {
    200: json('the cookwala.log.erased entry and the erasure record', ref('EraseAnswer')),
    ...errors(
      'bad_request',
      'bad_json',
      'invalid_document',
      'unknown_field',
      'unauthorized',
      'not_found',
      'mode_forbids_erasure',
      'not_erasable',
      'payload_erased',
      'body_too_large',
      'unsupported_media_type',
    ),
  },
});

export function registerEraseRoute(app: FastifyInstance, ctx: SequencerContext): void {
  app.delete(
    '/v1/logs/:log/events/:seq/payload',
    { onRequest: ctx.requireOperator, schema: { params: PARAMS, ...DOC } },
    async (request) => {
      const h = hostedLog(ctx, request.params);
      const seqR = intParam('seq', (request.params as { seq: string }).seq, 1);
      if (!seqR.ok) throw ProtocolError.from(seqR);
      const seq = seqR.value;
      const { reason } = request.body as { reason: string };
      return erasePayload(ctx, h, seq, reason);
    },
  );
}
