// executor/problem.ts: RFC 9457 problem+json for the executor's Core API (DESIGN §10 style): the one
// place where a failure becomes an HTTP status, taken from verifier/errors.ts, never chosen by a
// route. Fastify's own errors (too large, bad media type, bad JSON) are mapped to codes here too.
// Kept apart from sequencer/problem.ts on purpose: executor/ imports only verifier/ (DESIGN §2).

import type { FastifyInstance, FastifyReply } from 'fastify';
import { fail, ProtocolError, REASONS, type Failure, type ReasonCode } from '../verifier/errors.ts';

export const PROBLEM_TYPE = 'application/problem+json';

export function sendProblem(reply: FastifyReply, f: Failure): FastifyReply {
  const { ok: _ok, code, detail, ...extra } = f;
  const r = REASONS[code];
  if (code === 'unauthorized') reply.header('www-authenticate', 'Bearer');
  return reply.status(r.status).type(PROBLEM_TYPE).send({ ...extra, type: `urn:cookwala:reason:${code}`, title: r.meaning, status: r.status, detail, code });
}

const FASTIFY_CODES: Record<string, ReasonCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'bad_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'bad_json',
};

export function toFailure(err: unknown): Failure {
  if (err instanceof ProtocolError) return fail(err.code, err.detail, err.extra);
  const e = err as { code?: string; statusCode?: number; message?: string };
  if (e && typeof e.code === 'string' && FASTIFY_CODES[e.code]) return fail(FASTIFY_CODES[e.code], String(e.message));
  if (err instanceof SyntaxError) return fail('bad_json', err.message);
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status === 413) return fail('body_too_large', String(e.message));
  if (status === 415) return fail('unsupported_media_type', String(e.message));
  if (status >= 400 && status < 500) return fail('bad_request', String(e?.message ?? 'bad request'));
  throw err; // a 5xx that is not a protocol error: let fastify answer 500 and log it
}

export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => {
    let f: Failure;
    try {
      f = toFailure(err);
    } catch {
      request.log.error({ err }, 'request failed');
      return reply.status(500).type(PROBLEM_TYPE).send({ type: 'about:blank', title: 'internal error', status: 500, detail: 'unexpected device fault' });
    }
    return sendProblem(reply, f);
  });
  app.setNotFoundHandler((request, reply) => sendProblem(reply, fail('not_found', `no route ${request.method} ${request.url.split('?')[0]}`)));
}
