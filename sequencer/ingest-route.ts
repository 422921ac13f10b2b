// sequencer/ingest-route.ts: POST /v1/logs/{log}/events, the HTTP adapter of ingest.ts (docs/design.md
// §5, §10). Modes: structured (application/cloudevents+json), batch
// (application/cloudevents-batch+json), binary (any content type with ce-* headers, see
// binary-event.ts), and plain application/json without ce-* headers read as structured (an
// object) or batch (an array). Every request needs an Idempotency-Key (missing_idempotency_key);
// a replay with the same body gets the original answer, another body idempotency_conflict.
// Answers: one event -> 201 {seq, hash, eventHash} (200 for a duplicate or a heartbeat) or a
// problem+json; a batch -> 200 {results:[…]} with one result per event in order (each judged
// alone). Request-level faults (bad JSON, a batch that is not an array, too large) are problems.
// A device's cookwala.consent.withdrawn erases its earlier payloads in a hash_only log before the
// answer leaves (sequencer/erasure.ts). A standby of a log in a shared database answers every post
// 503 not_leader naming the leader before judging anything, and a batch whose every event was
// refused for the lease or the database (not_leader, store_unavailable) is answered as that one
// 503 problem; every 503 carries Retry-After.

import type { FastifyInstance } from 'fastify';
import { fail, ok, ProtocolError, type Failure, type Result } from '../verifier/index.ts';
import { jsonBody, jsonBodyElements } from './body-parsers.ts';
import { hostedLog, LOG_PARAMS, type SequencerContext } from './context.ts';
import { requestFingerprint, type Answer } from './idempotency.ts';
import { isBinaryMode, readBinaryEvent, type Headers } from './binary-event.ts';
import { ingestEvents, type ItemResult } from './ingest.ts';
import { problemOf, PROBLEM_TYPE, retryAfterOf } from '../platform/index.ts';
import { CONSENT_WITHDRAWN_TYPE, eraseSourcePayloads } from './erasure.ts';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import { describe, json, ref } from '../platform/index.ts';
import { CE_BATCH, CE_JSON, errors } from './api-schemas.ts';

const MAX_IDEMPOTENCY_KEY = 255;
/** Refusals about this process or its database, not about the events: a batch of only these is one 503. */
const WHOLE_REFUSALS = new Set<string>(['not_leader', 'store_unavailable', 'shutting_down']);

/** `texts[i]`, when present, is event i's own JSON text as received (its stored payload). */
type Parsed =
  { batch: false; event: Result<unknown>; text?: Uint8Array } | { batch: true; events: Array<Result<unknown>>; texts?: Uint8Array[] };

function mediaType(headers: Headers): string {
  return String(headers['content-type'] ?? '')
    .split(';', 1)[0]
    .trim()
    .toLowerCase();
}

/** The events of a request by mode, or a request-level failure. */
export function parseIngestBody(headers: Headers, raw: Uint8Array | undefined, parsedJson: unknown): Result<Parsed> {
  const mt = mediaType(headers);
  if (mt === 'application/cloudevents-batch+json') {
    const j = jsonBodyElements(raw);
    if (!j.ok) return j;
    const events = j.value.value;
    if (!Array.isArray(events)) return fail('invalid_event', 'a batch (application/cloudevents-batch+json) is a JSON array of events');
    return ok({ batch: true, events: events.map((e) => ok(e)), texts: j.value.elements });
  }
  if (mt === 'application/cloudevents+json') {
    const j = jsonBody(raw);
    if (!j.ok) return j;
    // The body is the event's own text when it starts with the object (JSON whitespace may follow it).
    return ok({ batch: false, event: j, text: raw && raw[0] === 0x7b ? raw : undefined });
  }
  if (isBinaryMode(headers)) {
    const ev = readBinaryEvent(headers, raw);
    return ev.ok || ev.code === 'invalid_event' ? ok({ batch: false, event: ev }) : ev;
  }
  if (mt === 'application/json') {
    if (Array.isArray(parsedJson)) return ok({ batch: true, events: parsedJson.map((e) => ok(e)) });
    return ok({ batch: false, event: ok(parsedJson) });
  }
  return fail(
    'unsupported_media_type',
    `events are application/cloudevents+json, application/cloudevents-batch+json, or binary mode with ce-* headers; got ${mt || 'no content type'}`,
  );
}

function singleAnswer(r: ItemResult): Answer {
  if (r.status >= 400) {
    const { status: _s, ...f } = r as ItemResult & { code: Failure['code']; detail: string };
    return { status: r.status, body: problemOf({ ok: false, ...f }) };
  }
  const { status, ...body } = r;
  return { status, body: 'heartbeat' in body ? { heartbeat: true, eventHash: body.eventHash } : body };
}

const batch = { type: 'array', items: ref('CloudEvent') };
const DOC = describe({
  summary: 'Ingest CloudEvents: structured, batch, or binary mode (ce-* headers); appended after fsync',
  docHeaders: {
    type: 'object',
    required: ['idempotency-key'],
    properties: {
      'idempotency-key': {
        type: 'string',
        minLength: 1,
        maxLength: MAX_IDEMPOTENCY_KEY,
        description: 'a replay with the same body gets the original answer',
      },
    },
  },
  docBody: {
    content: {
      [CE_JSON]: { schema: ref('CloudEvent') },
      [CE_BATCH]: { schema: batch },
      'application/json': { schema: { oneOf: [ref('CloudEvent'), batch] } },
      '*/*': { schema: { type: 'string', description: 'binary mode: the data as is, the attributes in ce-* headers' } },
    },
  },
  responses: {
    201: json('one event, appended', ref('Appended')),
    200: json('a duplicate (source, id) with the same eventHash, a heartbeat, or a batch: one result per event in order', {
      oneOf: [ref('Appended'), ref('Heartbeat'), ref('BatchAnswer')],
    }),
    ...errors(
      'bad_request',
      'bad_json',
      'duplicate_member',
      'too_deep',
      'invalid_event',
      'missing_idempotency_key',
      'malformed_signature',
      'bad_signature',
      'unknown_key',
      'key_revoked',
      'key_role_mismatch',
      'source_mismatch',
      'not_found',
      'duplicate_id_conflict',
      'body_too_large',
      'unsupported_media_type',
      'idempotency_conflict',
      'signed_in_future',
      'delivery_too_late',
    ),
  },
});

/**
 * One ingest request, whichever server path it came by (the fastify route below, or the raw route
 * of ingest-raw.ts): the log named by `params`, the request headers, the body's bytes and, for
 * plain application/json, the value fastify's parser made of them. Request-level faults (no such
 * log, no or too long Idempotency-Key, a key reused with another body) are thrown as
 * ProtocolError; everything else is the Answer.
 */
export async function ingestRequest(
  ctx: SequencerContext,
  params: unknown,
  headers: Headers,
  raw: Buffer | undefined,
  parsedJson?: unknown,
): Promise<Answer> {
  const h = hostedLog(ctx, params);
  // A standby of a shared store answers one thing to every post, before judging anything: not_leader naming the leader.
  if ((h.store as { role?(): string }).role?.() === 'standby') await (h.store as unknown as { checkLeader(): Promise<void> }).checkLeader();
  const key = headers['idempotency-key'];
  if (typeof key !== 'string' || key.length === 0)
    throw new ProtocolError('missing_idempotency_key', 'every POST carries an Idempotency-Key header');
  if (key.length > MAX_IDEMPOTENCY_KEY)
    throw new ProtocolError('bad_request', `Idempotency-Key is at most ${MAX_IDEMPOTENCY_KEY} characters`);
  const slot = ctx.idempotency.begin(`${h.origin}`, key, requestFingerprint('POST', `/v1/logs/${h.origin}/events`, headers, raw));
  if (slot.kind === 'conflict')
    throw new ProtocolError('idempotency_conflict', `Idempotency-Key ${key} was used with another request body`);
  if (slot.kind === 'replay') return slot.answer;
  let answer: Answer;
  let keep = false;
  try {
    const p = parseIngestBody(headers, raw, parsedJson);
    if (!p.ok) answer = { status: problemOf(p).status, body: problemOf(p) };
    else {
      const afterAppend = async (ce: CloudEvent, seq: number) => {
        if (ce.type === CONSENT_WITHDRAWN_TYPE) await eraseSourcePayloads(ctx, h, ce.source, seq);
      };
      const deps = {
        log: h.origin,
        keys: h.keys,
        committer: h.committer,
        pool: ctx.pool,
        liveness: ctx.liveness,
        clock: ctx.clock,
        timeBounds: h.timeBounds,
        timePrecision: h.timePrecision,
        metrics: ctx.metrics,
        afterAppend,
      };
      if (p.value.batch) {
        const results = await ingestEvents(deps, p.value.events, p.value.texts);
        const whole = results.length > 0 && results.every((r) => 'code' in r && WHOLE_REFUSALS.has(r.code)) ? results[0] : undefined;
        answer = whole ? singleAnswer(whole) : { status: 200, body: { results } };
        keep = results.every((r) => r.status < 300);
      } else {
        const [r] = await ingestEvents(deps, [p.value.event], p.value.text && [p.value.text]);
        answer = singleAnswer(r);
        keep = answer.status < 300;
      }
    }
  } catch (e) {
    slot.finish({ status: 500, body: problemOf(fail('internal_error', 'unexpected server fault')) }, false);
    throw e;
  }
  return slot.finish(answer, keep);
}

/** The content type an ingest Answer goes out with (a kept answer as the JSON bytes its replays get). */
export function answerType(a: Answer): string {
  if (a.raw) return 'application/json';
  return a.status >= 400 ? `${PROBLEM_TYPE}; charset=utf-8` : 'application/json; charset=utf-8';
}

export function registerIngestRoute(app: FastifyInstance, ctx: SequencerContext): void {
  app.post('/v1/logs/:log/events', { schema: { params: LOG_PARAMS, ...DOC } }, async (request, reply) => {
    const raw = request.rawBody ?? (Buffer.isBuffer(request.body) ? request.body : undefined);
    const parsed = Buffer.isBuffer(request.body) ? undefined : request.body;
    const answer = await ingestRequest(ctx, request.params, request.headers as Headers, raw ?? undefined, parsed);
    reply.status(answer.status);
    const retry = retryAfterOf(answer.status);
    if (retry !== undefined) reply.header('retry-after', retry);
    // A kept answer goes out as the bytes its replays get.
    if (answer.raw) return reply.type('application/json').send(answer.raw);
    if (answer.status >= 400) reply.type(PROBLEM_TYPE);
    return answer.body;
  });
}
