// Ingest over the real app on a real LevelDB in a temp dir: structured, binary and batch modes,
// deduplication, per-subject order, heartbeats, Idempotency-Key, and every refusal of this part
// with its reason code, each leaving the log unchanged (same head seq).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { startSequencer, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream, makeEvent, signed, FIXTURE_SIGNED_AT } from '../testkit/events.ts';
import { eventHash, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { toBase64 } from '../verifier/cloudevent/format.ts';
import { toBase64url } from '../verifier/encoding/wire.ts';

const dev1 = deviceKey(1);
const dev2 = deviceKey(2);
const devP = deviceKey(3, { alg: 'ES256' });
const revoked = deviceKey(4, { revokedAt: '2026-06-01T00:00:00.000Z' });
const future = deviceKey(5, { validFrom: new Date(Date.now() + 365 * 86_400_000).toISOString() });
const unregistered = deviceKey(9);

let t: TestSequencer;
beforeAll(async () => {
  t = await startSequencer({ devices: [dev1, dev2, devP, revoked, future], config: { bodyLimitBytes: 64 * 1024 } });
});
afterAll(async () => {
  await t.close();
  await rm(t.dir, { recursive: true, force: true });
});

const hashOf = (ce: CloudEvent) => {
  const h = eventHash(ce);
  if (!h.ok) throw new Error(h.detail);
  return h.value;
};

/** Post, expect a problem with `code` and `status`, and the log not to move. */
async function refused(
  body: Parameters<TestSequencer['post']>[0],
  code: string,
  status: number,
  opts?: Parameters<TestSequencer['post']>[1],
) {
  const before = t.headSeq();
  const r = await t.post(body, opts);
  expect(r.statusCode, r.body).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/problem\+json/);
  const p = r.json();
  expect(p).toMatchObject({ code, status, type: `urn:cookwala:reason:${code}` });
  expect(typeof p.title).toBe('string');
  expect(t.headSeq()).toBe(before);
  return p;
}

describe('structured mode', () => {
  it('appends a signed event: 201 {seq, hash, eventHash} after which the entry is in the store', async () => {
    const s = eventStream(dev1);
    const ce = s.next('exec-a');
    const before = t.headSeq();
    const r = await t.post(ce);
    expect(r.statusCode).toBe(201);
    const body = r.json();
    expect(body).toEqual({ seq: before + 1, hash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), eventHash: hashOf(ce) });
    const e = await t.seq.logs.get(t.log)!.store.getEntry(body.seq);
    expect(e).toMatchObject({
      seq: body.seq,
      hash: body.hash,
      eventHash: body.eventHash,
      ce: { source: dev1.owner, id: ce.id, subject: 'exec-a', cookwalaseq: 1 },
    });
    const p = await t.get(`/v1/logs/${encodeURIComponent(t.log)}/events/${body.seq}`);
    expect(p.json()).toEqual(ce);
  });

  it('accepts ES256 device keys', async () => {
    const r = await t.post(eventStream(devP).next('exec-p'));
    expect(r.statusCode, r.body).toBe(201);
  });

  it('a duplicate (source, id) with the same content answers 200 with the original seq; other content is duplicate_id_conflict', async () => {
    const ce = signed(makeEvent({ source: dev1.owner, id: 'dup-1', data: { n: 1 } }), dev1);
    const first = await t.post(ce);
    expect(first.statusCode).toBe(201);
    const before = t.headSeq();
    const again = await t.post(ce);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(t.headSeq()).toBe(before);
    const other = signed(makeEvent({ source: dev1.owner, id: 'dup-1', data: { n: 2 } }), dev1);
    const p = await refused(other, 'duplicate_id_conflict', 409);
    expect(p.seq).toBe(first.json().seq);
  });

  it('per-subject order: a gap and a regression are out_of_order with expected; then the right one goes in', async () => {
    const mk = (n: number) => signed(makeEvent({ source: dev2.owner, subject: 'exec-o', cookwalaseq: n }), dev2);
    expect((await t.post(mk(5))).statusCode).toBe(201); // first seen: any
    expect((await refused(mk(7), 'out_of_order', 409)).expected).toBe(6);
    expect((await refused(mk(4), 'out_of_order', 409)).expected).toBe(6);
    expect((await refused(mk(5), 'out_of_order', 409)).expected).toBe(6); // same seq, new id: a regression
    expect((await t.post(mk(6))).statusCode).toBe(201);
    // events without cookwalaseq (or without subject) skip the check
    expect((await t.post(signed(makeEvent({ source: dev2.owner, subject: 'exec-o' }), dev2))).statusCode).toBe(201);
  });

  it('heartbeats are verified, update liveness and are not appended', async () => {
    const before = t.headSeq();
    const r = await t.post(eventStream(dev2).heartbeat());
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ heartbeat: true });
    expect(t.headSeq()).toBe(before);
    const devices = (await t.get('/v1/devices')).json().devices;
    expect(devices).toContainEqual(expect.objectContaining({ source: dev2.owner, log: t.log, state: 'alive' }));
    // a heartbeat with a bad signature is refused like any event
    const hb = eventStream(dev2).heartbeat();
    await refused({ ...hb, id: 'changed' }, 'bad_signature', 403);
  });
});

describe('refusals (every code, log unchanged)', () => {
  it('bad JSON', async () => {
    await refused('{"specversion":"1.0",', 'bad_json', 400);
    await refused('', 'bad_json', 400);
    await refused('{"a":1', 'bad_json', 400, { contentType: 'application/json' });
  });

  it('wrong specversion, missing attributes, bad attribute names or types: invalid_event', async () => {
    const ce = eventStream(dev1).next('exec-x');
    await refused({ ...ce, specversion: '0.3' } as unknown as CloudEvent, 'invalid_event', 400);
    const { id: _id, ...noId } = ce;
    await refused(noId as CloudEvent, 'invalid_event', 400);
    await refused({ ...ce, Bad_Name: 'x' } as CloudEvent, 'invalid_event', 400);
    await refused({ ...ce, cookwalaseq: -1 } as CloudEvent, 'invalid_event', 400);
    await refused('[1,2]', 'invalid_event', 400); // a batch is not a structured event
    await refused('{"not":"a batch"}', 'invalid_event', 400, { contentType: 'application/cloudevents-batch+json' });
  });

  it('oversized body: body_too_large', async () => {
    const big = signed(makeEvent({ source: dev1.owner, data: { blob: 'x'.repeat(70 * 1024) } }), dev1);
    await refused(big, 'body_too_large', 413);
  });

  it('missing Idempotency-Key; a key reused with another body is idempotency_conflict; same body replays', async () => {
    const s = eventStream(dev1);
    await refused(s.next('exec-i'), 'missing_idempotency_key', 400, { key: null });
    const ce = s.next('exec-i2');
    const first = await t.post(ce, { key: 'idem-1' });
    expect(first.statusCode).toBe(201);
    const before = t.headSeq();
    const replay = await t.post(ce, { key: 'idem-1' });
    expect(replay.statusCode).toBe(201);
    // the bytes first sent, kept as they were (sequencer/idempotency.ts)
    expect(replay.body).toBe(first.body);
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(replay.json()).toMatchObject({ seq: before, eventHash: hashOf(ce) });
    expect(t.headSeq()).toBe(before);
    await refused(s.next('exec-i2'), 'idempotency_conflict', 422, { key: 'idem-1' });
    // a batch replays its whole answer, byte for byte, and appends nothing
    const batch = [s.next('exec-i3'), s.next('exec-i3')];
    const firstBatch = await t.post(batch, { key: 'idem-batch' });
    expect(firstBatch.statusCode).toBe(200);
    expect(firstBatch.json().results.map((x: { status: number }) => x.status)).toEqual([201, 201]);
    const afterBatch = t.headSeq();
    const replayBatch = await t.post(batch, { key: 'idem-batch' });
    expect(replayBatch.statusCode).toBe(200);
    expect(replayBatch.body).toBe(firstBatch.body);
    expect(t.headSeq()).toBe(afterBatch);
  });

  it('unknown key, revoked key, key not yet valid', async () => {
    await refused(eventStream(unregistered).next('e'), 'unknown_key', 403);
    // signed after revokedAt (FIXTURE_SIGNED_AT is a minute before this file loaded, revoked 2026-06-01)
    expect(FIXTURE_SIGNED_AT > revoked.record.revokedAt!).toBe(true);
    await refused(eventStream(revoked).next('e'), 'key_revoked', 403);
    await refused(eventStream(future).next('e'), 'key_not_valid_at', 403);
  });

  it('a key revoked months ago cannot append by backdating signedAt before revokedAt (the window: test/sequencer-time.test.ts)', async () => {
    const backdated = signed(makeEvent({ source: revoked.owner }), revoked, '2026-05-31T23:59:59.999Z');
    const p = await refused(backdated, 'key_revoked', 403);
    expect(p.detail).toMatch(/accepted only until maxDeliveryDelay/);
  });

  it('bad signature, moved signature, malformed signature, no signature', async () => {
    const ce = eventStream(dev1).next('exec-s');
    await refused({ ...ce, data: { step: 999 } }, 'bad_signature', 403);
    const other = eventStream(dev1).next('exec-s2');
    await refused({ ...ce, cookwalasig: other.cookwalasig }, 'bad_signature', 403);
    await refused({ ...ce, cookwalasig: toBase64url(new TextEncoder().encode('not json')) }, 'malformed_signature', 400);
    const { cookwalasig: _s, ...unsigned } = ce;
    await refused(unsigned as CloudEvent, 'bad_signature', 403);
  });

  it('source mismatch: a registered key signing for another source', async () => {
    const ce = signed(makeEvent({ source: dev2.owner }), dev1);
    await refused(ce, 'source_mismatch', 403);
  });

  it('types only the sequencer appends are refused from devices', async () => {
    for (const type of ['cookwala.log.erased', 'cookwala.hub.device_lost']) {
      await refused(signed(makeEvent({ source: dev1.owner, type, data: { seq: 1 } }), dev1), 'invalid_event', 400);
    }
  });

  it('unsupported media type without ce-* headers', async () => {
    await refused('hello', 'unsupported_media_type', 415, { contentType: 'text/plain' });
  });

  it('an unknown log is not_found', async () => {
    await refused(eventStream(dev1).next('e'), 'not_found', 404, { log: 'nowhere.example/l' });
  });
});

describe('binary mode', () => {
  function binaryHeaders(ce: CloudEvent): Record<string, string> {
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(ce)) {
      if (k === 'data' || k === 'data_base64' || k === 'datacontenttype') continue;
      h[`ce-${k}`] = String(v);
    }
    if (ce.datacontenttype) h['content-type'] = ce.datacontenttype;
    return h;
  }

  it('gives the same eventHash as structured mode (cookwalaseq as a header string, time verbatim)', async () => {
    const ce = signed(
      makeEvent({ source: dev1.owner, subject: 'exec-b', cookwalaseq: 1, time: '2026-11-30T10:00:00Z', data: { temp: 91.5, ok: true } }),
      dev1,
    );
    const headers = binaryHeaders(ce);
    expect(headers['ce-cookwalaseq']).toBe('1');
    const r = await t.seq.app.inject({
      method: 'POST',
      url: `/v1/logs/${encodeURIComponent(t.log)}/events`,
      headers: { ...headers, 'idempotency-key': 'bin-1' },
      payload: JSON.stringify(ce.data),
    });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().eventHash).toBe(hashOf(ce));
    const e = await t.seq.logs.get(t.log)!.store.getEntry(r.json().seq);
    expect(e?.ce.cookwalaseq).toBe(1);
    // the same event again in structured mode is the same (source, id) with the same hash
    const s = await t.post(ce);
    expect(s.statusCode).toBe(200);
    expect(s.json().seq).toBe(r.json().seq);
  });

  it('a JSON number body stays a number and non-JSON bodies are data_base64', async () => {
    const num = signed(makeEvent({ source: dev1.owner, data: 42 }), dev1);
    const r1 = await t.seq.app.inject({
      method: 'POST',
      url: `/v1/logs/${encodeURIComponent(t.log)}/events`,
      headers: { ...binaryHeaders(num), 'idempotency-key': 'bin-2' },
      payload: '42',
    });
    expect(r1.statusCode, r1.body).toBe(201);
    expect(r1.json().eventHash).toBe(hashOf(num));
    const bytes = Uint8Array.from([0, 1, 2, 250, 255]);
    const bin = signed(
      { ...makeEvent({ source: dev1.owner }), datacontenttype: 'application/octet-stream', data_base64: toBase64(bytes) },
      dev1,
    );
    const r2 = await t.seq.app.inject({
      method: 'POST',
      url: `/v1/logs/${encodeURIComponent(t.log)}/events`,
      headers: { ...binaryHeaders(bin), 'idempotency-key': 'bin-3' },
      payload: Buffer.from(bytes),
    });
    expect(r2.statusCode, r2.body).toBe(201);
    expect(r2.json().eventHash).toBe(hashOf(bin));
  });

  it('takes a binary event with no body and no content type (no data)', async () => {
    const ce = signed(makeEvent({ source: dev1.owner, type: 'cookwala.execution.stopped' }), dev1);
    const r = await t.seq.app.inject({
      method: 'POST',
      url: `/v1/logs/${encodeURIComponent(t.log)}/events`,
      headers: { ...binaryHeaders(ce), 'idempotency-key': 'bin-0' },
    });
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json().eventHash).toBe(hashOf(ce));
  });

  it('refuses a binary event without ce-specversion or with a bad signature', async () => {
    const ce = signed(makeEvent({ source: dev1.owner, data: { a: 1 } }), dev1);
    const { 'ce-specversion': _v, ...noVersion } = binaryHeaders(ce);
    const before = t.headSeq();
    const r = await t.seq.app.inject({
      method: 'POST',
      url: `/v1/logs/${encodeURIComponent(t.log)}/events`,
      headers: { ...noVersion, 'idempotency-key': 'bin-4' },
      payload: '{"a":1}',
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().code).toBe('invalid_event');
    const r2 = await t.seq.app.inject({
      method: 'POST',
      url: `/v1/logs/${encodeURIComponent(t.log)}/events`,
      headers: { ...binaryHeaders(ce), 'idempotency-key': 'bin-5' },
      payload: '{"a":2}',
    });
    expect(r2.json().code).toBe('bad_signature');
    expect(t.headSeq()).toBe(before);
  });
});

describe('batch mode', () => {
  it('judges each event alone, in order, and commits the good ones in one group', async () => {
    const s = eventStream(dev1);
    const good1 = s.next('exec-batch');
    const good2 = s.next('exec-batch');
    const tampered = { ...s.next('exec-batch'), data: { evil: true } };
    const gap = signed(makeEvent({ source: dev1.owner, subject: 'exec-batch', cookwalaseq: 9 }), dev1);
    const hb = s.heartbeat();
    const dupOfGood1 = good1;
    const c = t.seq.logs.get(t.log)!.committer;
    const batchesBefore = c.stats.batches;
    const before = t.headSeq();
    const r = await t.post([good1, tampered, good2, gap, hb, dupOfGood1, { nonsense: true } as unknown as CloudEvent]);
    expect(r.statusCode).toBe(200);
    const res = r.json().results;
    expect(res.map((x: { status: number }) => x.status)).toEqual([201, 403, 201, 409, 200, 200, 400]);
    expect(res[1].code).toBe('bad_signature');
    expect(res[3]).toMatchObject({ code: 'out_of_order', expected: 3 });
    expect(res[4].heartbeat).toBe(true);
    expect(res[5].seq).toBe(res[0].seq); // the in-group duplicate answers with the original
    expect(res[6].code).toBe('invalid_event');
    expect([res[0].seq, res[2].seq]).toEqual([before + 1, before + 2]);
    expect(t.headSeq()).toBe(before + 2);
    expect(c.stats.batches - batchesBefore).toBe(1);
  });

  it('an empty batch answers no results', async () => {
    const r = await t.post([]);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({ results: [] });
  });
});

describe('metrics', () => {
  it('count appended, rejected by code, and batches', async () => {
    const text = (await t.get('/metrics')).body;
    expect(text).toMatch(/cookwala_events_appended_total\{log="test\.example\/missions\/m-1"\} \d+/);
    expect(text).toMatch(/cookwala_events_rejected_total\{log="test\.example\/missions\/m-1",code="bad_signature"\} \d+/);
    expect(text).toMatch(/cookwala_events_rejected_total\{log="test\.example\/missions\/m-1",code="missing_idempotency_key"\} \d+/);
    expect(text).toContain('cookwala_fsync_seconds_bucket');
    const m = t.seq.metrics;
    expect(await m.value('cookwala_events_appended_total', { log: t.log })).toBe(t.headSeq());
  });
});
