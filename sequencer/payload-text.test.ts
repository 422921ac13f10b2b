// The payload an ingested event is stored as: the event's own JSON text as it arrived (a batch
// element's bytes, or a structured body), read back through the real app on a real LevelDB. It
// must come back as the same event (member order too) with the same eventHash, in any spelling
// (whitespace, \u escapes, 1.0 for 1), in ASCII and non-ASCII bodies, and an event with
// data_base64 keeps the codec's raw-bytes form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { startSequencer, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { eventHash, type CloudEvent } from '../verifier/cloudevent/read.ts';
import { toBase64 } from '../verifier/cloudevent/format.ts';

const dev = deviceKey(41);
let t: TestSequencer;
beforeAll(async () => {
  t = await startSequencer({ devices: [dev] });
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
// Spaced out, one member name \u-escaped, a number spelled 1.0: JSON.parse reads the same event.
const respelled = (ce: CloudEvent) =>
  JSON.stringify(ce, null, 1).replace('"specversion"', '"\\u0073pecversion"').replace('"n": 1', '"n": 1.0');

async function servedBack(events: CloudEvent[], res: Array<{ status: number; seq: number; eventHash: string }>) {
  expect(res.map((x) => x.status)).toEqual(events.map(() => 201));
  for (let i = 0; i < events.length; i++) {
    expect(res[i].eventHash).toBe(hashOf(events[i]));
    const p = await t.get(`/v1/logs/${encodeURIComponent(t.log)}/events/${res[i].seq}`);
    expect(p.statusCode).toBe(200);
    expect(p.json()).toEqual(events[i]);
    expect(Object.keys(p.json())).toEqual(Object.keys(events[i]));
  }
}

describe('the stored payload is the text the event arrived in', () => {
  const s = eventStream(dev);
  it('batch: ASCII body (element bytes), with a data_base64 event beside a respelled one', async () => {
    const events = [
      s.next('exec-t', { data: { n: 1 } }),
      s.next('exec-t', { data: undefined, extra: { data_base64: toBase64(new Uint8Array(80).fill(7)) } }),
    ];
    const r = await t.post(' [ ' + events.map(respelled).join(' ,\n ') + ' ] ', { contentType: 'application/cloudevents-batch+json' });
    expect(r.statusCode, r.body).toBe(200);
    await servedBack(events, r.json().results);
  });

  it('batch: non-ASCII body (each element encoded again), quotes and backslashes in strings', async () => {
    const events = [s.next('exec-t', { data: { note: 'crème brûlée 🍮', q: 'a"b\\c]}{' } }), s.next('exec-t', { data: { n: 1 } })];
    const r = await t.post('[' + events.map(respelled).join(',') + ']', { contentType: 'application/cloudevents-batch+json' });
    expect(r.statusCode, r.body).toBe(200);
    await servedBack(events, r.json().results);
  });

  it('structured: the body itself, respelled, and one with leading whitespace', async () => {
    for (const lead of ['', '\n  ']) {
      const ce = s.next('exec-t', { data: { n: 1, é: 'ü' } });
      const r = await t.post(lead + respelled(ce) + '\n');
      expect(r.statusCode, r.body).toBe(201);
      await servedBack([ce], [{ ...r.json(), status: r.statusCode }]);
    }
  });
});
