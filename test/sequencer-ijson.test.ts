// I-JSON at ingest (docs/design.md §3) over real HTTP: a real sequencer on a temp LevelDB,
// listening on 127.0.0.1, posted to with fetch. A validly signed event sent with one member twice
// (in its data, or an attribute; with the same value, so JSON.parse's "last wins" would even keep
// the signature valid) is refused with duplicate_member in structured, batch, plain JSON and binary
// mode, and the log does not move; so is nesting past the bound (too_deep) and a ce-* header that
// names no attribute. A `__proto__` member in data is an ordinary member: accepted, stored, served
// back and hashed with it. An event exactly at the depth bound is accepted in every mode, and its
// bundle lines stay readable at the bundle reader's bound (one level more).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey } from '../testkit/keys.ts';
import { makeEvent, signed } from '../testkit/events.ts';
import { eventHash, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { MAX_JSON_DEPTH, parseJson } from '../verifier/encoding/strict-json.ts';

const dev = deviceKey(1);
let t: TestSequencer;
let n = 0;

beforeAll(async () => {
  t = await startSequencer({ devices: [dev], listen: true });
});
afterAll(async () => {
  await t?.close();
  if (t) await rm(t.dir, { recursive: true, force: true });
});

async function post(body: string | Uint8Array, headers: Record<string, string>): Promise<{ status: number; json: Record<string, any> }> {
  const res = await fetch(`${t.url}${logPath(t.log, '/events')}`, {
    method: 'POST',
    headers: { 'idempotency-key': `ij-${++n}`, ...headers },
    body,
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}
const STRUCTURED = { 'content-type': 'application/cloudevents+json' };
const BATCH = { 'content-type': 'application/cloudevents-batch+json' };
const PLAIN = { 'content-type': 'application/json' };

/** Posted, refused with `code` (a problem document, 400), and the log did not move. */
async function refused(body: string | Uint8Array, headers: Record<string, string>, code: string, path?: string) {
  const before = t.headSeq();
  const r = await post(body, headers);
  expect(r.status, JSON.stringify(r.json)).toBe(400);
  expect(r.json).toMatchObject({ code, status: 400, type: `urn:cookwala:reason:${code}` });
  if (path !== undefined) expect(r.json.path, JSON.stringify(r.json)).toBe(path);
  expect(t.headSeq()).toBe(before);
}

const event = (data: unknown, subject = 'exec-ij') => signed(makeEvent({ source: dev.owner, subject, data }), dev);
/** The JSON text of `ce` with `insert` written right after the first `at`. */
function inject(ce: CloudEvent, at: string, insert: string): string {
  const text = JSON.stringify(ce);
  expect(text.includes(at), at).toBe(true);
  return text.replace(at, at + insert);
}
const nested = (depth: number): unknown => (depth === 0 ? 1 : { d: nested(depth - 1) });

function binaryHeaders(ce: CloudEvent): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(ce)) if (k !== 'data' && k !== 'datacontenttype') h[`ce-${k}`] = String(v);
  h['content-type'] = 'application/json';
  return h;
}

describe('ingest refuses a member twice (duplicate_member), in every mode', () => {
  it('structured: in data (same value), an attribute (same value), and nested, \\u-escaped', async () => {
    const ce = event({ t: 1, inner: { a: [1, { b: 2 }] } });
    await refused(inject(ce, '"data":{', '"t":1,'), STRUCTURED, 'duplicate_member', '/data/t');
    await refused(inject(ce, '{', `"id":${JSON.stringify(ce.id)},`), STRUCTURED, 'duplicate_member', '/id');
    await refused(inject(ce, '{"b":', '2,"\\u0062":'), STRUCTURED, 'duplicate_member', '/data/inner/a/1/b');
    // The same event without the duplicate is fine: only the repetition was refused.
    expect((await post(JSON.stringify(ce), STRUCTURED)).status).toBe(201);
  });

  it('batch (cloudevents-batch+json and a plain JSON array): the whole request is refused', async () => {
    const good = event({ t: 1 }, 'exec-ij-batch');
    const dup = event({ t: 2 }, 'exec-ij-batch-2');
    const text = `[${JSON.stringify(good)},${inject(dup, '"data":{', '"t":2,')}]`;
    await refused(text, BATCH, 'duplicate_member', '/1/data/t');
    await refused(text, PLAIN, 'duplicate_member', '/1/data/t');
  });

  it('binary mode: in the JSON body, and a ce-__proto__ header that the SDK would have dropped', async () => {
    const ce = event({ t: 1 }, 'exec-ij-bin');
    await refused('{"t":1,"t":1}', binaryHeaders(ce), 'duplicate_member', '/t');
    await refused('{"t":1}', { ...binaryHeaders(ce), 'ce-__proto__': 'x' }, 'invalid_event');
    expect((await post('{"t":1}', binaryHeaders(ce))).status).toBe(201);
  });
});

describe('ingest bounds nesting (too_deep) and keeps __proto__ as a member', () => {
  it('an event is at most 64 levels deep in every mode; 65 is too_deep', async () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    const atBound = event(nested(MAX_JSON_DEPTH - 1), 'exec-deep-1'); // the event object is one level
    const over = event(nested(MAX_JSON_DEPTH), 'exec-deep-2');
    await refused(JSON.stringify(over), STRUCTURED, 'too_deep');
    await refused(JSON.stringify([over]), BATCH, 'too_deep');
    await refused(JSON.stringify(nested(MAX_JSON_DEPTH)), binaryHeaders(event(undefined, 'exec-deep-3')), 'too_deep');
    const r = await post(JSON.stringify(atBound), STRUCTURED);
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    const b = await post(JSON.stringify([event(nested(MAX_JSON_DEPTH - 1), 'exec-deep-4')]), BATCH);
    expect(b.status).toBe(200);
    expect(b.json.results[0].status, JSON.stringify(b.json)).toBe(201);
    const deepest = event(nested(MAX_JSON_DEPTH - 2), 'exec-deep-5'); // data one level inside the event
    const bin = await post(JSON.stringify(deepest.data), binaryHeaders(deepest));
    expect(bin.status, JSON.stringify(bin.json)).toBe(201);
    // What the sequencer accepted, its bundle reader reads: every exported line within its bound.
    const bundle = await fetch(`${t.url}${logPath(t.log, '/bundle')}`);
    expect(bundle.status).toBe(200);
    const lines = (await bundle.text()).split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) expect(parseJson(l, { maxDepth: MAX_JSON_DEPTH + 1 }).ok, l.slice(0, 80)).toBe(true);
  });

  it('a __proto__ member in data is accepted, stored, served back and hashed as a member', async () => {
    const data = JSON.parse('{"__proto__":{"x":1},"constructor":2,"toString":3,"1":4}');
    const ce = event(data, 'exec-proto');
    const h = eventHash(ce);
    if (!h.ok) throw new Error(h.detail);
    const stripped = eventHash({ ...ce, data: { constructor: 2, toString: 3, 1: 4 } });
    expect(stripped.ok && stripped.value).not.toBe(h.value); // the member counts in the hash
    const r = await post(JSON.stringify(ce), STRUCTURED);
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.eventHash).toBe(h.value);
    const back = await fetch(`${t.url}${logPath(t.log, `/events/${r.json.seq}`)}`);
    const text = await back.text();
    expect(text).toContain('"__proto__":{"x":1}');
    const got = parseJson(text);
    expect(got.ok && Object.keys((got.value as { data: object }).data)).toEqual(['1', '__proto__', 'constructor', 'toString']);
  });
});
