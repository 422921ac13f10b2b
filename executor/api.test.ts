// The Core API subset over fastify inject, on a real store: Idempotency-Key on create (replay,
// conflict, missing), strict bodies (I-JSON: duplicate_member, too_deep), refusals as 422
// problem+json carrying the refused execution (the reason table's status), ETag/If-None-Match, stop
// without authorization, If-Match, headers or a readable body (any size) and idempotent on final
// states, resume with 428/412/409, the owner's routes (pause with If-Match, attendance, consent:
// owner token and loopback only), the log's signed events, capabilities and safety limits (a
// looser pack cannot raise a limit).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { verifyEventSignature, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { FRIES_BODY, SIMPLE_BODY, testExecutor } from '../testkit/executor.ts';
import { parseIfMatch } from './api.ts';
import { DEFAULT_SAFETY_LIMITS } from './safety-limits.ts';
import type { Executor } from './executor.ts';
import type { DeviceIdentity } from './device-key.ts';

const dirs = tempDirs('cookwala-exec-api-');
const TOKEN = 'app-secret';
const OWNER = 'owner-secret';
let ex: Executor;
let device: DeviceIdentity;
let n = 0;

beforeAll(async () => {
  const t = await testExecutor(await dirs.make(), {
    apiToken: TOKEN,
    ownerToken: OWNER,
    attendance: { present: true },
    safetyLimits: { maxOilTempC: 400, maxPanSurfaceTempC: 240 },
  });
  ex = t.ex;
  device = t.device;
  await ex.start();
});
afterAll(async () => {
  await ex.close();
  await dirs.cleanup();
});

const auth = { authorization: `Bearer ${TOKEN}` };
function create(body: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return ex.app.inject({
    method: 'POST',
    url: '/v1/executions',
    headers: { 'content-type': 'application/json', 'idempotency-key': `k-${++n}`, ...auth, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
async function created(body: unknown = SIMPLE_BODY) {
  const r = await create(body);
  expect(r.statusCode).toBe(201);
  return r.json() as { id: string; status: string; seq: number };
}
const resume = (id: string, headers: Record<string, string>) =>
  ex.app.inject({ method: 'POST', url: `/v1/executions/${id}/resume`, headers: { 'idempotency-key': `r-${++n}`, ...auth, ...headers } });
const problem = (r: LightMyRequestResponse) => [r.statusCode, r.json().code, String(r.headers['content-type']).split(';')[0]];

describe('POST /v1/executions', () => {
  it('creates: 201, Location, ETag = status seq', async () => {
    const r = await create(SIMPLE_BODY);
    expect(r.statusCode).toBe(201);
    const x = r.json();
    expect(x).toMatchObject({ recipe: { id: 'tea' }, status: 'accepted', seq: 1, verifiedBy: ['sensor:water_temp'] });
    expect(r.headers.location).toBe(`/v1/executions/${x.id}`);
    expect(r.headers.etag).toBe('"1"');
  });
  it('is idempotent: the same key returns the same execution; another body under it is 422', async () => {
    const h = { 'idempotency-key': 'same-key' };
    const a = await create(SIMPLE_BODY, h);
    const b = await create(JSON.stringify(SIMPLE_BODY, null, 2), h); // same JSON, other spelling
    expect([a.statusCode, b.statusCode]).toEqual([201, 200]);
    expect(b.json().id).toBe(a.json().id);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(problem(await create(FRIES_BODY, h))).toEqual([422, 'idempotency_conflict', 'application/problem+json']);
  });
  it('needs an Idempotency-Key and the token', async () => {
    expect(problem(await create(SIMPLE_BODY, { 'idempotency-key': '' }))).toEqual([
      400,
      'missing_idempotency_key',
      'application/problem+json',
    ]);
    const r = await ex.app.inject({
      method: 'POST',
      url: '/v1/executions',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'x' },
      payload: SIMPLE_BODY,
    });
    expect(problem(r)).toEqual([401, 'unauthorized', 'application/problem+json']);
    expect(r.headers['www-authenticate']).toBe('Bearer');
    expect((await create(SIMPLE_BODY, { authorization: 'Bearer wrong' })).statusCode).toBe(401);
  });
  it('reads bodies strictly; nothing is created', async () => {
    const before = await ex.store.countExecutions();
    expect(problem(await create('{"recipe":'))[1]).toBe('bad_json');
    expect(problem(await create({ ...SIMPLE_BODY, priority: 'high' }))).toEqual([400, 'unknown_field', 'application/problem+json']);
    expect(problem(await create({ recipe: { id: 'x', steps: 'boil' } }))[1]).toBe('invalid_document');
    expect(problem(await create('', {}))[1]).toBe('invalid_document');
    expect(problem(await create('recipe', { 'content-type': 'text/plain' }))).toEqual([
      415,
      'unsupported_media_type',
      'application/problem+json',
    ]);
    const big = { recipe: { id: 'x', steps: [{ op: 'cw.op.stir', params: { durationS: 1 }, 'x-pad': 'a'.repeat(300_000) }] } };
    expect(problem(await create(big))[1]).toBe('body_too_large');
    // I-JSON: a member twice is refused, not read as its last spelling.
    const text = JSON.stringify(SIMPLE_BODY);
    expect(problem(await create(text.replace('{', '{"recipe":{"id":"other","steps":[]},')))).toEqual([
      400,
      'duplicate_member',
      'application/problem+json',
    ]);
    expect(problem(await create('{"recipe":' + '['.repeat(80) + ']'.repeat(80) + '}'))[1]).toBe('too_deep');
    expect(await ex.store.countExecutions()).toBe(before);
  });
  it('refuses what it cannot run: 422 problem+json with the reason code, the refused execution inside; a replay answers the same', async () => {
    const h = { 'idempotency-key': 'fries-once' };
    const r = await create(FRIES_BODY, h);
    expect(problem(r)).toEqual([422, 'missing_sensor_no_fallback', 'application/problem+json']);
    const x = r.json().execution;
    expect(x).toMatchObject({ status: 'refused', seq: 2, step: 0, reason: { code: 'missing_sensor_no_fallback' } });
    expect(r.headers.location).toBe(`/v1/executions/${x.id}`);
    expect((await ex.service.get(x.id))?.status).toBe('refused');
    const again = await create(FRIES_BODY, h);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.json().execution.id]).toEqual([422, 'true', x.id]);
  });
});

describe('GET /v1/executions/{id}', () => {
  it('answers with ETag and honours If-None-Match; 404 for unknown ids', async () => {
    const x = await created();
    const g = await ex.app.inject({ method: 'GET', url: `/v1/executions/${x.id}` });
    expect([g.statusCode, g.headers.etag, g.json().status]).toEqual([200, '"1"', 'accepted']);
    expect((await ex.app.inject({ method: 'GET', url: `/v1/executions/${x.id}`, headers: { 'if-none-match': '"1"' } })).statusCode).toBe(
      304,
    );
    await ex.service.change(x.id, 'preparing');
    const g2 = await ex.app.inject({ method: 'GET', url: `/v1/executions/${x.id}`, headers: { 'if-none-match': '"1"' } });
    expect([g2.statusCode, g2.headers.etag]).toEqual([200, '"2"']);
    expect(problem(await ex.app.inject({ method: 'GET', url: '/v1/executions/nope' }))[0]).toBe(404);
  });
});

describe('POST …/stop', () => {
  it('is never refused for authorization, needs no If-Match, no Idempotency-Key, no body', async () => {
    const x = await created();
    await ex.service.change(x.id, 'preparing');
    await ex.service.change(x.id, 'running');
    const r = await ex.app.inject({ method: 'POST', url: `/v1/executions/${x.id}/stop` });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({ status: 'stopped', seq: 5, reason: { code: 'stop_requested' } });
    // Even with a wrong token, a stale If-Match, and an odd content type.
    const y = await created();
    const r2 = await ex.app.inject({
      method: 'POST',
      url: `/v1/executions/${y.id}/stop`,
      headers: { authorization: 'Bearer nope', 'if-match': '"77"', 'content-type': 'text/plain' },
      payload: 'STOP',
    });
    expect([r2.statusCode, r2.json().status]).toEqual([200, 'stopped']);
    const r3 = await ex.app.inject({
      method: 'POST',
      url: `/v1/executions/${y.id}/stop`,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect([r3.statusCode, r3.json().seq]).toEqual([200, 3]); // stopping twice is stopping: no new event
  });
  it('is not refused for a malformed JSON body either (§6.2); create and resume still answer bad_json', async () => {
    const x = await created();
    await ex.service.change(x.id, 'preparing');
    const r = await ex.app.inject({
      method: 'POST',
      url: `/v1/executions/${x.id}/stop`,
      headers: { 'content-type': 'application/json' },
      payload: 'reason=fire',
    });
    expect([r.statusCode, r.json().status]).toEqual([200, 'stopped']);
    expect((await ex.service.get(x.id))?.status).toBe('stopped');
    const y = await created();
    const bad = await ex.app.inject({
      method: 'POST',
      url: `/v1/executions/${y.id}/resume`,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'idempotency-key': `bad-${y.id}`,
        'if-match': '"1"',
        'content-type': 'application/json',
      },
      payload: '{"x":',
    });
    expect(problem(bad).slice(0, 2)).toEqual([400, 'bad_json']);
  });
  it('a stop of a finished execution answers 200 with the state it ended in, every time; unknown: 404', async () => {
    const f = (await create(FRIES_BODY)).json().execution as { id: string };
    const c = await created();
    for (const to of ['preparing', 'running', 'completed'] as const) await ex.service.change(c.id, to);
    for (const [id, status, seq] of [
      [f.id, 'refused', 2],
      [c.id, 'completed', 4],
    ] as const) {
      for (let i = 0; i < 2; i++) {
        const r = await ex.app.inject({ method: 'POST', url: `/v1/executions/${id}/stop` });
        expect([r.statusCode, r.json().status, r.json().seq, r.headers.etag]).toEqual([200, status, seq, `"${seq}"`]);
      }
    }
    expect(problem(await ex.app.inject({ method: 'POST', url: '/v1/executions/nope/stop' }))[0]).toBe(404);
  });
  it('reads no body: a 2 MiB body, a chunked body or a body under a bogus length never refuse a stop', async () => {
    const big = '{"x":"' + 'a'.repeat(2 * 1024 * 1024) + '"}';
    for (const headers of [
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      { 'content-type': 'multipart/form-data; boundary=x' },
    ]) {
      const x = await created();
      await ex.service.change(x.id, 'preparing');
      const r = await ex.app.inject({ method: 'POST', url: `/v1/executions/${x.id}/stop`, headers, payload: big });
      expect([r.statusCode, r.json().status]).toEqual([200, 'stopped']);
    }
  });
});

describe('POST …/resume', () => {
  async function paused() {
    const x = await created();
    for (const to of ['preparing', 'running', 'paused'] as const) await ex.service.change(x.id, to);
    return x.id;
  }
  it('428 without If-Match, 412 on a stale seq (nothing changes), 200 with the current one', async () => {
    const id = await paused();
    expect(problem(await resume(id, {}))).toEqual([428, 'precondition_required', 'application/problem+json']);
    const stale = await resume(id, { 'if-match': '"3"' });
    expect(problem(stale)).toEqual([412, 'precondition_failed', 'application/problem+json']);
    expect(stale.json().seq).toBe(4);
    expect((await ex.service.get(id))?.status).toBe('paused');
    const ok = await resume(id, { 'if-match': '"4"' });
    expect([ok.statusCode, ok.headers.etag, ok.json().status]).toEqual([200, '"5"', 'running']);
  });
  it('replays a retried resume; conflicts on another execution; needs key and token; 409 when not resumable', async () => {
    const id = await paused();
    const h = { 'idempotency-key': 'resume-once', 'if-match': '4' };
    const a = await resume(id, h);
    const b = await resume(id, h);
    expect([a.statusCode, b.statusCode, b.headers['idempotent-replayed'], b.json().seq]).toEqual([200, 200, 'true', 5]);
    expect(problem(await resume(await paused(), h))[1]).toBe('idempotency_conflict');
    expect(problem(await resume(id, { 'idempotency-key': '', 'if-match': '5' }))[1]).toBe('missing_idempotency_key');
    expect(problem(await resume(id, { authorization: '', 'if-match': '5' }))[1]).toBe('unauthorized');
    expect(problem(await resume(id, { 'if-match': '5' }))).toEqual([409, 'illegal_transition', 'application/problem+json']);
    expect(problem(await resume(id, { 'if-match': 'W/"5"' }))[1]).toBe('bad_request');
  });
  it('parses If-Match strictly', () => {
    expect(parseIfMatch('"12"').seq).toBe(12);
    expect(parseIfMatch('12').seq).toBe(12);
    for (const bad of ['*', '"12', '0', '"1", "2"', 'W/"1"', '-1', '1.5']) expect(parseIfMatch(bad).failure?.code).toBe('bad_request');
    expect(parseIfMatch(undefined).failure?.code).toBe('precondition_required');
  });
});

describe('GET …/log, capabilities, safety limits', () => {
  it("the log is the execution's signed events in status order", async () => {
    const x = await created();
    for (const to of ['preparing', 'running', 'needs_human', 'running', 'completed'] as const) await ex.service.change(x.id, to);
    const r = await ex.app.inject({ method: 'GET', url: `/v1/executions/${x.id}/log` });
    expect(r.headers['content-type']).toContain('application/cloudevents-batch+json');
    const evs = r.json() as CloudEvent[];
    expect(evs.map((e) => [e.type.replace('cookwala.execution.', ''), e.cookwalaseq])).toEqual([
      ['accepted', 1],
      ['preparing', 2],
      ['running', 3],
      ['needs_human', 4],
      ['running', 5],
      ['completed', 6],
    ]);
    for (const e of evs) expect(verifyEventSignature(e, (k) => (k === device.keyRecord.kid ? device.keyRecord : undefined)).ok).toBe(true);
    expect((await ex.app.inject({ method: 'GET', url: '/v1/executions/nope/log' })).statusCode).toBe(404);
  });
  it('capabilities: the device KeyRecord, consent none by default, no personal data', async () => {
    const c = (await ex.app.inject({ method: 'GET', url: '/v1/capabilities' })).json();
    expect(c).toMatchObject({
      kind: 'Capabilities',
      device: { source: device.source },
      keys: [device.keyRecord],
      consent: { dataset: 'none' },
      privacy: { personalData: 'none' },
    });
    expect(c.operations).toContain('cw.op.simmer');
    expect(c.keys[0]).toMatchObject({ role: 'device', owner: device.source });
  });
  it('safety limits: the device maker tightened one; a looser value did not raise another', async () => {
    const p = (await ex.app.inject({ method: 'GET', url: '/v1/safety-limits' })).json();
    expect(p).toEqual({ ...DEFAULT_SAFETY_LIMITS, limits: { ...DEFAULT_SAFETY_LIMITS.limits, maxPanSurfaceTempC: 240 } });
    // ...and it is enforced: searing at 250 °C is inside the envelope but above this device's limit.
    const r = await create({ recipe: { id: 'steak', steps: [{ op: 'cw.op.sear', params: { tempC: 250, durationS: 60 } }] } });
    expect(problem(r)).toEqual([422, 'safety_limit', 'application/problem+json']);
    expect(r.json().execution).toMatchObject({ status: 'refused', reason: { code: 'safety_limit' } });
  });
  it('unknown routes are problem+json 404', async () => {
    expect(problem(await ex.app.inject({ method: 'GET', url: '/v1/nothing' }))).toEqual([404, 'not_found', 'application/problem+json']);
  });
});

describe('owner routes: pause, attendance, consent', () => {
  const owner = { authorization: `Bearer ${OWNER}` };
  const pause = (id: string, headers: Record<string, string>, remoteAddress?: string) =>
    ex.app.inject({
      method: 'POST',
      url: `/v1/executions/${id}/pause`,
      headers: { 'idempotency-key': `p-${++n}`, ...headers },
      ...(remoteAddress ? { remoteAddress } : {}),
    });
  it('pause: owner token on loopback, If-Match; then a resume with If-Match continues', async () => {
    const x = await created();
    for (const to of ['preparing', 'running'] as const) await ex.service.change(x.id, to);
    expect(problem(await pause(x.id, { 'if-match': '"3"' }))).toEqual([401, 'unauthorized', 'application/problem+json']);
    expect(problem(await pause(x.id, { ...auth, 'if-match': '"3"' }))[1]).toBe('unauthorized'); // the app token is not the owner's
    expect(problem(await pause(x.id, { ...owner, 'if-match': '"3"' }, '192.0.2.7'))[1]).toBe('unauthorized'); // not local
    expect(problem(await pause(x.id, { ...owner }))[1]).toBe('precondition_required');
    expect(problem(await pause(x.id, { ...owner, 'if-match': '"2"' }))[0]).toBe(412);
    const p = await pause(x.id, { ...owner, 'if-match': '"3"' });
    expect([p.statusCode, p.headers.etag, p.json().status, p.json().reason]).toEqual([200, '"4"', 'paused', { code: 'pause_requested' }]);
    expect(problem(await pause(x.id, { ...owner, 'if-match': '"4"' }))[0]).toBe(409); // paused is not running
    const r = await resume(x.id, { 'if-match': '"4"' });
    expect([r.statusCode, r.json().status]).toEqual([200, 'running']);
  });
  it('attendance: GET for anyone, PUT for the owner, strict body; nobody there refuses a saute with person_required', async () => {
    const put = (body: unknown, headers: Record<string, string> = owner) =>
      ex.app.inject({
        method: 'PUT',
        url: '/v1/attendance',
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(body),
      });
    expect((await ex.app.inject({ method: 'GET', url: '/v1/attendance' })).json()).toMatchObject({ present: true, available: true });
    expect(problem(await put({ present: false }, auth))[0]).toBe(401);
    expect(problem(await put({ present: 'yes' }))[1]).toBe('invalid_document');
    expect(problem(await put({ present: false, who: 'Ana' }))[1]).toBe('unknown_field'); // no personal data either
    const saute = { recipe: { id: 'onions', steps: [{ op: 'cw.op.saute', params: { tempC: 170, durationS: 60 } }] } };
    try {
      const a = await put({ present: false, reachableWithinS: 120 });
      expect([a.statusCode, a.json().available]).toEqual([200, false]);
      const r = await create(saute);
      expect(problem(r)).toEqual([422, 'person_required', 'application/problem+json']);
      expect(r.json().execution).toMatchObject({ status: 'refused', reason: { code: 'person_required' } });
      expect((await put({ present: false, reachableWithinS: 60 })).json().available).toBe(true);
      expect((await create(saute)).statusCode).toBe(201);
    } finally {
      await put({ present: true });
    }
  });
  it('consent: the owner sets it and withdraws it (none) through the API; one cookwala.consent.withdrawn is written', async () => {
    const put = (dataset: string, headers: Record<string, string> = owner) =>
      ex.app.inject({
        method: 'PUT',
        url: '/v1/consent',
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify({ dataset }),
      });
    expect(problem(await put('open', {}))[0]).toBe(401);
    expect(problem(await put('public'))[1]).toBe('invalid_document');
    const before = (await ex.app.inject({ method: 'GET', url: '/v1/consent' })).json();
    expect((await put('research_only')).json()).toEqual({ dataset: 'research_only', epoch: before.epoch, withdrawn: false });
    const w = (await put('none')).json();
    expect(w).toEqual({ dataset: 'none', epoch: before.epoch + 1, withdrawn: true });
    expect((await put('none')).json().withdrawn).toBe(false);
    const withdrawn = (await ex.store.deviceEvents()).filter((e) => e.type === 'cookwala.consent.withdrawn');
    expect(withdrawn.map((e) => e.id)).toEqual([`consent.withdrawn.${before.epoch + 1}`]);
    expect((await ex.app.inject({ method: 'GET', url: '/v1/capabilities' })).json().consent).toEqual({ dataset: 'none' });
  });
});
