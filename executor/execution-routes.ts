// executor/execution-routes.ts: the execution routes of the executor's Core API (docs/design.md §9; Cookwala
// Core 0.2 §6, §7): POST /v1/executions (Idempotency-Key; 201 accepted, 422 problem+json carrying
// the refused execution when the device cannot run it; a replay answers the original), GET
// /v1/executions/{id} (ETag = status seq, 304 on If-None-Match), POST …/{id}/stop (§6.2: no body
// is read, no size limit, no header needed, never refused for authorization; any execution
// answers 200 with the state it is in or ended in), POST …/{id}/resume (API token) and POST
// …/{id}/pause (device owner), both with Idempotency-Key and If-Match: <seq> (428 without, 412
// stale), and GET …/{id}/log (its signed events). Rules live in service.ts; who may call and the
// views are api-context.ts's. Left out: the device's own routes (device-routes.ts). Invariant: a
// stop reaches the service whatever the request carries.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fail, type Failure } from '../verifier/index.ts';
import { problemOf, PROBLEM_TYPE, sendProblem } from '../platform/index.ts';
import { etag, executionView, json, parseIfMatch, problems, TAGS, type ApiContext } from './api-context.ts';
import * as S from './api-schemas.ts';

type Params = { id: string };
const params = S.ID_PARAMS;

export function registerExecutionRoutes(r: FastifyInstance, ctx: ApiContext): void {
  const { svc, authorized, ownerFailure, idemKey, sendExecution } = ctx;
  r.post<{ Body: unknown }>(
    '/v1/executions',
    {
      schema: {
        tags: TAGS.executions,
        operationId: 'createExecution',
        summary: 'Create an execution',
        description:
          'The device plans the recipe against its envelopes, safety limits, sensors and attendance; 201 when accepted (it then starts), 422 with the refused execution when it cannot run it (§3). A replay with the same Idempotency-Key and body answers the original (200, or 422 again).',
        security: [{ api: [] }],
        headers: {
          type: 'object',
          required: ['idempotency-key'],
          properties: { 'idempotency-key': S.HEADERS.idempotencyKey, authorization: S.HEADERS.bearer },
        },
        body: S.EXECUTION_REQUEST,
        response: {
          201: json(S.EXECUTION, 'accepted'),
          200: json(S.EXECUTION, 'a replay'),
          422: { description: 'refused (or idempotency_conflict)', content: { [PROBLEM_TYPE]: { schema: S.REFUSAL } } },
          ...problems(400, 401, 413, 415),
        },
      },
    },
    async (req, reply) => {
      if (!authorized(req)) return sendProblem(reply, fail('unauthorized', 'creating an execution needs the API token'));
      const key = idemKey(req);
      if (!key) return sendProblem(reply, fail('missing_idempotency_key', 'POST /v1/executions carries an Idempotency-Key'));
      const res = await svc.create(req.body, key);
      if (!res.ok) return sendProblem(reply, res);
      const x = res.value.execution;
      reply.header('location', `/v1/executions/${x.id}`);
      if (res.value.replayed) reply.header('idempotent-replayed', 'true');
      if (x.status === 'refused' && x.reason) {
        // One answer for refusals: the reason table's status (422), the refused execution inside.
        const p = problemOf(fail(x.reason.code as Failure['code'], x.reason.detail ?? '', x.step === undefined ? {} : { step: x.step }));
        return reply
          .status(p.status)
          .header('etag', etag(x.seq))
          .type(PROBLEM_TYPE)
          .send({ ...p, execution: executionView(x) });
      }
      return sendExecution(reply, x, res.value.replayed ? 200 : 201);
    },
  );

  r.get<{ Params: Params }>(
    '/v1/executions/:id',
    {
      schema: {
        tags: TAGS.executions,
        operationId: 'getExecution',
        summary: 'Read an execution',
        params,
        headers: {
          type: 'object',
          properties: { 'if-none-match': { type: 'string', description: 'the ETag you have; 304 when unchanged' } },
        },
        response: { 200: json(S.EXECUTION, 'the execution; ETag = status seq'), 304: { description: 'unchanged' }, ...problems(404) },
      },
    },
    async (req, reply) => {
      const x = await svc.get(req.params.id);
      if (!x) return sendProblem(reply, fail('not_found', `no execution ${req.params.id}`));
      if (req.headers['if-none-match'] === etag(x.seq)) return reply.status(304).header('etag', etag(x.seq)).send();
      return sendExecution(reply, x);
    },
  );

  // §6.2: a stop is never refused once the caller can reach the executor. Its body is never read:
  // the hook removes the body headers before fastify looks for a parser, so no size limit, no
  // content type, no JSON rule applies (Node discards whatever was sent). No token, If-Match or
  // Idempotency-Key is needed (stopping twice is stopping).
  r.post<{ Params: Params }>(
    '/v1/executions/:id/stop',
    {
      onRequest: (req, _reply, done) => {
        const h = req.raw.headers;
        delete h['content-type'];
        delete h['content-length'];
        delete h['transfer-encoding'];
        done();
      },
      schema: {
        tags: TAGS.executions,
        operationId: 'stopExecution',
        summary: 'Stop an execution (never refused)',
        description:
          'No body is read, no header is needed. Answers 200 with the execution: `stopping`/`stopped` (heat and motion are off), or the final state it had already ended in (completed, refused, failed, stopped). Idempotent.',
        params,
        response: { 200: json(S.EXECUTION, 'stopped, stopping, or the final state it ended in'), ...problems(404) },
      },
    },
    async (req, reply) => {
      const res = await svc.stop(req.params.id, 'stop_requested');
      if (!res.ok) return sendProblem(reply, res);
      return sendExecution(reply, res.value.execution);
    },
  );

  // Replays of a resume or pause with the same Idempotency-Key get the original success (bounded memory).
  const replays = new Map<string, { op: string; id: string; seq: number; view: Record<string, unknown> }>();
  const changeHeaders = {
    type: 'object',
    required: ['idempotency-key', 'if-match'],
    properties: { 'idempotency-key': S.HEADERS.idempotencyKey, 'if-match': S.HEADERS.ifMatch, authorization: S.HEADERS.bearer },
  };
  async function change(
    op: 'resume' | 'pause',
    req: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    allowed: Failure | undefined,
  ) {
    if (allowed) return sendProblem(reply, allowed);
    const key = idemKey(req);
    if (!key) return sendProblem(reply, fail('missing_idempotency_key', `POST …/${op} carries an Idempotency-Key`));
    const seen = replays.get(key);
    if (seen) {
      if (seen.id !== req.params.id || seen.op !== op)
        return sendProblem(reply, fail('idempotency_conflict', `Idempotency-Key ${key} was used for another change`));
      return reply
        .status(200)
        .header('etag', etag(seen.seq))
        .header('idempotent-replayed', 'true')
        .type('application/json')
        .send(seen.view);
    }
    const im = parseIfMatch(req.headers['if-match']);
    if (im.failure) return sendProblem(reply, im.failure);
    const res = op === 'resume' ? await svc.resume(req.params.id, im.seq as number) : await svc.pause(req.params.id, im.seq as number);
    if (!res.ok) return sendProblem(reply, res);
    if (replays.size >= 10_000) replays.delete(replays.keys().next().value as string);
    replays.set(key, { op, id: res.value.id, seq: res.value.seq, view: executionView(res.value) });
    return sendExecution(reply, res.value);
  }
  const changeResponses = {
    200: json(S.EXECUTION, 'changed; ETag = the new status seq'),
    ...problems(400, 401, 404, 409, 412, 422, 428),
  };

  r.post<{ Params: Params }>(
    '/v1/executions/:id/resume',
    {
      schema: {
        tags: TAGS.executions,
        operationId: 'resumeExecution',
        summary: 'Resume a paused or needs_human execution',
        description:
          'If-Match: the status seq you saw (412 when it moved on). 422 person_required when the step needs a person and nobody is present or reachable.',
        security: [{ api: [] }],
        params,
        headers: changeHeaders,
        response: changeResponses,
      },
    },
    (req, reply) => change('resume', req, reply, authorized(req) ? undefined : fail('unauthorized', 'resuming needs the API token')),
  );

  r.post<{ Params: Params }>(
    '/v1/executions/:id/pause',
    {
      schema: {
        tags: TAGS.owner,
        operationId: 'pauseExecution',
        summary: 'Pause a running execution (device owner)',
        description:
          'Holds the running step (heat held, time left kept) until a resume. Loopback and the owner token only; If-Match as for resume.',
        security: [{ owner: [] }],
        params,
        headers: changeHeaders,
        response: changeResponses,
      },
    },
    (req, reply) => change('pause', req, reply, ownerFailure(req)),
  );

  r.get<{ Params: Params }>(
    '/v1/executions/:id/log',
    {
      schema: {
        tags: TAGS.executions,
        operationId: 'getExecutionLog',
        summary: "The execution's signed events",
        params,
        response: {
          200: { description: 'CloudEvents, in status order', content: { 'application/cloudevents-batch+json': { schema: S.LOG } } },
          ...problems(404),
        },
      },
    },
    async (req, reply) => {
      const res = await svc.log(req.params.id);
      if (!res.ok) return sendProblem(reply, res);
      return reply.type('application/cloudevents-batch+json').send(res.value);
    },
  );
}
