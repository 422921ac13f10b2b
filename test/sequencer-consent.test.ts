// Consent withdrawal on the sequencer side (spec §8, docs/design.md §9): in a hash_only log, a device's
// cookwala.consent.withdrawn erases every earlier payload from that device (one signed
// cookwala.log.erased entry each) before the answer; other devices' payloads stay; the log still
// rebuilds from scratch; a redelivered withdrawal (200 duplicate) appends nothing more; a full log
// keeps everything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream, makeEvent, signed } from '../testkit/events.ts';
import { parseNdjson, rebuildLog } from '../testkit/verify-log.ts';
import { verifyEntryEventSignature, type Entry } from '../verifier/documents/entry.ts';

const a = deviceKey(31);
const b = deviceKey(32);
const FULL = 'test.example/consent-full';
let t: TestSequencer;

beforeAll(async () => {
  t = await startSequencer({ logs: ['test.example/consent-hash'], devices: [a, b] });
});
afterAll(async () => {
  await t.close();
  await rm(t.dir, { recursive: true, force: true });
});

const withdrawal = (k: typeof a) =>
  signed(makeEvent({ source: k.owner, id: 'consent.withdrawn.1', type: 'cookwala.consent.withdrawn', data: { dataset: 'none' } }), k);

describe('consent withdrawal', () => {
  it("hash_only: erases the device's earlier payloads, keeps the others, and the log still verifies", async () => {
    const sa = eventStream(a);
    const sb = eventStream(b);
    for (let i = 0; i < 3; i++) {
      expect((await t.post(sa.next('exec-a'))).statusCode).toBe(201);
      expect((await t.post(sb.next('exec-b'))).statusCode).toBe(201);
    }
    const w = await t.post(withdrawal(a));
    expect(w.statusCode, w.body).toBe(201);
    const wSeq = w.json().seq as number;
    const list = parseNdjson<Entry>((await t.get(logPath(t.log, `/entries?from=1&to=${t.headSeq()}`))).body);
    const fromA = list.filter((e) => e.seq < wSeq && e.ce.source === a.owner).map((e) => e.seq);
    const fromB = list.filter((e) => e.ce.source === b.owner).map((e) => e.seq);
    expect(fromA).toHaveLength(3);
    for (const s of fromA) expect((await t.get(logPath(t.log, `/events/${s}`))).statusCode).toBe(410);
    for (const s of fromB) expect((await t.get(logPath(t.log, `/events/${s}`))).statusCode).toBe(200);
    expect((await t.get(logPath(t.log, `/events/${wSeq}`))).statusCode).toBe(200);
    const erased = list.filter((e) => e.ce.type === 'cookwala.log.erased');
    expect(erased).toHaveLength(3);
    expect(t.headSeq()).toBe(wSeq + 3);
    for (const e of erased) {
      const p = (await t.get(logPath(t.log, `/events/${e.seq}`))).json();
      expect(fromA).toContain(p.data.seq);
      expect(p.data.reason).toBe('consent_withdrawn');
    }
    expect(() => rebuildLog(t.seq.logs.get(t.log)!.descriptor.hash, list)).not.toThrow();
    for (const e of list.filter((x) => x.ce.source === a.owner)) {
      expect(verifyEntryEventSignature(e, (kid) => (kid === a.record.kid ? a.record : undefined)).ok).toBe(true);
    }
    // the erasure records themselves cannot be erased
    const auth = { authorization: `Bearer ${t.token}` };
    const rec = await t.seq.app.inject({
      method: 'DELETE',
      url: logPath(t.log, `/events/${erased[0].seq}/payload`),
      headers: auth,
      payload: { reason: 'x' },
    });
    expect(rec.statusCode).toBe(409);
    expect(rec.json().code).toBe('not_erasable');
    expect(t.headSeq()).toBe(wSeq + 3);
    // redelivery of the same withdrawal: the original answer, nothing more appended
    const again = await t.post(withdrawal(a));
    expect(again.statusCode).toBe(200);
    expect(again.json().seq).toBe(wSeq);
    expect(t.headSeq()).toBe(wSeq + 3);
  });

  it('two withdrawals racing (or a withdrawal racing an operator erase) both answer success, each payload erased once', async () => {
    const RACE = 'test.example/consent-race';
    const auth = { authorization: `Bearer ${t.token}` };
    expect(
      (await t.seq.app.inject({ method: 'POST', url: '/v1/logs', headers: auth, payload: { log: RACE, mode: 'hash_only' } })).statusCode,
    ).toBe(201);
    expect((await t.registerKey(a.record, RACE)).statusCode).toBe(201);
    const sa = eventStream(a);
    for (let i = 0; i < 4; i++) expect((await t.post(sa.next('exec-r'), { log: RACE })).statusCode).toBe(201);
    const w = (id: string) => signed(makeEvent({ source: a.owner, id, type: 'cookwala.consent.withdrawn', data: { dataset: 'none' } }), a);
    // Both sweeps see the same payloads present before either erases them.
    const [r1, r2, del] = await Promise.all([
      t.post(w('consent.withdrawn.r1'), { log: RACE }),
      t.post(w('consent.withdrawn.r2'), { log: RACE }),
      t.seq.app.inject({ method: 'DELETE', url: logPath(RACE, '/events/1/payload'), headers: auth, payload: { reason: 'operator' } }),
    ]);
    expect(r1.statusCode, r1.body).toBe(201);
    expect(r2.statusCode, r2.body).toBe(201);
    expect([200, 410]).toContain(del.statusCode);
    const list = parseNdjson<Entry>((await t.get(logPath(RACE, `/entries?from=1&to=${t.headSeq(RACE)}`))).body);
    const erasedSeqs = list.filter((e) => e.ce.type === 'cookwala.log.erased').map((e) => e.ce.id);
    expect(new Set(erasedSeqs).size).toBe(erasedSeqs.length);
    for (let s = 1; s <= 4; s++) expect((await t.get(logPath(RACE, `/events/${s}`))).statusCode).toBe(410);
  });

  it('full: a withdrawal is logged and nothing is erased', async () => {
    const auth = { authorization: `Bearer ${t.token}` };
    expect(
      (await t.seq.app.inject({ method: 'POST', url: '/v1/logs', headers: auth, payload: { log: FULL, mode: 'full' } })).statusCode,
    ).toBe(201);
    expect((await t.registerKey(b.record, FULL)).statusCode).toBe(201);
    expect((await t.post(eventStream(b).next('f'), { log: FULL })).statusCode).toBe(201);
    expect((await t.post(withdrawal(b), { log: FULL })).statusCode).toBe(201);
    expect(t.headSeq(FULL)).toBe(2);
    expect((await t.get(logPath(FULL, '/events/1'))).statusCode).toBe(200);
  });
});
