// executor/api.ts: the Core API subset of a device executor on fastify (docs/design.md §9; Cookwala Core 0.2
// §6, §7, §8), described by its route schemas (api-schemas.ts) and served as OpenAPI 3.1 at GET
// /openapi.json (@fastify/swagger). This file builds the app: bounded server options, request
// bodies read only as strict JSON (I-JSON: duplicate_member, too_deep, bad_json; anything else
// unsupported_media_type), request schemas enforced by our own ajv (no coercion, no defaults),
// every answer sent with JSON.stringify so a response schema never drops a member, problem+json
// from the one reason table through platform/http-problem.ts; then it registers the execution
// routes (execution-routes.ts) and the device's routes (device-routes.ts), which share
// api-context.ts. Rules live in service.ts. The app is built, never started here. Left out:
// catalog routes (recalls, incidents), agent mandates.

import swagger from '@fastify/swagger';
import { Ajv } from 'ajv';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ProtocolError } from '../verifier/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import { registerProblemHandlers } from '../platform/index.ts';
import { answerHalfClosed, boundedServerOptions } from '../platform/index.ts';
import type { ExecutionService } from './service.ts';
import type { ExecutorStore } from './store.ts';
import { CORE_VERSION, createApiContext, type ApiOptions } from './api-context.ts';
import { registerExecutionRoutes } from './execution-routes.ts';
import { registerDeviceRoutes } from './device-routes.ts';

export { CORE_VERSION, executionView, parseIfMatch, type ApiOptions } from './api-context.ts';

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

export function buildExecutorApp(svc: ExecutionService, store: ExecutorStore, opts: ApiOptions): FastifyInstance {
  const app = Fastify({
    ...boundedServerOptions(),
    ...(opts.logger
      ? { loggerInstance: opts.logger as FastifyBaseLogger, logController: new LogController({ disableRequestLogging: true }) }
      : { logger: false }),
    bodyLimit: opts.bodyLimit ?? 256 * 1024,
    ajv: { customOptions: { removeAdditional: false, useDefaults: false, coerceTypes: false } },
  });
  answerHalfClosed(app.server);
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
          'A device executor of Cookwala Core 0.2 (§6, §7, §8). Errors are RFC 9457 problem+json with a `code` from the reason-code table (docs/reference.md). Owner routes answer only on loopback with the owner token (DATA/owner-token).',
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

  const ctx = createApiContext(svc, store, opts);
  void app.register(async (r) => {
    registerExecutionRoutes(r, ctx);
    registerDeviceRoutes(r, ctx);
    r.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  });

  return app;
}
