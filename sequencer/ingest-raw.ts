// sequencer/ingest-raw.ts: the hot requests of POST /v1/logs/{log}/events (docs/design.md §5, §10, §13)
// answered on the HTTP server before fastify routes them (platform/raw-route.ts), through the same
// ingestRequest() as the fastify route (ingest-route.ts), so the verdicts, the answers' bodies and
// the Idempotency-Key bookkeeping are the route's. It serves more single posts a second than the
// fastify route and leaves batches unchanged (docs/benchmarks.md).
// It takes only the plain case, decided from the request line and headers before any body byte
// is read: a path /v1/logs/<one segment>/events whose decoded origin this sequencer hosts, a
// Content-Type exactly application/cloudevents+json or application/cloudevents-batch+json, a
// Content-Length within the body limit, no Transfer-Encoding, and the sequencer not stopping.
// Everything else (other media types and binary mode, chunked or oversized bodies, an unknown log,
// a request while stopping) goes to fastify, whose route answers it as before. Like fastify's hook
// (app.ts) it holds the log's store open (a lease) while the request is decided, counts a
// request-level refusal in cookwala_events_rejected_total, logs a fault answered with 5xx, and
// once the sequencer is stopping asks the client to close its connection (Connection: close).
// Answers: the content types fastify gives them (answerType), plus Cache-Control: no-store.

import type { IncomingMessage } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { fail, type Failure } from '../verifier/index.ts';
import { isServiceFault, problemOf, retryAfterOf, toFailure } from '../platform/index.ts';
import { routeRawPost, type RawAnswer } from '../platform/index.ts';
import { answerType, ingestRequest } from './ingest-route.ts';
import type { SequencerContext } from './context.ts';
import type { LogHost } from './log-host.ts';
import type { Metrics } from './metrics.ts';
import type { Headers } from './binary-event.ts';

const PATH_RE = /^\/v1\/logs\/([^/]+)\/events$/;
const MEDIA = new Set(['application/cloudevents+json', 'application/cloudevents-batch+json']);
/** LOG_PARAMS (context.ts): what fastify's schema admits as a log parameter. */
const MAX_ORIGIN = 1024;

export interface RawIngestDeps {
  ctx: SequencerContext;
  logs: LogHost;
  metrics: Metrics;
  logger: FastifyBaseLogger;
  bodyLimitBytes: number;
  /** True once the sequencer is stopping: fastify's own hook then answers shutting_down. */
  stopping(): boolean;
}

/** The hosted origin of a request this route takes, or undefined to leave it to fastify. */
export function acceptIngest(path: string, req: IncomingMessage, d: Pick<RawIngestDeps, 'logs' | 'bodyLimitBytes' | 'stopping'>) {
  const m = PATH_RE.exec(path);
  if (!m || d.stopping()) return undefined;
  const h = req.headers;
  if (typeof h['content-type'] !== 'string' || !MEDIA.has(h['content-type'])) return undefined;
  if (h['transfer-encoding'] !== undefined || h['content-length'] === undefined) return undefined;
  const length = Number(h['content-length']);
  if (!Number.isSafeInteger(length) || length > d.bodyLimitBytes) return undefined;
  let origin: string;
  try {
    origin = decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
  if (origin.length === 0 || origin.length > MAX_ORIGIN || !d.logs.has(origin)) return undefined;
  return origin;
}

/** Register the raw ingest route on `app` (after its routes, before it listens). */
export function routeRawIngest(app: FastifyInstance, d: RawIngestDeps): void {
  const problem = (f: Failure): RawAnswer => {
    const p = problemOf(f);
    return {
      status: p.status,
      contentType: answerType({ status: p.status, body: p }),
      body: JSON.stringify(p),
      retryAfter: retryAfterOf(p.status),
    };
  };
  /** A thrown request-level refusal or fault, as fastify's error handler answers it (app.ts). */
  const thrown = (origin: string, err: unknown): RawAnswer => {
    const f = toFailure(err);
    if (f.code !== 'not_found') d.metrics.inc('cookwala_events_rejected_total', { log: origin, code: f.code });
    if (isServiceFault(f)) d.logger.error({ event: 'service_error', err }, 'request failed');
    return { ...problem(f), close: d.stopping() };
  };
  routeRawPost<string>(app, {
    accept: (path, req) => acceptIngest(path, req, d),
    maxBodyBytes: d.bodyLimitBytes,
    async handle(body, origin, req) {
      const raw = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      let release: (() => void) | undefined;
      try {
        release = (await d.logs.acquire(origin)).release;
        const a = await ingestRequest(d.ctx, { log: origin }, req.headers as Headers, raw);
        return {
          status: a.status,
          contentType: answerType(a),
          body: a.raw ?? JSON.stringify(a.body),
          close: d.stopping(),
          retryAfter: retryAfterOf(a.status),
        };
      } catch (err) {
        return thrown(origin, err);
      } finally {
        release?.();
      }
    },
    // Not reached with a Content-Length within the limit (node's parser reads no more than it).
    tooLarge: () => problem(fail('body_too_large', `a request body is at most ${d.bodyLimitBytes} bytes`)),
    failed: (err) => thrown('', err),
    closing: () => problem(fail('shutting_down', 'the sequencer is stopping; retry later')),
  });
}
