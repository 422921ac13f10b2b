// platform/http-problem.ts: RFC 9457 problem details for every error an HTTP API of this
// project answers (docs/design.md §10): the sequencer's, the executor's Core API and the witness status
// API share it, so one failure reads the same everywhere. The one place where a failure becomes a status: the code comes from verifier/errors.ts
// and the status from its table, never chosen by a route. Fastify's own errors (body too large,
// unsupported media type, schema validation, bad JSON in its parsers) are mapped here too, so a
// client always gets `{type, title, status, detail, code, ...extra}` with a code it can look up.
// Invariant: a 5xx never carries internals beyond a short detail; structured facts a client acts
// on (`expected`, `erasure`, `leader`) travel as extra members; every 503 carries Retry-After.

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fail, ProtocolError, REASONS, type Failure, type ReasonCode } from '../verifier/index.ts';

export const PROBLEM_TYPE = 'application/problem+json';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ReasonCode;
  [k: string]: unknown;
}

export function problemOf(f: Failure): Problem {
  const { ok: _ok, code, detail, ...extra } = f;
  const r = REASONS[code];
  return { ...extra, type: `urn:cookwala:reason:${code}`, title: r.meaning, status: r.status, detail, code };
}

/** Seconds a client waits before retrying a 503 (not_leader, store_unavailable, shutting_down): the Retry-After header. */
export const RETRY_AFTER_SECONDS = 1;

/** The Retry-After value of an answer with this status, if it has one (every 503). */
export function retryAfterOf(status: number): string | undefined {
  return status === 503 ? String(RETRY_AFTER_SECONDS) : undefined;
}

export function sendProblem(reply: FastifyReply, f: Failure): FastifyReply {
  const p = problemOf(f);
  if (p.code === 'unauthorized') reply.header('www-authenticate', 'Bearer');
  const retry = retryAfterOf(p.status);
  if (retry !== undefined) reply.header('retry-after', retry);
  return reply.status(p.status).type(PROBLEM_TYPE).send(p);
}

const FASTIFY_CODES: Record<string, ReasonCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'bad_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'bad_json',
  FST_ERR_MAX_PARAM_LENGTH: 'uri_too_long',
  FST_ERR_BAD_URL: 'bad_request',
  FST_ERR_INVALID_URL: 'bad_request',
  FST_ERR_NOT_FOUND: 'not_found',
  FST_ERR_HANDLER_TIMEOUT: 'internal_error',
};

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params?: { additionalProperty?: string };
  message?: string;
}

/** Any thrown value as a Failure with a code from the one table. */
export function toFailure(err: unknown): Failure {
  if (err instanceof ProtocolError) return fail(err.code, err.detail, err.extra);
  const e = err as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (e && Array.isArray(e.validation)) {
    const v = e.validation[0];
    const where = `${e.validationContext ?? 'request'}${v?.instancePath ?? ''}`;
    if (e.validationContext !== 'body')
      return fail(
        'bad_request',
        `${where} ${v?.keyword === 'additionalProperties' ? `has no parameter ${v.params?.additionalProperty ?? ''}` : (v?.message ?? 'is invalid')}`,
      );
    if (v?.keyword === 'additionalProperties') return fail('unknown_field', `${where}/${v.params?.additionalProperty ?? ''}`);
    return fail('invalid_document', `${where} ${v?.message ?? 'is invalid'}`);
  }
  // Own members only: an error whose code is "toString" must not find Object.prototype's.
  if (e && typeof e.code === 'string' && Object.prototype.hasOwnProperty.call(FASTIFY_CODES, e.code))
    return fail(FASTIFY_CODES[e.code], e.message);
  if (e instanceof SyntaxError) return fail('bad_json', e.message);
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status === 413) return fail('body_too_large', String(e.message));
  if (status === 414) return fail('uri_too_long', String(e.message).slice(0, 200));
  if (status === 431) return fail('headers_too_large', String(e.message));
  if (status === 408) return fail('request_timeout', String(e.message));
  if (status === 415) return fail('unsupported_media_type', String(e.message));
  if (status >= 400 && status < 500) return fail('bad_request', String(e?.message ?? 'bad request'));
  return fail('internal_error', 'unexpected server fault');
}

/**
 * Whether a failure is a fault of ours to log as `service_error`: a 500. A 503 (not_leader,
 * store_unavailable, shutting_down, …) is an answer the client retries, counted in the metrics, and
 * logging each would flood the log of a standby or of a sequencer whose database restarts.
 */
export function isServiceFault(f: Failure): boolean {
  return REASONS[f.code].status === 500;
}

/** Route every error and every unmatched route through problem+json. */
export function registerProblemHandlers(app: FastifyInstance, onProblem?: (request: FastifyRequest, f: Failure) => void): void {
  app.setErrorHandler((err, request, reply) => {
    const f = toFailure(err);
    onProblem?.(request, f);
    if (isServiceFault(f)) request.log.error({ event: 'service_error', err }, 'request failed');
    return sendProblem(reply, f);
  });
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, fail('not_found', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
}
