// executor/api.ts: the Core API subset of a device executor on fastify (Cookwala Core 0.2 §6, §7, §8),
// described by its route schemas (api-schemas.ts) and served as OpenAPI 3.1 at GET /openapi.json
// (@fastify/swagger). Routes: POST /v1/executions (Idempotency-Key; 201 accepted, 422 problem+json
// carrying the refused execution when the device cannot run it), GET /v1/executions/{id} (ETag =
// status seq), POST …/{id}/stop (§6.2: no body is read, no size limit, no header needed, never
// refused for authorization; any execution answers 200 with the state it is in or ended in),
// POST …/{id}/resume (Idempotency-Key and If-Match: <seq>; 428 without, 412 stale), GET …/{id}/log,
// GET /v1/capabilities, GET /v1/safety-limits, and the device owner's routes, local (loopback) and
// authenticated with the owner token: POST …/{id}/pause (If-Match), GET|PUT /v1/attendance (§6.6)
// and GET|PUT /v1/consent (§8; `none` withdraws). Every answer goes out with JSON.stringify, so a
// response schema never drops a member. Rules live in service.ts; statuses come from the one reason
// table through platform/http-problem.ts. The app is built, never started here. Left out: catalog
// routes (recalls, incidents), agent mandates.

import { createHash, timingSafeEqual } from 'node:crypto';
import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from '../platform/logger.ts';
import { fail, ProtocolError, type Failure } from '../verifier/errors.ts';
import { parseJson } from '../verifier/encoding/strict-json.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import type { KeyRecord } from '../verifier/documents/keys.ts';
import { problemOf, PROBLEM_TYPE, registerProblemHandlers, sendProblem } from '../platform/http-problem.ts';
import { boundedServerOptions } from '../platform/http-limits.ts';
import type { ExecutionService } from './service.ts';
import type { ExecutionRecord, ExecutorStore } from './store.ts';
import type { SafetyLimits } from './safety-limits.ts';
import type { DeviceProfile } from './plan.ts';
import { OPERATIONS } from './vocabulary.ts';
import { readAttendance, type Attendance } from './attendance.ts';
import { isDataset, type Dataset } from './request.ts';
import * as S from './api-schemas.ts';

export interface ApiOptions {
  source: string;
  keys: () => KeyRecord[];
  limits: SafetyLimits;
  profile: DeviceProfile;
  /** When set, create and resume need `Authorization: Bearer <token>` (or the owner token); stop never does. */
  apiToken?: string;
  /** The device owner's token: pause, attendance and consent need it (and a loopback caller). Unset = those routes are off. */
  ownerToken?: string;
  attendance?: Attendance;
  /** Change the device consent (`none` withdraws); returns whether consent was withdrawn. */
  setConsent?: (d: Dataset) => Promise<boolean>;
  bodyLimit?: number;
  /** The executor's logger (platform/logger.ts); fastify logs through it (no per-request lines). */
  logger?: Logger;
}

export const CORE_VERSION = '0.2.1';

export function executionView(x: ExecutionRecord): Record<string, unknown> {
  const v: Record<string, unknown> = { id: x.id, recipe: { id: x.recipe.id }, status: x.status, seq: x.seq };
  if (x.step !== undefined) v.step = x.step;
  if (x.reason) v.reason = x.reason;
  if (x.plan) v.verifiedBy = x.plan.steps.map((s) => s.verifiedBy);
  if (x.consent) v.consent = x.consent;
  v.createdAt = x.createdAt;
  v.updatedAt = x.updatedAt;
  return v;
}

const etag = (seq: number) => `"${seq}"`;

/** If-Match: <seq> (quoted or bare, one strong tag). undefined = absent. */
export function parseIfMatch(h: string | string[] | undefined): { seq?: number; failure?: Failure } {
  if (h === undefined) return { failure: fail('precondition_required', 'a change to an execution carries If-Match: <seq>') };
  const v = (Array.isArray(h) ? h.join(',') : h).trim();
  const m = /^"?([1-9][0-9]{0,9})"?$/.exec(v);
  if (!m || v.startsWith('"') !== v.endsWith('"'))
    return { failure: fail('bad_request', `If-Match is one status seq, e.g. "3"; got ${v.slice(0, 40)}`) };
  return { seq: Number(m[1]) };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

const X_PATTERN = 'x-cookwala-patternProperties';
/** Rename every `from` member to `to`, in place, through the whole JSON value. */
function renameKey<T>(v: T, from: string, to: string): T {
  if (Array.isArray(v)) for (const x of v) renameKey(x, from, to);
  else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(o, from)) {
      o[to] = o[from];
      delete o[from];
    }
    for (const k of Object.keys(o)) renameKey(o[k], from, to);
  }
  return v;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

const problems = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, { description: 'problem+json', content: { [PROBLEM_TYPE]: { schema: S.PROBLEM } } }]));
const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });

export function buildExecutorApp(svc: ExecutionService, store: ExecutorStore, opts: ApiOptions): FastifyInstance {
  const app = Fastify({
    ...boundedServerOptions(),
    ...(opts.logger
      ? { loggerInstance: opts.logger as FastifyBaseLogger, logController: new LogController({ disableRequestLogging: true }) }
      : { logger: false }),
    bodyLimit: opts.bodyLimit ?? 256 * 1024,
    ajv: { customOptions: { removeAdditional: false, useDefaults: false, coerceTypes: false } },
  });
  // Header/body timeouts and transport errors as problem+json (platform/http-limits.ts); no
  // connection cap here: a local stop must never be answered 503 because others hold sockets.
  registerProblemHandlers(app);
  // Request schemas are enforced with the same settings fastify is given above; headers are read by
  // the handlers (each with its own reason code), their schemas only document them.
  const ajv = new Ajv({ removeAdditional: false, useDefaults: false, coerceTypes: false, allErrors: false, strict: false });
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'headers' ? () => true : ajv.compile(schema)));
  // Answers are sent as built: a response schema documents, it never filters.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // Only JSON bodies are read, strictly (I-JSON: duplicate_member, too_deep, bad_json); anything else is
  // unsupported_media_type. A stop never gets here (its hook below removes the body).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([a-z0-9.+-]+\+)?json$/i, { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    const j = parseJson(text);
    if (j.ok) return done(null, j.value);
    const { ok: _ok, code, detail, ...extra } = j;
    done(new ProtocolError(code, detail, extra), undefined);
  });

  void app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cookwala executor (Core API subset)',
        version: CORE_VERSION,
        description:
          'A device executor of Cookwala Core 0.2 (§6, §7, §8). Errors are RFC 9457 problem+json with a `code` from the README reason table. Owner routes answer only on loopback with the owner token (DATA/owner-token).',
      },
      components: {
        securitySchemes: {
          api: { type: 'http', scheme: 'bearer', description: 'the API token (--api-token), or the owner token' },
          owner: { type: 'http', scheme: 'bearer', description: 'the device owner token (DATA/owner-token), loopback only' },
        },
      },
    },
    // The converter to OpenAPI turns `patternProperties` into `additionalProperties` (losing our
    // "no other members" rule); OpenAPI 3.1 is JSON Schema 2020-12, so carry it through untouched.
    transform: ({ schema, url }) => ({ schema: renameKey(structuredClone(schema), 'patternProperties', X_PATTERN), url }),
    transformObject: (d) => renameKey((d as { openapiObject: Record<string, unknown> }).openapiObject, X_PATTERN, 'patternProperties'),
  });

  const apiDigest = opts.apiToken ? digest(opts.apiToken) : undefined;
  const ownerDigest = opts.ownerToken ? digest(opts.ownerToken) : undefined;
  function bearer(req: FastifyRequest, d: Buffer): boolean {
    const m = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''));
    return m !== null && timingSafeEqual(digest(m[1]), d);
  }
  const isOwner = (req: FastifyRequest) =>
    ownerDigest !== undefined && LOOPBACK.test(req.socket?.remoteAddress ?? '') && bearer(req, ownerDigest);
  const authorized = (req: FastifyRequest) => !apiDigest || bearer(req, apiDigest) || isOwner(req);
  function ownerFailure(req: FastifyRequest): Failure | undefined {
    if (!ownerDigest) return fail('unauthorized', 'owner routes are off: this executor has no owner token');
    if (!LOOPBACK.test(req.socket?.remoteAddress ?? ''))
      return fail('unauthorized', 'owner routes answer only on the device itself (loopback)');
    if (!bearer(req, ownerDigest))
      return fail('unauthorized', 'this needs the device owner token (Authorization: Bearer <DATA/owner-token>)');
    return undefined;
  }
  function idemKey(req: FastifyRequest): string | undefined {
    const k = req.headers['idempotency-key'];
    return typeof k === 'string' && k.length > 0 && k.length <= 256 ? k : undefined;
  }
  function sendExecution(reply: FastifyReply, x: ExecutionRecord, status = 200): FastifyReply {
    return reply
      .status(status)
      .header('etag', etag(x.seq))
      .header('cache-control', 'no-store')
      .type('application/json')
      .send(executionView(x));
  }

  type Params = { id: string };
  const params = S.ID_PARAMS;
  const tags = { executions: ['executions'], device: ['device'], owner: ['owner'] };

  void app.register(async (r) => {
    r.post<{ Body: unknown }>(
      '/v1/executions',
      {
        schema: {
          tags: tags.executions,
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
          tags: tags.executions,
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
          tags: tags.executions,
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
          tags: tags.executions,
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
          tags: tags.owner,
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
          tags: tags.executions,
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

    r.get(
      '/v1/capabilities',
      {
        schema: {
          tags: tags.device,
          operationId: 'getCapabilities',
          summary: 'What this device runs, its keys, consent and privacy',
          response: { 200: json(S.CAPABILITIES, 'Capabilities') },
        },
      },
      async () => ({
        kind: 'Capabilities',
        coreVersion: CORE_VERSION,
        device: { source: opts.source },
        keys: opts.keys(),
        operations: [...OPERATIONS.keys()].filter((op) => !opts.profile.operations || opts.profile.operations.includes(op)),
        sensors: opts.profile.sensors,
        consent: { dataset: store.consent().dataset },
        privacy: { personalData: 'none' },
        safetyLimits: '/v1/safety-limits',
        attendance: '/v1/attendance',
      }),
    );

    r.get(
      '/v1/safety-limits',
      {
        schema: {
          tags: tags.device,
          operationId: 'getSafetyLimits',
          summary: 'The SafetyLimits pack this device enforces (§6.1)',
          response: { 200: json(S.SAFETY_LIMITS, 'SafetyLimits') },
        },
      },
      async () => opts.limits,
    );

    const attendanceView = () => {
      const a = opts.attendance?.get() ?? { present: false, available: false, since: 0 };
      const v: Record<string, unknown> = { present: a.present };
      if (a.reachableWithinS !== undefined) v.reachableWithinS = a.reachableWithinS;
      return { ...v, available: a.available, since: formatTime(a.since) };
    };
    r.get(
      '/v1/attendance',
      {
        schema: {
          tags: tags.device,
          operationId: 'getAttendance',
          summary: 'Is a responsible person present or reachable (§6.6)?',
          response: { 200: json(S.ATTENDANCE, 'attendance') },
        },
      },
      async () => attendanceView(),
    );
    r.put<{ Body: unknown }>(
      '/v1/attendance',
      {
        schema: {
          tags: tags.owner,
          operationId: 'putAttendance',
          summary: 'Declare who is around (device owner)',
          description:
            'present:true, or reachableWithinS <= 60, lets steps with unattended:false run. Declaring nobody holds any such running step: the execution moves to needs_human (person_required).',
          security: [{ owner: [] }],
          body: S.ATTENDANCE_REQUEST,
          response: { 200: json(S.ATTENDANCE, 'the attendance now'), ...problems(400, 401) },
        },
      },
      async (req, reply) => {
        const f = ownerFailure(req);
        if (f) return sendProblem(reply, f);
        const a = readAttendance(req.body);
        if (!a.ok) return sendProblem(reply, a);
        if (!opts.attendance) return sendProblem(reply, fail('internal_error', 'no attendance on this executor'));
        opts.attendance.set(a.value);
        return attendanceView();
      },
    );

    const consentView = () => ({ dataset: store.consent().dataset, epoch: store.consent().epoch });
    r.get(
      '/v1/consent',
      {
        schema: {
          tags: tags.device,
          operationId: 'getConsent',
          summary: 'The device consent (§8)',
          response: { 200: json(S.CONSENT, 'consent') },
        },
      },
      async () => consentView(),
    );
    r.put<{ Body: unknown }>(
      '/v1/consent',
      {
        schema: {
          tags: tags.owner,
          operationId: 'putConsent',
          summary: 'Set or withdraw the device consent (device owner)',
          description:
            '`none` withdraws: one cookwala.consent.withdrawn leaves, the pending outbox is dropped, executions of the old consent never leave again.',
          security: [{ owner: [] }],
          body: S.CONSENT_REQUEST,
          response: { 200: json(S.CONSENT, 'the consent now'), ...problems(400, 401) },
        },
      },
      async (req, reply) => {
        const f = ownerFailure(req);
        if (f) return sendProblem(reply, f);
        const d = (req.body as { dataset?: unknown }).dataset;
        if (!isDataset(d)) return sendProblem(reply, fail('invalid_document', '$.dataset is none, research_only or open'));
        if (!opts.setConsent) return sendProblem(reply, fail('internal_error', 'consent cannot be changed on this executor'));
        const withdrawn = await opts.setConsent(d);
        return { ...consentView(), withdrawn };
      },
    );

    r.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  });

  return app;
}
