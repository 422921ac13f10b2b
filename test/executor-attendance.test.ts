// Attendance (Core 0.2 §6.6) against a real executor process over real HTTP: with nobody declared,
// a saute (unattended: false) is refused with person_required (422, the reason table's status, the
// refused execution inside); once the owner declares a person present (PUT /v1/attendance, owner
// token) it runs; the person leaving mid-step moves it to needs_human with person_required (a
// local_safety event) and it does not go on; a resume is refused with person_required until
// someone is back, then it continues; the stop ends it.
import { afterAll, describe, expect, it } from 'vitest';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';
import { spawnExecutor, statusLine, type ExecutorProcess } from '../testkit/executor.ts';
import { tempDirs } from '../testkit/tmp.ts';

const dirs = tempDirs('cookwala-exec-attendance-');
let child: ExecutorProcess | undefined;
afterAll(async () => {
  await child?.close();
  await dirs.cleanup();
});

const SAUTE = {
  recipe: {
    id: 'onions',
    steps: [
      { op: 'cw.op.saute', params: { tempC: 170, durationS: 3600 } },
      { op: 'cw.op.rest', params: { durationS: 10 } },
    ],
  },
};
let n = 0;

describe('attendance on a real executor', () => {
  it('person_required with nobody there; the person leaving mid-saute holds it in needs_human until they are back', async () => {
    child = await spawnExecutor(await dirs.make(), ['--speed', '100']);
    const { url, ownerToken } = child;
    const owner = { authorization: `Bearer ${ownerToken}` };
    const post = (path: string, headers: Record<string, string>, body?: unknown) =>
      fetch(url + path, {
        method: 'POST',
        headers: { 'idempotency-key': `k${++n}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const attend = (body: unknown) =>
      fetch(`${url}/v1/attendance`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...owner },
        body: JSON.stringify(body),
      });
    const get = async (id: string) =>
      (await (await fetch(`${url}/v1/executions/${id}`)).json()) as { status: string; seq: number; reason?: { code: string } };

    // Nobody declared (the default after a start): refused before anything heats.
    const refused = await post('/v1/executions', {}, SAUTE);
    expect([refused.status, String(refused.headers.get('content-type')).split(';')[0]]).toEqual([422, 'application/problem+json']);
    const rj = (await refused.json()) as { code: string; execution: { id: string; status: string } };
    expect([rj.code, rj.execution.status]).toEqual(['person_required', 'refused']);
    // Declaring someone needs the owner token.
    expect(
      (await fetch(`${url}/v1/attendance`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"present":true}' }))
        .status,
    ).toBe(401);

    expect((await (await attend({ present: true })).json()) as unknown).toMatchObject({ present: true, available: true });
    const created = await post('/v1/executions', {}, SAUTE);
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    await child.until(statusLine(id, 'running'), 'the saute running');

    // The person leaves mid-step.
    expect(((await (await attend({ present: false })).json()) as { available: boolean }).available).toBe(false);
    await child.until(statusLine(id, 'needs_human'), 'needs_human after the person left');
    expect(child.lines.find((l) => l.startsWith(`status ${id} #4 needs_human`))).toContain('(person_required)');
    const held = await get(id);
    expect([held.status, held.seq, held.reason?.code]).toEqual(['needs_human', 4, 'person_required']);
    const log = (await (await fetch(`${url}/v1/executions/${id}/log`)).json()) as CloudEvent[];
    expect(log[3]).toMatchObject({
      type: 'cookwala.execution.needs_human',
      cookwalalatency: 'local_safety',
      data: { step: 0, reason: { code: 'person_required' } },
    });

    // A resume while nobody is there is refused, and changes nothing.
    const r1 = await post(`/v1/executions/${id}/resume`, { 'if-match': '"4"' });
    expect([r1.status, ((await r1.json()) as { code: string }).code]).toEqual([422, 'person_required']);
    expect((await get(id)).seq).toBe(4);

    // Reachable within a minute counts (§6.6); then the step goes on.
    await attend({ present: false, reachableWithinS: 30 });
    const r2 = await post(`/v1/executions/${id}/resume`, { 'if-match': '"4"' });
    expect([r2.status, ((await r2.json()) as { status: string }).status]).toEqual([200, 'running']);
    expect((await post(`/v1/executions/${id}/stop`, {})).status).toBe(200);
    await child.until(statusLine(id, 'stopped'), 'stopped');
    expect(child.lines.filter((l) => l.startsWith(`status ${id} `)).map((l) => l.split(' ')[3])).toEqual([
      'accepted',
      'preparing',
      'running',
      'needs_human',
      'running',
      'stopping',
      'stopped',
    ]);
  });
});
