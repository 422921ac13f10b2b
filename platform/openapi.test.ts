// The shared OpenAPI mechanism (platform/openapi.ts) on a bare fastify app: response schemas are
// documentation only (a closed schema neither drops nor coerces members; `__proto__` stays a
// member), a doc-only body is not validated while a `body` is, doc-only bodies and headers land in
// the document, problems(...) groups reason codes by their status, and draft-07 refs are rewritten.
import { afterEach, describe as group, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { componentsFromDefinitions, describe, json, OPENAPI_PATH, problems, ref, registerOpenApi } from './openapi.ts';
import { registerProblemHandlers } from './http-problem.ts';

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function build(): Promise<FastifyInstance> {
  const a = Fastify({ ajv: { customOptions: { removeAdditional: false, useDefaults: false, coerceTypes: false } } });
  registerProblemHandlers(a);
  await registerOpenApi(a, {
    title: 't',
    version: '1',
    description: 'd',
    schemas: { Thing: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false } },
  });
  return a;
}

const SENT = '{"a":1,"b":"not in the schema","__proto__":{"polluted":true},"n":"7"}';

group('registerOpenApi', () => {
  it('a closed response schema neither drops nor coerces what the handler returns', async () => {
    app = await build();
    const closed = { type: 'object', properties: { a: { type: 'string' }, n: { type: 'integer' } }, additionalProperties: false };
    app.get('/x', { schema: describe({ summary: 'x', responses: { 200: json('x', closed) } }) }, async () => JSON.parse(SENT) as unknown);
    const r = await app.inject({ method: 'GET', url: '/x' });
    expect(r.statusCode).toBe(200);
    expect(r.body).toBe(SENT);
  });

  it('docBody is documentation only; body is validated (no coercion, no removal)', async () => {
    app = await build();
    const body = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false };
    app.post(
      '/doc',
      {
        schema: describe({
          summary: 'doc',
          docBody: { content: { 'application/json': { schema: body } } },
          responses: { 200: json('echo', { type: 'object', additionalProperties: true }) },
        }),
      },
      async (req) => req.body,
    );
    app.post(
      '/val',
      { schema: describe({ summary: 'val', body, responses: { 200: json('echo', { type: 'object', additionalProperties: true }) } }) },
      async (req) => req.body,
    );
    const sent = { n: '1', extra: true };
    const doc = await app.inject({ method: 'POST', url: '/doc', payload: sent });
    expect(doc.statusCode).toBe(200);
    expect(doc.json()).toEqual(sent);
    const val = await app.inject({ method: 'POST', url: '/val', payload: { n: '1' } });
    expect(val.statusCode).toBe(400);
    expect(val.json().code).toBe('invalid_document');
    const unknown = await app.inject({ method: 'POST', url: '/val', payload: { n: 1, extra: true } });
    expect(unknown.json().code).toBe('unknown_field');
  });

  it('the document carries doc-only bodies and headers, problems by status, and the components', async () => {
    app = await build();
    app.post(
      '/p/:id',
      {
        schema: {
          params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
          ...describe({
            summary: 'p',
            docHeaders: { type: 'object', properties: { 'idempotency-key': { type: 'string' } }, required: ['idempotency-key'] },
            docBody: { content: { 'application/x-thing': { schema: ref('Thing') } } },
            responses: { 201: json('made', ref('Thing')), ...problems('not_found', 'bad_json', 'invalid_event', 'body_too_large') },
          }),
        },
      },
      async () => ({ a: 'x' }),
    );
    await app.ready();
    const d = (await app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    expect(d.openapi).toBe('3.1.0');
    const op = d.paths['/p/{id}'].post;
    expect(op.requestBody.content['application/x-thing'].schema).toEqual({ $ref: '#/components/schemas/Thing' });
    expect(op.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`).sort()).toEqual([
      'header:idempotency-key',
      'path:id',
    ]);
    expect(Object.keys(op.responses).sort()).toEqual(['201', '400', '404', '413']);
    expect(op.responses['400'].description).toBe('problem+json: bad_json, invalid_event');
    expect(op.responses['404'].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
    expect(Object.keys(d.components.schemas).sort()).toEqual(['Problem', 'Thing']);
    expect(JSON.stringify(d)).not.toContain('x-doc-');
  });
});

group('componentsFromDefinitions', () => {
  it('rewrites draft-07 definition refs and keeps every other member, __proto__ included', () => {
    const defs = JSON.parse(
      '{"A":{"type":"object","properties":{"b":{"$ref":"#/definitions/B"},"__proto__":{"type":"string"}}},"B":{"type":"string"}}',
    ) as Record<string, unknown>;
    const c = componentsFromDefinitions(defs);
    expect(JSON.stringify(c)).toBe(
      '{"A":{"type":"object","properties":{"b":{"$ref":"#/components/schemas/B"},"__proto__":{"type":"string"}}},"B":{"type":"string"}}',
    );
  });
});
