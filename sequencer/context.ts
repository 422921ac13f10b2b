// sequencer/context.ts: what every route module receives (STYLE: services are factories over the
// components they need), plus the small request helpers routes share: the hosted log named by
// the `{log}` path segment (the origin, URL-encoded as one segment; 404 not_found when not
// hosted) and strict decimal parsing of seq-like parameters (querystrings stay strings: ajv never
// coerces, docs/design.md §10).

import type { FastifyReply, FastifyRequest } from 'fastify';
import { fail, ProtocolError, type Result, ok } from '../verifier/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';
import type { Signer } from '../verifier/signing/index.ts';
import type { LogMldsaSigner } from '../verifier/documents/index.ts';
import type { SigPool } from '../platform/index.ts';
import type { LogConfig, SequencerConfig } from './config.ts';
import type { Clock } from '../platform/index.ts';
import type { Metrics } from './metrics.ts';
import type { Logger } from '../platform/index.ts';
import type { Liveness } from './liveness.ts';
import type { IdempotencyCache } from './idempotency.ts';
import type { HostedLog, LogHost } from './log-host.ts';

export interface SequencerContext {
  readonly dataDir: string;
  readonly config: SequencerConfig;
  readonly signer: Signer;
  /** The sequencer's self-signed KeyRecord. */
  readonly keyRecord: KeyRecord;
  /** The log's ML-DSA-44 signer, when the sequencer has one (mldsa-key.ts). */
  readonly mldsa?: LogMldsaSigner;
  readonly clock: Clock;
  readonly metrics: Metrics;
  /** The sequencer's logger (fastify's too): named events, `log` on everything about one log. */
  readonly logger: Logger;
  readonly liveness: Liveness;
  readonly pool: SigPool;
  readonly logs: LogHost;
  readonly idempotency: IdempotencyCache;
  /** preHandler for operator endpoints (401 unauthorized without the bearer token). */
  requireOperator(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
  /** Host a new log and record it in config.json. */
  addLog(l: LogConfig): Promise<HostedLog>;
}

export const LOG_PARAMS = {
  type: 'object',
  properties: { log: { type: 'string', minLength: 1, maxLength: 1024 } },
  required: ['log'],
} as const;

/** The hosted log of a `{log}` path parameter, or a not_found ProtocolError. */
export function hostedLog(ctx: SequencerContext, params: unknown): HostedLog {
  const origin = (params as { log?: string }).log ?? '';
  const h = ctx.logs.get(origin);
  if (!h) throw new ProtocolError('not_found', `this sequencer hosts no log ${origin}`);
  return h;
}

const DECIMAL_RE = /^(?:0|[1-9][0-9]{0,15})$/;

/** A decimal integer parameter in [min, Number.MAX_SAFE_INTEGER], or bad_request naming it. */
export function intParam(name: string, v: unknown, min = 0): Result<number> {
  if (typeof v !== 'string' || !DECIMAL_RE.test(v)) return fail('bad_request', `${name} is a decimal integer`);
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min) return fail('bad_request', `${name} is an integer >= ${min}`);
  return ok(n);
}

/** intParam, or the default when absent. */
export function optionalIntParam(name: string, v: unknown, dflt: number, min = 0): Result<number> {
  return v === undefined ? ok(dflt) : intParam(name, v, min);
}
