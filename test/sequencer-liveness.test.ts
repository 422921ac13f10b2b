// Device liveness on a manual clock: a device silent for lostAfterIntervals × heartbeatIntervalMs
// gets exactly one cookwala.hub.device_lost entry (signed by the sequencer, subject = the device
// source, data {source, lastSeen}); GET /v1/devices shows it lost; speaking again makes it alive,
// and a new silence gets a new entry.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';
import { createManualClock } from '../testkit/clock.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { verifyEntryEventSignature, type Entry } from '../verifier/documents/entry.ts';
import { formatTime } from '../verifier/encoding/wire.ts';

const clock = createManualClock();
const a = deviceKey(21);
const b = deviceKey(22);
const INTERVAL = 5000;
// Devices sign on the sequencer's clock: a heartbeat must be signed within maxClockSkew of it.
const onClock = { signedAt: () => formatTime(clock.now()) };
let t: TestSequencer;

beforeAll(async () => {
  t = await startSequencer({ clock, devices: [a, b], config: { heartbeatIntervalMs: INTERVAL, lostAfterIntervals: 3 } });
});
afterAll(async () => {
  await t.close();
  await rm(t.dir, { recursive: true, force: true });
});

async function lostEntries(): Promise<Entry[]> {
  const store = t.seq.logs.get(t.log)!.store;
  const out: Entry[] = [];
  for await (const e of store.entries(1, store.head().seq)) if (e.ce.type === 'cookwala.hub.device_lost') out.push(e);
  return out;
}
const state = async (source: string) => (await t.get('/v1/devices')).json().devices.find((d: { source: string }) => d.source === source);

it('declares a silent device lost once, with a signed entry, and alive again when it speaks', async () => {
  const seenAt = clock.now();
  expect((await t.post(eventStream(a, onClock).heartbeat())).statusCode).toBe(200);
  expect((await t.post(eventStream(b, onClock).next('exec-b'))).statusCode).toBe(201);
  clock.advance(3 * INTERVAL - 1);
  expect((await t.post(eventStream(b, onClock).heartbeat())).statusCode).toBe(200); // b keeps talking
  await t.seq.tick();
  expect(await lostEntries()).toEqual([]);
  expect(await state(a.owner)).toMatchObject({ state: 'alive', lastSeen: formatTime(seenAt) });

  clock.advance(1);
  await t.seq.tick();
  const lost = await lostEntries();
  expect(lost).toHaveLength(1);
  const e = lost[0];
  expect(e.ce).toMatchObject({ source: `cookwala:sequencer/${t.log}`, subject: a.owner });
  const key = t.seq.ctx.keyRecord;
  expect(verifyEntryEventSignature(e, (kid) => (kid === key.kid ? key : undefined), { role: 'sequencer', checkSource: false }).ok).toBe(
    true,
  );
  const payload = (await t.get(logPath(t.log, `/events/${e.seq}`))).json();
  expect(payload).toMatchObject({
    type: 'cookwala.hub.device_lost',
    subject: a.owner,
    data: { source: a.owner, lastSeen: formatTime(seenAt) },
  });
  expect(await state(a.owner)).toMatchObject({ state: 'lost' });
  expect(await state(b.owner)).toMatchObject({ state: 'alive' });

  // still silent: no second entry
  clock.advance(10 * INTERVAL);
  await t.seq.tick();
  expect((await lostEntries()).filter((x) => x.ce.subject === a.owner)).toHaveLength(1);

  // speaks again: alive; a new silence is a new episode
  expect((await t.post(eventStream(a, onClock).heartbeat())).statusCode).toBe(200);
  expect(await state(a.owner)).toMatchObject({ state: 'alive' });
  clock.advance(3 * INTERVAL);
  await t.seq.tick();
  expect((await lostEntries()).filter((x) => x.ce.subject === a.owner)).toHaveLength(2);
  expect(await t.seq.metrics.value('cookwala_devices_lost_total', { log: t.log })).toBe(3); // a twice, b once
});
