// executor/api.ts: the Core API subset of a device executor on fastify (Cookwala Core 0.2 §6, §7):
// POST /v1/executions (Idempotency-Key required), GET /v1/executions/{id} (ETag = status seq),
// POST …/{id}/stop (never refused for authorization, no If-Match, no Idempotency-Key, any body: §6.2),
// POST …/{id}/resume (Idempotency-Key and If-Match: <seq> required; 428 without, 412 on a stale
// seq), GET …/{id}/log (the execution's signed events), GET /v1/capabilities (device KeyRecords,
// consent, privacy) and GET /v1/safety-limits. An optional bearer token guards the changing routes
// except stop. Routes are thin: rules live in service.ts, statuses in problem.ts. The app is built,
// never started here (the caller listens or injects). Left out: catalog routes (recalls, incidents).

import { createHash, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { fail, type Failure } from '../verifier/errors.ts';
import { parseJson } from '../verifier/encoding/strict-json.ts';
import type { KeyRecord } from '../verifier/documents/keys.ts';
import { registerProblemHandlers, sendProblem } from '../platform/http-problem.ts';
import type { ExecutionService } from './service.ts';
import type { ExecutionRecord, ExecutorStore } from './store.ts';
import type { SafetyLimits } from './safety-limits.ts';
import type { DeviceProfile } from './plan.ts';
import { OPERATIONS } from './vocabulary.ts';

export interface ApiOptions {
  source: string;
  keys: () => KeyRecord[];
  limits: SafetyLimits;
  profile: DeviceProfile;
  /** When set, create and resume need `Authorization: Bearer <token>`; stop never does. */
  apiToken?: string;
  bodyLimit?: number;
  logger?: boolean;
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
  if (!m || (v.startsWith('"') !== v.endsWith('"'))) return { failure: fail('bad_request', `If-Match is one status seq, e.g. "3"; got ${v.slice(0, 40)}`) };
  return { seq: Number(m[1]) };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

export function buildExecutorApp(svc: ExecutionService, store: ExecutorStore, opts: ApiOptions): FastifyInstance {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: opts.bodyLimit ?? 256 * 1024,
    ajv: { customOptions: { removeAdditional: false, useDefaults: false, coerceTypes: false } },
  });
  registerProblemHandlers(app);
  // Bodies are read as text and parsed here: bad JSON is `bad_json`, an empty body is no body (a
  // stop needs none), and any other content type still reaches the route (stop must not be refused
  // for a header; create checks the type itself).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    const ct = String(req.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase();
    if (!/^application\/([a-z0-9.+-]+\+)?json$/.test(ct)) return done(null, { raw: text, json: false });
    if (text.trim() === '') return done(null, undefined);
    // I-JSON (verifier/encoding/strict-json.ts): duplicate_member, too_deep, bad_json. Not an error here:
    // a stop must not be refused for its body (§6.2); create and resume answer the failure
    // themselves (badJson below).
    const j = parseJson(text);
    done(null, j.ok ? { json: true, value: j.value } : { json: true, bad: j });
  });
  function badJson(b: Body): Failure | undefined {
    return b && b.json && 'bad' in b ? b.bad : undefined;
  }

  const tokenDigest = opts.apiToken ? digest(opts.apiToken) : undefined;
  function authorized(req: FastifyRequest): boolean {
    if (!tokenDigest) return true;
    const m = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''));
    return m !== null && timingSafeEqual(digest(m[1]), tokenDigest);
  }
  function idemKey(req: FastifyRequest): string | undefined {
    const k = req.headers['idempotency-key'];
    return typeof k === 'string' && k.length > 0 && k.length <= 256 ? k : undefined;
  }
  function sendExecution(reply: FastifyReply, x: ExecutionRecord, status = 200): FastifyReply {
    return reply.status(status).header('etag', etag(x.seq)).header('cache-control', 'no-store').send(executionView(x));
  }

  type Params = { id: string };
  type Body = { json: true; value: unknown } | { json: true; bad: Failure } | { json: false; raw: string } | undefined;

  app.post<{ Body: Body }>('/v1/executions', async (req, reply) => {
    if (!authorized(req)) return sendProblem(reply, fail('unauthorized', 'creating an execution needs the API token'));
    const key = idemKey(req);
    if (!key) return sendProblem(reply, fail('missing_idempotency_key', 'POST /v1/executions carries an Idempotency-Key'));
    const b = req.body;
    if (!b) return sendProblem(reply, fail('invalid_document', 'the body is an execution request'));
    if (!b.json) return sendProblem(reply, fail('unsupported_media_type', 'send application/json'));
    if ('bad' in b) return sendProblem(reply, b.bad);
    const r = await svc.create(b.value, key);
    if (!r.ok) return sendProblem(reply, r);
    const x = r.value.execution;
    reply.header('location', `/v1/executions/${x.id}`);
    if (r.value.replayed) reply.header('idempotent-replayed', 'true');
    return sendExecution(reply, x, r.value.replayed ? 200 : 201);
  });

  app.get<{ Params: Params }>('/v1/executions/:id', async (req, reply) => {
    const x = await svc.get(req.params.id);
    if (!x) return sendProblem(reply, fail('not_found', `no execution ${req.params.id}`));
    if (req.headers['if-none-match'] === etag(x.seq)) return reply.status(304).header('etag', etag(x.seq)).send();
    return sendExecution(reply, x);
  });

  // §6.2: once the caller can reach the executor, a stop is never refused for authorization; it
  // needs no If-Match and no Idempotency-Key (stopping twice is stopping).
  app.post<{ Params: Params }>('/v1/executions/:id/stop', async (req, reply) => {
    const r = await svc.stop(req.params.id, 'stop_requested');
    if (!r.ok) return sendProblem(reply, r);
    return sendExecution(reply, r.value.execution);
  });

  // Replays of a resume with the same Idempotency-Key get the original success (bounded memory).
  const resumes = new Map<string, { id: string; seq: number; view: Record<string, unknown> }>();
  app.post<{ Params: Params; Body: Body }>('/v1/executions/:id/resume', async (req, reply) => {
    if (!authorized(req)) return sendProblem(reply, fail('unauthorized', 'resuming needs the API token'));
    const bad = badJson(req.body);
    if (bad) return sendProblem(reply, bad);
    const key = idemKey(req);
    if (!key) return sendProblem(reply, fail('missing_idempotency_key', 'POST …/resume carries an Idempotency-Key'));
    const seen = resumes.get(key);
    if (seen) {
      if (seen.id !== req.params.id) return sendProblem(reply, fail('idempotency_conflict', `Idempotency-Key ${key} was used for another execution`));
      return reply.status(200).header('etag', etag(seen.seq)).header('idempotent-replayed', 'true').send(seen.view);
    }
    const im = parseIfMatch(req.headers['if-match']);
    if (im.failure) return sendProblem(reply, im.failure);
    const r = await svc.resume(req.params.id, im.seq as number);
    if (!r.ok) return sendProblem(reply, r);
    if (resumes.size >= 10_000) resumes.delete(resumes.keys().next().value as string);
    resumes.set(key, { id: r.value.id, seq: r.value.seq, view: executionView(r.value) });
    return sendExecution(reply, r.value);
  });

  app.get<{ Params: Params }>('/v1/executions/:id/log', async (req, reply) => {
    const r = await svc.log(req.params.id);
    if (!r.ok) return sendProblem(reply, r);
    return reply.type('application/cloudevents-batch+json').send(JSON.stringify(r.value));
  });

  app.get('/v1/capabilities', async () => ({
    kind: 'Capabilities',
    coreVersion: CORE_VERSION,
    device: { source: opts.source },
    keys: opts.keys(),
    operations: [...OPERATIONS.keys()].filter((op) => !opts.profile.operations || opts.profile.operations.includes(op)),
    sensors: opts.profile.sensors,
    consent: { dataset: store.consent().dataset },
    privacy: { personalData: 'none' },
    safetyLimits: '/v1/safety-limits',
  }));

  app.get('/v1/safety-limits', async () => opts.limits);

  return app;
}
