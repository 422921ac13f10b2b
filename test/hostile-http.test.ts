// Hostile HTTP at the sequencer: a binary-mode event with Content-Type
// application/json and an empty body is an event without data (201 when signed, its hash the
// structured form's), not bad_json; and the errors Node's HTTP parser and fastify produce before
// any route runs (a path segment over fastify's maxParamLength, Content-Length with chunked
// encoding, a Content-Length longer or shorter than the body, headers over the limit) leave as
// problem+json with a code from verifier/errors.ts, and append nothing; a client that half-closes
// after a complete request still gets its answer. Real sequencer on a loopback port, raw sockets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { once } from 'node:events';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey } from '../testkit/keys.ts';
import { makeEvent, signed } from '../testkit/events.ts';
import { eventHash, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { REASONS } from '../verifier/errors.ts';

const dev = deviceKey(61);
let t: TestSequencer;
let port: number;
beforeAll(async () => {
  t = await startSequencer({ devices: [dev], listen: true });
  port = Number(new URL(t.url!).port);
});
afterAll(async () => {
  await t.close();
});

/** Sends raw bytes on a fresh connection (then half-closes it when `end`); resolves with everything the server wrote before it closed. */
async function raw(bytes: string | Buffer, end = false): Promise<{ status: number; headers: string; body: string }> {
  const s = connect(port, '127.0.0.1');
  await once(s, 'connect');
  s.write(bytes);
  if (end) s.end();
  const chunks: Buffer[] = [];
  s.on('data', (d: Buffer) => chunks.push(d));
  await once(s, 'close');
  const text = Buffer.concat(chunks).toString('latin1');
  if (process.env.H14_DEBUG) console.log(JSON.stringify(text.slice(0, 600)));
  const [head, ...rest] = text.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  let body = rest.join('\r\n\r\n');
  if (/transfer-encoding: chunked/i.test(head)) body = body.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '');
  return { status, headers: head, body };
}

function expectProblem(r: { status: number; headers: string; body: string }, status: number, code?: string): void {
  expect(r.status, r.headers + r.body).toBe(status);
  expect(r.headers.toLowerCase()).toContain('content-type: application/problem+json');
  const p = JSON.parse(r.body);
  expect(Object.keys(REASONS)).toContain(p.code);
  expect(p.status).toBe(status);
  if (code) expect(p.code).toBe(code);
}

function binaryHeaders(ce: CloudEvent): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(ce)) if (k !== 'data' && k !== 'data_base64' && k !== 'datacontenttype') h[`ce-${k}`] = String(v);
  return h;
}

describe('binary mode, empty body (#6)', () => {
  it('Content-Type application/json with no data: 201, the eventHash of the event without data', async () => {
    const ce = signed(
      { ...makeEvent({ source: dev.owner, type: 'cookwala.execution.stopped' }), datacontenttype: 'application/json' },
      dev,
    );
    const r = await t.seq.app.inject({
      method: 'POST',
      url: logPath(t.log, '/events'),
      headers: { ...binaryHeaders(ce), 'content-type': 'application/json', 'idempotency-key': 'empty-1' },
      payload: '',
    });
    expect(r.statusCode, r.body).toBe(201);
    const h = eventHash(ce);
    expect(h.ok && r.json().eventHash).toBe(h.ok && h.value);
    // and over a socket, with Content-Length: 0
    const ce2 = signed(
      { ...makeEvent({ source: dev.owner, type: 'cookwala.execution.stopped' }), datacontenttype: 'application/json' },
      dev,
    );
    const hdrs = Object.entries({
      ...binaryHeaders(ce2),
      'content-type': 'application/json',
      'idempotency-key': 'empty-2',
      'content-length': '0',
    })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const s = await raw(`POST ${logPath(t.log, '/events')} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${hdrs}\r\n`);
    expect(s.status, s.body).toBe(201);
  });
  it('a structured application/json request with an empty body is still bad_json', async () => {
    const r = await t.seq.app.inject({
      method: 'POST',
      url: '/v1/logs',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
      payload: '',
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().code).toBe('bad_json');
  });
});

describe('transport errors as problem+json (#7)', () => {
  it('a path segment over the parameter length limit: 414 with a code of ours', async () => {
    const r = await raw(`GET /v1/logs/${'a'.repeat(5000)}/checkpoint HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectProblem(r, 414, 'uri_too_long');
  });
  it('Content-Length with chunked encoding: 400 problem+json', async () => {
    const r = await raw(
      `POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    );
    expectProblem(r, 400, 'bad_request');
  });
  it('Content-Length with chunked encoding on the events route, a signed event inside: 400, nothing appended', async () => {
    const before = t.headSeq();
    const body = JSON.stringify(signed(makeEvent({ source: dev.owner, type: 'cookwala.execution.stopped' }), dev));
    const chunk = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const r = await raw(
      `POST ${logPath(t.log, '/events')} HTTP/1.1\r\nHost: x\r\nContent-Type: application/cloudevents+json\r\nIdempotency-Key: smuggle-1\r\nContent-Length: ${Buffer.byteLength(body)}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}`,
    );
    expectProblem(r, 400, 'bad_request');
    expect(t.headSeq()).toBe(before);
  });
  it('a complete request, then the client half-closes (nc -N): the answer still arrives, and the event is appended once', async () => {
    const before = t.headSeq();
    const body = JSON.stringify(signed(makeEvent({ source: dev.owner, type: 'cookwala.execution.stopped' }), dev));
    const r = await raw(
      `POST ${logPath(t.log, '/events')} HTTP/1.1\r\nHost: x\r\nContent-Type: application/cloudevents+json\r\nIdempotency-Key: half-1\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      true,
    );
    expect(r.status, r.headers + r.body).toBe(201);
    expect(JSON.parse(r.body).seq).toBe(before + 1);
    expect(t.headSeq()).toBe(before + 1);
    // and a read, half-closed the same way
    const g = await raw(`GET ${logPath(t.log)} HTTP/1.1\r\nHost: x\r\n\r\n`, true);
    expect(g.status, g.headers).toBe(200);
  });
  it('a Content-Length longer than the body sent (then the client stops): 400 problem+json', async () => {
    const r = await raw(
      `POST ${logPath(t.log, '/events')} HTTP/1.1\r\nHost: x\r\nContent-Type: application/cloudevents+json\r\nIdempotency-Key: cut-1\r\nContent-Length: 50\r\nConnection: close\r\n\r\n{"a":1}`,
      true,
    );
    expectProblem(r, 400, 'bad_request');
  });
  it('a Content-Length shorter than the body: the rest is a second request, refused as problem+json', async () => {
    const r = await raw(
      `POST /v1/logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}GARBAGE /x HTTP/1.1\r\n\r\n`,
      true,
    );
    expect(r.headers + r.body).toContain('application/problem+json');
    for (const m of (r.headers + '\r\n\r\n' + r.body).matchAll(/HTTP\/1\.1 (\d{3})/g)) expect(Number(m[1])).toBeGreaterThanOrEqual(400);
  });
  it('headers over the limit: 431 with a problem+json body', async () => {
    const r = await raw(`GET /v1/logs HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\nConnection: close\r\n\r\n`);
    expectProblem(r, 431, 'headers_too_large');
  });
  it('a request line that is not HTTP: 400 problem+json', async () => {
    const r = await raw(`NOT HTTP AT ALL\r\n\r\n`);
    expectProblem(r, 400, 'bad_request');
  });
});
