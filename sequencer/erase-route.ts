// sequencer/erase-route.ts: DELETE /v1/logs/{log}/events/{seq}/payload (DESIGN §4, §6, §10):
// operator only, `hash_only` logs only (mode_forbids_erasure otherwise), body {reason}. In one
// atomic synced batch (logstore erasePayload) the payload goes, the erasure record is kept, and a
// `cookwala.log.erased` entry (data {seq, eventHash, reason}, signed by the sequencer) is
// appended, so auditors see what went and why. The erased entry itself stays: the chain, every
// proof and the device signature over eventHash still verify. Runs between group commits
// (committer.exclusive), so seq assignment stays single-writer. A second erase of the same seq
// answers 410 payload_erased with the record and appends nothing.

import type { FastifyInstance } from 'fastify';
import { fail, ProtocolError } from '../verifier/errors.ts';
import { formatTime } from '../verifier/encoding.ts';
import { hostedLog, intParam, LOG_PARAMS, type SequencerContext } from './context.ts';
import { erasedEvent } from './system-events.ts';

const PARAMS = { type: 'object', properties: { log: LOG_PARAMS.properties.log, seq: { type: 'string' } }, required: ['log', 'seq'] } as const;
const BODY = {
  type: 'object',
  properties: { reason: { type: 'string', minLength: 1, maxLength: 1000 } },
  required: ['reason'],
  additionalProperties: false,
} as const;

export function registerEraseRoute(app: FastifyInstance, ctx: SequencerContext): void {
  app.delete('/v1/logs/:log/events/:seq/payload', { onRequest: ctx.requireOperator, schema: { params: PARAMS, body: BODY } }, async (request) => {
    const h = hostedLog(ctx, request.params);
    const seqR = intParam('seq', (request.params as { seq: string }).seq, 1);
    if (!seqR.ok) throw ProtocolError.from(seqR);
    const seq = seqR.value;
    const { reason } = request.body as { reason: string };
    if (h.mode !== 'hash_only') throw new ProtocolError('mode_forbids_erasure', `${h.origin} is a ${h.mode} log; payloads are never erased`);
    return h.committer.exclusive(async (next) => {
      if (seq > h.store.head().seq) throw new ProtocolError('not_found', `${h.origin} has no entry ${seq}`);
      const p = await h.store.getPayload(seq);
      if (!p) throw new ProtocolError('not_found', `entry ${seq} has no payload`);
      if ('erased' in p) throw ProtocolError.from(fail('payload_erased', `the payload of entry ${seq} was erased already`, { erasure: p.erased }));
      const entry = await h.store.getEntry(seq);
      if (!entry) throw new ProtocolError('not_found', `${h.origin} has no entry ${seq}`);
      const now = ctx.clock.now();
      const item = await next(erasedEvent({ log: h.origin, seq, eventHash: entry.eventHash, reason, atMs: now }, ctx.signer));
      const record = { seq, eventHash: entry.eventHash, reason, erasedAt: formatTime(now) };
      await h.store.erasePayload(seq, record, item);
      ctx.metrics.inc('cookwala_events_appended_total', { log: h.origin });
      ctx.metrics.set('cookwala_log_head_seq', item.entry.seq, { log: h.origin });
      return { seq: item.entry.seq, hash: item.entry.hash, eventHash: item.entry.eventHash, erased: { ...record, erasureSeq: item.entry.seq } };
    });
  });
}
