// The executor's API as a contract: a client written only from GET /openapi.json drives a
// real executor process (node bin/cookwala.js executor, 127.0.0.1, its own data dir). The client
// finds each operation by operationId in the document, fills the path from its template, supplies
// every header parameter the document marks required (Idempotency-Key, If-Match), sends the
// bearer token the operation's security names, checks its request body against the document's
// requestBody schema, and checks every answer against the document's response schema for that
// status and content type. It runs a mission, pauses it (owner), resumes it with If-Match (a stale
// one gets 412), stops it, and reads its log: the signed events, in status order, verifying with
// the key from capabilities. Response schemas are strict (additionalProperties: false), so a
// member we send and do not document fails here; and the document keeps our "no other members"
// rule for request bodies (patternProperties for x- members is not turned into "anything goes").
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { verifyEventSignature, type CloudEvent } from '../verifier/cloudevent/read.ts';
import type { KeyRecord } from '../verifier/signing/keys.ts';
import { spawnExecutor, statusLine, type ExecutorProcess } from '../testkit/executor.ts';
import { tempDirs } from '../testkit/tmp.ts';

const dirs = tempDirs('cookwala-exec-openapi-');
let child: ExecutorProcess | undefined;
afterAll(async () => {
  await child?.close();
  await dirs.cleanup();
});

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  security?: Array<Record<string, string[]>>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Doc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
}

/** A generic OpenAPI client: nothing about the executor except what the document says. */
function client(doc: Doc, base: string, tokens: Record<string, string>) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const compiled = new Map<Schema, ReturnType<Ajv['compile']>>();
  const validate = (schema: Schema, value: unknown, what: string) => {
    let v = compiled.get(schema);
    if (!v) compiled.set(schema, (v = ajv.compile(schema)));
    if (!v(value))
      throw new Error(`${what} does not match the document: ${ajv.errorsText(v.errors)}\n${JSON.stringify(value).slice(0, 400)}`);
  };
  function find(operationId: string): { method: string; path: string; op: Operation } {
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) if (op.operationId === operationId) return { method, path, op };
    throw new Error(`the document has no operation ${operationId}`);
  }
  return {
    find,
    exampleBody(operationId: string): unknown {
      const c = find(operationId).op.requestBody?.content['application/json'];
      return structuredClone(c?.example);
    },
    async call(operationId: string, a: { params?: Record<string, string>; body?: unknown; ifMatch?: string } = {}) {
      const { method, path, op } = find(operationId);
      const url = base + path.replace(/\{([^}]+)\}/g, (_, k: string) => encodeURIComponent(a.params?.[k] ?? ''));
      const headers: Record<string, string> = {};
      for (const p of op.parameters ?? []) {
        if (p.in !== 'header' || !p.required) continue;
        if (p.name === 'idempotency-key') headers[p.name] = randomUUID();
        else if (p.name === 'if-match') headers[p.name] = a.ifMatch ?? '';
        else throw new Error(`${operationId}: the client cannot fill the required header ${p.name}`);
      }
      for (const req of op.security ?? [])
        for (const name of Object.keys(req)) {
          const scheme = doc.components?.securitySchemes?.[name];
          if (scheme?.type === 'http' && scheme.scheme === 'bearer' && tokens[name]) headers.authorization = `Bearer ${tokens[name]}`;
        }
      let body: string | undefined;
      if (a.body !== undefined) {
        const [ct, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
        if (!ct || !media) throw new Error(`${operationId} takes no body`);
        validate(media.schema, a.body, `${operationId} request body`);
        headers['content-type'] = ct;
        body = JSON.stringify(a.body);
      }
      const res = await fetch(url, { method: method.toUpperCase(), headers, body });
      const text = await res.text();
      const json = text ? JSON.parse(text) : undefined;
      const spec = op.responses[String(res.status)];
      if (!spec) throw new Error(`${operationId} answered ${res.status}, which the document does not list: ${text.slice(0, 300)}`);
      const ct = String(res.headers.get('content-type') ?? '').split(';')[0];
      if (spec.content) {
        const media = spec.content[ct];
        if (!media)
          throw new Error(`${operationId} ${res.status} answered ${ct}; the document says ${Object.keys(spec.content).join(', ')}`);
        validate(media.schema, json, `${operationId} ${res.status} answer`);
      }
      return { status: res.status, etag: res.headers.get('etag') ?? undefined, json };
    },
  };
}

describe('a client written only from /openapi.json', () => {
  it('runs a mission, pauses, resumes with If-Match, stops, and reads the signed log', async () => {
    const data = await dirs.make();
    child = await spawnExecutor(data, ['--speed', '100']);
    const docRes = await fetch(`${child.url}/openapi.json`);
    expect(docRes.status).toBe(200);
    const doc = (await docRes.json()) as Doc;
    expect(doc.openapi).toMatch(/^3\.1\./);
    const c = client(doc, child.url, { owner: child.ownerToken });

    // The document keeps our request rules: exact members, x- extensions only.
    const reqSchema = c.find('createExecution').op.requestBody!.content['application/json'].schema;
    expect(reqSchema).toMatchObject({ additionalProperties: false, patternProperties: { '^x-': {} } });

    const caps = await c.call('getCapabilities');
    expect(caps.status).toBe(200);
    const keys = caps.json.keys as KeyRecord[];
    expect((await c.call('getSafetyLimits')).status).toBe(200);
    expect((await c.call('getAttendance')).json.available).toBe(false); // nobody declared by default

    // The body: the document's example, with a step long enough to pause in (an op capabilities lists).
    const body = c.exampleBody('createExecution') as {
      recipe: { id: string; steps: Array<{ op: string; params: { durationS: number } }> };
    };
    expect(caps.json.operations).toContain(body.recipe.steps[0].op);
    body.recipe.id = 'openapi-client';
    body.recipe.steps[0].params.durationS = 3600;
    const created = await c.call('createExecution', { body });
    expect([created.status, created.json.status, created.etag]).toEqual([201, 'accepted', '"1"']);
    const id = created.json.id as string;

    await child.until(statusLine(id, 'running'), 'running');
    const running = await c.call('getExecution', { params: { id } });
    expect([running.json.status, running.etag]).toEqual(['running', '"3"']);

    const paused = await c.call('pauseExecution', { params: { id }, ifMatch: running.etag });
    expect([paused.status, paused.json.status, paused.etag]).toEqual([200, 'paused', '"4"']);
    const stale = await c.call('resumeExecution', { params: { id }, ifMatch: running.etag });
    expect([stale.status, stale.json.code, stale.json.seq]).toEqual([412, 'precondition_failed', 4]);
    const resumed = await c.call('resumeExecution', { params: { id }, ifMatch: paused.etag });
    expect([resumed.status, resumed.json.status, resumed.etag]).toEqual([200, 'running', '"5"']);

    const stop = await c.call('stopExecution', { params: { id } });
    expect(stop.status).toBe(200);
    expect(['stopping', 'stopped']).toContain(stop.json.status);
    await child.until(statusLine(id, 'stopped'), 'stopped');
    const again = await c.call('stopExecution', { params: { id } });
    expect([again.status, again.json.status, again.json.seq]).toEqual([200, 'stopped', 7]);

    const log = await c.call('getExecutionLog', { params: { id } });
    expect(log.status).toBe(200);
    const events = log.json as CloudEvent[];
    expect(events.map((e) => [e.type.replace('cookwala.execution.', ''), e.cookwalaseq])).toEqual([
      ['accepted', 1],
      ['preparing', 2],
      ['running', 3],
      ['paused', 4],
      ['running', 5],
      ['stopping', 6],
      ['stopped', 7],
    ]);
    for (const e of events) expect(verifyEventSignature(e, (kid) => keys.find((k) => k.kid === kid)).ok).toBe(true);

    // An unknown execution is a documented 404 problem.
    expect((await c.call('getExecution', { params: { id: 'nope' } })).status).toBe(404);
  });
});
