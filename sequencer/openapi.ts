// sequencer/openapi.ts: the hand-written OpenAPI 3.1 description served at GET /openapi.json
// (DESIGN §10). It lists every route of routes.ts with its parameters, success answers and the
// problem+json error shape; openapi.test.ts checks that each registered route appears here and
// nothing more, so the document cannot drift from the app. Left out: full response schemas of
// the Core documents (they live in verifier/schemas and are referenced by name only).

const problem = { $ref: '#/components/responses/Problem' };
const logParam = { name: 'log', in: 'path', required: true, description: 'the log origin, encodeURIComponent-encoded as one path segment', schema: { type: 'string' } };
const seqParam = { name: 'seq', in: 'path', required: true, schema: { type: 'string', pattern: '^[1-9][0-9]*$' } };
const q = (name: string, required = false, description = '') => ({ name, in: 'query', required, description, schema: { type: 'string', pattern: '^[0-9]+$' } });
const json = (description: string, schema: object = { type: 'object' }) => ({ description, content: { 'application/json': { schema } } });
const operator = [{ operatorToken: [] }];

export const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'Cookwala sequencer', version: '0.2.1', description: 'Hash-chained CloudEvents log: ingest, checkpoints, proofs, erasure (Cookwala Core 0.2, DESIGN §10). Errors are RFC 9457 problem+json with a reason code.' },
  paths: {
    '/v1/logs': {
      post: { summary: 'Host a new log (operator)', security: operator, requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['log', 'mode'], properties: { log: { type: 'string' }, mode: { enum: ['full', 'hash_only'] } }, additionalProperties: false } } } }, responses: { '201': json('the log and its signed descriptor'), '401': problem, '409': problem } },
    },
    '/v1/logs/{log}': {
      get: { summary: 'The signed log descriptor', parameters: [logParam], responses: { '200': json('LogDescriptor'), '404': problem } },
    },
    '/v1/logs/{log}/events': {
      post: {
        summary: 'Ingest CloudEvents (structured, batch or binary mode)',
        parameters: [logParam, { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string', maxLength: 255 } }],
        requestBody: { required: true, content: { 'application/cloudevents+json': { schema: { type: 'object' } }, 'application/cloudevents-batch+json': { schema: { type: 'array' } }, '*/*': { description: 'binary mode: attributes in ce-* headers', schema: {} } } },
        responses: {
          '201': json('appended (after fsync)', { type: 'object', properties: { seq: { type: 'integer' }, hash: { type: 'string' }, eventHash: { type: 'string' } } }),
          '200': json('a duplicate (source, id) with the same eventHash, a heartbeat, or a batch: {results:[…]}'),
          '400': problem, '403': problem, '409': problem, '413': problem, '415': problem, '422': problem,
        },
      },
    },
    '/v1/logs/{log}/checkpoint': {
      get: { summary: 'The latest published checkpoint', parameters: [logParam], responses: { '200': json('Checkpoint'), '404': problem } },
    },
    '/v1/logs/{log}/entries': {
      get: { summary: `Entries as NDJSON, at most 10000 per call (cookwala-range, cookwala-clamped headers); with order=desc, subject, source or limit: newest first and/or filtered, at most 10000 examined (cookwala-next: where to continue)`, parameters: [logParam, q('from'), q('to'), { name: 'order', in: 'query', required: false, schema: { type: 'string', enum: ['asc', 'desc'] } }, { name: 'subject', in: 'query', required: false, description: 'exact ce.subject', schema: { type: 'string' } }, { name: 'source', in: 'query', required: false, description: 'exact ce.source', schema: { type: 'string' } }, q('limit', false, 'at most 1000 entries returned')], responses: { '200': { description: 'one Entry per line', content: { 'application/x-ndjson': { schema: { type: 'string' } } } }, '400': problem, '404': problem } },
    },
    '/v1/logs/{log}/events/{seq}': {
      get: { summary: 'The payload CloudEvent of an entry', parameters: [logParam, seqParam], responses: { '200': { description: 'the event', content: { 'application/cloudevents+json': { schema: { type: 'object' } } } }, '404': problem, '410': problem } },
    },
    '/v1/logs/{log}/events/{seq}/payload': {
      delete: { summary: 'Erase a payload (operator, hash_only logs)', security: operator, parameters: [logParam, seqParam], requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['reason'], properties: { reason: { type: 'string' } }, additionalProperties: false } } } }, responses: { '200': json('the cookwala.log.erased entry and the erasure record'), '401': problem, '404': problem, '409': problem, '410': problem } },
    },
    '/v1/logs/{log}/proof/inclusion': {
      get: { summary: 'RFC 6962 inclusion proof', parameters: [logParam, q('seq', true), q('size', false, 'default: the durable head')], responses: { '200': json('{seq, size, leafIndex, proof, root}'), '400': problem, '404': problem } },
    },
    '/v1/logs/{log}/proof/consistency': {
      get: { summary: 'RFC 6962 consistency proof', parameters: [logParam, q('from', true), q('to', false, 'default: the durable head')], responses: { '200': json('{from, to, proof, root1?, root2}'), '400': problem, '404': problem } },
    },
    '/v1/logs/{log}/bundle': {
      get: { summary: 'The audit bundle (DESIGN §8), streamed', parameters: [logParam], responses: { '200': { description: 'header line, descriptor, KeyRecords, entries, payloads, checkpoints', content: { 'application/x-ndjson': { schema: { type: 'string' } } } }, '404': problem } },
    },
    '/v1/logs/{log}/policy': {
      get: { summary: 'The witness policy in force for the log (what the explorer checks checkpoints with)', parameters: [logParam], responses: { '200': json('WitnessPolicy'), '404': problem } },
    },
    '/v1/logs/{log}/witnesses': {
      get: { summary: "The policy's witnesses, what each witness connection last answered, and the sequencer's C2SP vkey", parameters: [logParam], responses: { '200': json('{log, quorum, witnesses, publisher, vkey}'), '404': problem } },
    },
    '/': {
      get: { summary: 'The log explorer (HTML page, web/)', responses: { '200': { description: 'the page', content: { 'text/html': { schema: { type: 'string' } } } }, '503': { description: 'the pages are not built' } } },
    },
    '/verifier.html': {
      get: { summary: 'The offline verifier page (HTML, works saved to disk; no network)', responses: { '200': { description: 'the page', content: { 'text/html': { schema: { type: 'string' } } } }, '503': { description: 'the pages are not built' } } },
    },
    '/v1/logs/{log}/keys': {
      get: { summary: 'Registered device KeyRecords (signed by the sequencer) as a KeyCache', parameters: [logParam], responses: { '200': json('KeyCache'), '404': problem } },
      post: { summary: 'Register or revoke a device key (operator)', security: operator, parameters: [logParam], requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } }, responses: { '201': json('the signed KeyRecord'), '200': json('unchanged'), '400': problem, '401': problem, '409': problem } },
    },
    '/v1/devices': {
      get: { summary: 'Device liveness', responses: { '200': json('{devices:[{log, source, lastSeen, state}]}') } },
    },
    '/.well-known/cookwala.json': {
      get: { summary: 'The sequencer KeyRecord and hosted logs', responses: { '200': json('{keys, logs}') } },
    },
    '/metrics': {
      get: { summary: 'Prometheus metrics', responses: { '200': { description: 'text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } } } },
    },
    '/openapi.json': {
      get: { summary: 'This document', responses: { '200': json('OpenAPI 3.1') } },
    },
  } as Record<string, Record<string, unknown>>,
  components: {
    securitySchemes: { operatorToken: { type: 'http', scheme: 'bearer', description: 'DATA/operator.token' } },
    responses: {
      Problem: {
        description: 'RFC 9457 problem details; `code` is a reason code of verifier/errors.ts',
        content: { 'application/problem+json': { schema: { type: 'object', required: ['type', 'title', 'status', 'code'], properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' }, code: { type: 'string' }, expected: { type: 'integer' } } } } },
      },
    },
  },
};
