// sequencer/ingest-raw.ts over real HTTP on 127.0.0.1, against the fastify route it stands in
// front of: two real sequencers, one answering the plain ingest posts on the raw route (as
// production does) and one sending everything through fastify (rawIngest: false), get the same
// requests in the same order; every answer must be the same (status, content type, body with the
// entry hashes, which depend on each log's own descriptor, set aside), and so must the rejection
// counts on /metrics. The raw answers carry Cache-Control: no-store, which fastify's do not: that
// tells which path answered, so the test also proves the hot cases took the raw route and the
// others (binary mode, plain JSON, an unknown log, a chunked or oversized body, an origin that is
// not valid percent-encoding) were left to fastify.

import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream, makeEvent, signed } from '../testkit/events.ts';
import { logPath, startSequencer, TEST_LOG, type TestSequencer } from '../testkit/sequencer.ts';

interface Sent {
  name: string;
  path?: string;
  headers: Record<string, string>;
  body: string;
  chunked?: boolean;
  /** The raw route takes it (else fastify answers it on both sequencers). */
  raw: boolean;
}

interface Got {
  status: number;
  type: string;
  body: unknown;
  viaRaw: boolean;
}

function send(base: string, s: Sent): Promise<Got> {
  return new Promise((resolve, reject) => {
    const u = new URL(s.path ?? logPath(TEST_LOG, '/events'), base);
    const headers = s.chunked ? s.headers : { ...s.headers, 'content-length': String(Buffer.byteLength(s.body)) };
    const req = request(
      { host: u.hostname, port: u.port, method: 'POST', path: s.path ?? logPath(TEST_LOG, '/events'), headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type']),
            body: text.length > 0 ? JSON.parse(text) : text,
            viaRaw: res.headers['cache-control'] === 'no-store',
          }),
        );
      },
    );
    req.on('error', reject);
    if (s.chunked) {
      // Two writes with no Content-Length: node sends Transfer-Encoding: chunked.
      req.write(s.body.slice(0, 10));
      req.end(s.body.slice(10));
    } else req.end(s.body);
  });
}

/** Entry hashes differ between two logs (each chains from its own descriptor); everything else must not. */
function withoutEntryHashes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEntryHashes);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'hash' ? typeof x : withoutEntryHashes(x)]));
}

const rejected = (metrics: string) =>
  metrics
    .split('\n')
    .filter((l) => l.startsWith('cookwala_events_rejected_total{'))
    .sort();

describe('the raw ingest route answers as the fastify route does', () => {
  const device = deviceKey(41);
  const stranger = deviceKey(42); // never registered
  const small = 4096;
  let withRaw: TestSequencer;
  let fastifyOnly: TestSequencer;
  beforeAll(async () => {
    const config = { bodyLimitBytes: small };
    withRaw = await startSequencer({ listen: true, devices: [device], config });
    fastifyOnly = await startSequencer({ listen: true, devices: [device], config, deps: { rawIngest: false } });
  });
  afterAll(async () => {
    await withRaw?.close();
    await fastifyOnly?.close();
  });

  it('every case: the same answer on both, and the raw route took exactly the plain posts', async () => {
    const s = eventStream(device);
    const ce = 'application/cloudevents+json';
    const batch = 'application/cloudevents-batch+json';
    const one = JSON.stringify(s.next('exec-1'));
    const tampered = { ...s.next('exec-1'), data: { step: 99 } };
    const unknownKey = signed(makeEvent({ source: stranger.owner, subject: 'exec-9', cookwalaseq: 1 }), stranger);
    const k = (name: string) => ({ 'content-type': ce, 'idempotency-key': name });
    const cases: Sent[] = [
      { name: 'appended', headers: k('a'), body: one, raw: true },
      { name: 'replayed (same key, same body)', headers: k('a'), body: one, raw: true },
      { name: 'a duplicate under a new key', headers: k('b'), body: one, raw: true },
      { name: 'a key reused with another body', headers: k('a'), body: JSON.stringify(s.next('exec-2')), raw: true },
      { name: 'no Idempotency-Key', headers: { 'content-type': ce }, body: one, raw: true },
      { name: 'an Idempotency-Key too long', headers: k('x'.repeat(256)), body: one, raw: true },
      { name: 'not JSON', headers: k('c'), body: '{"specversion":', raw: true },
      { name: 'a member twice', headers: k('d'), body: '{"id":"1","id":"2"}', raw: true },
      { name: 'not a CloudEvent', headers: k('e'), body: '{"hello":"world"}', raw: true },
      { name: 'a signature over other data', headers: k('f'), body: JSON.stringify(tampered), raw: true },
      { name: 'an unregistered key', headers: k('g'), body: JSON.stringify(unknownKey), raw: true },
      { name: 'out of order', headers: k('h'), body: JSON.stringify(s.next('exec-1', { cookwalaseq: 9 })), raw: true },
      {
        name: 'a batch, every event appended',
        headers: { 'content-type': batch, 'idempotency-key': 'i' },
        body: JSON.stringify([s.next('exec-3'), s.next('exec-3')]),
        raw: true,
      },
      {
        name: 'a batch with one refused',
        headers: { 'content-type': batch, 'idempotency-key': 'j' },
        body: JSON.stringify([s.next('exec-4'), tampered]),
        raw: true,
      },
      { name: 'a batch that is not an array', headers: { 'content-type': batch, 'idempotency-key': 'k' }, body: '{}', raw: true },
      // Left to fastify:
      {
        name: 'plain application/json',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'l' },
        body: JSON.stringify(s.next('exec-5')),
        raw: false,
      },
      {
        name: 'a media type parameter',
        headers: { 'content-type': `${ce}; charset=utf-8`, 'idempotency-key': 'm' },
        body: JSON.stringify(s.next('exec-6')),
        raw: false,
      },
      {
        name: 'binary mode',
        headers: {
          'content-type': 'text/plain',
          'idempotency-key': 'n',
          'ce-specversion': '1.0',
          'ce-id': 'x',
          'ce-source': device.owner,
          'ce-type': 't',
        },
        body: 'hi',
        raw: false,
      },
      { name: 'a log this sequencer does not host', path: logPath('other.example/log', '/events'), headers: k('o'), body: one, raw: false },
      { name: 'an origin that is not percent-encoding', path: '/v1/logs/%E0%A4%A/events', headers: k('p'), body: one, raw: false },
      { name: 'a chunked body', headers: k('q'), body: JSON.stringify(s.next('exec-7')), chunked: true, raw: false },
      {
        name: 'a body over the limit',
        headers: k('r'),
        body: JSON.stringify(s.next('exec-8', { data: { pad: 'x'.repeat(small) } })),
        raw: false,
      },
      {
        name: 'a query string is ignored, as fastify ignores it',
        path: `${logPath(TEST_LOG, '/events')}?x=1`,
        headers: k('s'),
        body: JSON.stringify(s.next('exec-10')),
        raw: true,
      },
    ];
    const statuses = new Set<number>();
    for (const c of cases) {
      const a = await send(withRaw.url!, c);
      statuses.add(a.status);
      const b = await send(fastifyOnly.url!, c);
      expect({ case: c.name, viaRaw: a.viaRaw }).toEqual({ case: c.name, viaRaw: c.raw });
      expect(b.viaRaw).toBe(false);
      expect({ case: c.name, status: a.status, type: a.type, body: withoutEntryHashes(a.body) }).toEqual({
        case: c.name,
        status: b.status,
        type: b.type,
        body: withoutEntryHashes(b.body),
      });
    }
    // The cases reach every kind of answer: appended, duplicate, refused, unknown, too large, invalid.
    expect([...statuses].sort()).toEqual([200, 201, 400, 403, 404, 409, 413, 422]);
    expect(withRaw.headSeq()).toBe(fastifyOnly.headSeq());
    const metrics = async (t: TestSequencer) => (await t.get('/metrics')).body;
    const counted = rejected(await metrics(withRaw));
    expect(counted.length).toBeGreaterThan(0);
    expect(counted).toEqual(rejected(await metrics(fastifyOnly)));
  });
});
