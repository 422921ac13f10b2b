// executor/api-context.ts: what the executor's Core API routes (docs/design.md §9; Cookwala Core 0.2 §6, §7,
// §8) share: the options the app is built with, the execution as the API shows it (executionView;
// ETag = its status seq), the If-Match reader of resume and pause (§6.2: precondition_required
// without, bad_request when it is not one seq), the Idempotency-Key reader, and who may call: the
// API token (create, resume) or the device owner's token from a loopback caller only (pause,
// attendance, consent); tokens are compared as SHA-256 digests in constant time. Left out: the
// routes (execution-routes.ts, device-routes.ts) and the fastify app (api.ts). Invariant: an owner
// route never answers a caller that is not on the device itself, whatever token it presents.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../platform/index.ts';
import { fail, type Failure } from '../verifier/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import { PROBLEM_TYPE } from '../platform/index.ts';
import type { ExecutionService } from './service.ts';
import type { ExecutionRecord, ExecutorStore } from './store.ts';
import type { SafetyLimits } from './safety-limits.ts';
import type { DeviceProfile } from './plan.ts';
import type { Attendance } from './attendance.ts';
import type { Dataset } from './request.ts';
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

export const etag = (seq: number) => `"${seq}"`;

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

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/** The OpenAPI description of problem+json answers with these statuses. */
export const problems = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, { description: 'problem+json', content: { [PROBLEM_TYPE]: { schema: S.PROBLEM } } }]));
/** The OpenAPI description of a JSON answer. */
export const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } });

export const TAGS = { executions: ['executions'], device: ['device'], owner: ['owner'] };

export interface ApiContext {
  svc: ExecutionService;
  store: ExecutorStore;
  opts: ApiOptions;
  /** The API token, or the owner's (or no API token is set). */
  authorized(req: FastifyRequest): boolean;
  /** Why an owner route refuses this caller; undefined when it may go on. */
  ownerFailure(req: FastifyRequest): Failure | undefined;
  /** The Idempotency-Key (1 to 256 characters), or undefined. */
  idemKey(req: FastifyRequest): string | undefined;
  sendExecution(reply: FastifyReply, x: ExecutionRecord, status?: number): FastifyReply;
}

export function createApiContext(svc: ExecutionService, store: ExecutorStore, opts: ApiOptions): ApiContext {
  const apiDigest = opts.apiToken ? digest(opts.apiToken) : undefined;
  const ownerDigest = opts.ownerToken ? digest(opts.ownerToken) : undefined;
  function bearer(req: FastifyRequest, d: Buffer): boolean {
    const m = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''));
    return m !== null && timingSafeEqual(digest(m[1]), d);
  }
  const isOwner = (req: FastifyRequest) =>
    ownerDigest !== undefined && LOOPBACK.test(req.socket?.remoteAddress ?? '') && bearer(req, ownerDigest);
  return {
    svc,
    store,
    opts,
    authorized: (req) => !apiDigest || bearer(req, apiDigest) || isOwner(req),
    ownerFailure(req) {
      if (!ownerDigest) return fail('unauthorized', 'owner routes are off: this executor has no owner token');
      if (!LOOPBACK.test(req.socket?.remoteAddress ?? ''))
        return fail('unauthorized', 'owner routes answer only on the device itself (loopback)');
      if (!bearer(req, ownerDigest))
        return fail('unauthorized', 'this needs the device owner token (Authorization: Bearer <DATA/owner-token>)');
      return undefined;
    },
    idemKey(req) {
      const k = req.headers['idempotency-key'];
      return typeof k === 'string' && k.length > 0 && k.length <= 256 ? k : undefined;
    },
    sendExecution(reply, x, status = 200) {
      return reply
        .status(status)
        .header('etag', etag(x.seq))
        .header('cache-control', 'no-store')
        .type('application/json')
        .send(executionView(x));
    },
  };
}
