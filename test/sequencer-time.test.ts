// The sequencer is the log's clock (verifier/documents/time-bounds.ts): over real HTTP (fetch to a
// listening fastify on a real LevelDB in a temp dir) against a sequencer on an injected manual
// clock, a device's signedAt must lie within [now − maxDeliveryDelay, now + maxClockSkew]: a
// future-dated event is signed_in_future, one backdated past the delivery window is
// delivery_too_late, each bound itself is accepted; a revoked key's events signed before revokedAt
// are accepted only while they arrive within maxDeliveryDelay of the revocation, after which no
// signedAt a thief could choose gets in (key_revoked); a late retry of a stored event still gets
// its 200; heartbeats get maxClockSkew on both sides; the descriptor declares the bounds, which
// stay fixed per log, and a log whose descriptor predates them runs on the config's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSequencer, type TestSequencer } from '../testkit/sequencer.ts';
import { createManualClock } from '../testkit/clock.ts';
import { deviceKey, type TestKey } from '../testkit/keys.ts';
import { makeEvent, signed } from '../testkit/events.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import { buildLogDescriptor } from '../verifier/documents/log-descriptor.ts';
import { DEFAULT_TIME_BOUNDS } from '../verifier/documents/time-bounds.ts';
import { initDataDir, loadDataDir, logStoreDir } from '../sequencer/data-dir.ts';
import { openSequencer } from '../sequencer/app.ts';
import { openLogStore } from '../logstore/index.ts';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';

const SKEW = DEFAULT_TIME_BOUNDS.maxClockSkewMs;
const DELAY = DEFAULT_TIME_BOUNDS.maxDeliveryDelayMs;
const HOUR = 3_600_000;

const tmp = tempDirs('cookwala-time-');
afterAll(() => tmp.cleanup());

let n = 0;
/** POST over a real socket; the parsed answer. */
async function post(t: TestSequencer, body: CloudEvent | CloudEvent[], log = t.log): Promise<{ status: number; body: any }> {
  const batch = Array.isArray(body);
  const r = await fetch(`${t.url}/v1/logs/${encodeURIComponent(log)}/events`, {
    method: 'POST',
    headers: {
      'content-type': batch ? 'application/cloudevents-batch+json' : 'application/cloudevents+json',
      'idempotency-key': `time-${++n}`,
    },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

/** GET over a real socket, JSON. */
async function getJson(t: TestSequencer, path: string): Promise<any> {
  return (await fetch(`${t.url}${path}`)).json();
}

async function registerHttp(t: TestSequencer, record: object): Promise<number> {
  const r = await fetch(`${t.url}/v1/logs/${encodeURIComponent(t.log)}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(record),
  });
  return r.status;
}

const event = (k: TestKey, signedAtMs: number, id?: string) =>
  signed(makeEvent({ source: k.owner, id, data: { at: signedAtMs } }), k, formatTime(signedAtMs));
const heartbeat = (k: TestKey, signedAtMs: number) =>
  signed(makeEvent({ source: k.owner, type: 'cookwala.device.heartbeat' }), k, formatTime(signedAtMs));

/** Refused with `code` at `status` as problem+json, the log unchanged. */
async function refused(t: TestSequencer, ce: CloudEvent, code: string, status: number) {
  const before = t.headSeq();
  const r = await post(t, ce);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ code, status, type: `urn:cookwala:reason:${code}` });
  expect(t.headSeq()).toBe(before);
  return r.body;
}

describe('the default window', () => {
  const clock = createManualClock();
  const dev = deviceKey(31);
  const stolen = deviceKey(32);
  const quiet = deviceKey(33);
  let t: TestSequencer;
  beforeAll(async () => {
    t = await startSequencer({ clock, listen: true, devices: [dev, quiet] });
    expect(await registerHttp(t, stolen.record)).toBe(201);
  });
  afterAll(() => t.close());

  it('the log descriptor declares the bounds (defaults: 5 min skew, 72 h delivery)', async () => {
    const d = await getJson(t, `/v1/logs/${encodeURIComponent(t.log)}`);
    expect(d.timeBounds).toEqual({ maxClockSkewMs: 300_000, maxDeliveryDelayMs: 259_200_000 });
  });

  it('a future-dated event is signed_in_future (422); maxClockSkew ahead is accepted', async () => {
    const now = clock.now();
    const p = await refused(t, event(dev, now + SKEW + 1), 'signed_in_future', 422);
    expect(p.bound).toBe(formatTime(now + SKEW));
    await refused(t, event(dev, Date.parse('2999-01-01T00:00:00.000Z')), 'signed_in_future', 422);
    expect((await post(t, event(dev, now + SKEW))).status).toBe(201);
  });

  it('an event backdated past maxDeliveryDelay is delivery_too_late (422); an outbox delivering exactly that late is accepted', async () => {
    const now = clock.now();
    await refused(t, event(dev, now - DELAY - 1), 'delivery_too_late', 422);
    const r = await post(t, event(dev, now - DELAY));
    expect(r.status).toBe(201);
    const e = await t.seq.logs.get(t.log)!.store.getEntry(r.body.seq);
    expect(e?.sequencedAt).toBe(formatTime(now)); // the window was judged against the entry's own time
  });

  it("a batch judges each event's time alone", async () => {
    const now = clock.now();
    const r = await post(t, [event(dev, now), event(dev, now + SKEW + 1000), event(dev, now - DELAY - 1000)]);
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { status: number; code?: string }) => x.code ?? x.status)).toEqual([
      201,
      'signed_in_future',
      'delivery_too_late',
    ]);
  });

  it('a retry of a stored event answers 200 with its seq however late it comes (dedup before the window)', async () => {
    const ce = event(dev, clock.now(), 'retried-late');
    const first = await post(t, ce);
    expect(first.status).toBe(201);
    clock.advance(DELAY + HOUR);
    const again = await post(t, ce);
    expect(again).toEqual({ status: 200, body: first.body });
    // while a new event signed at that time is now too late
    await refused(t, event(dev, clock.now() - DELAY - HOUR), 'delivery_too_late', 422);
  });

  it('a revoked key: signed before revokedAt, accepted only while arriving within maxDeliveryDelay of the revocation', async () => {
    const R = clock.now();
    expect(await registerHttp(t, { ...stolen.record, revokedAt: formatTime(R) })).toBe(201);
    // signed at or after revokedAt: refused at once
    await refused(t, event(stolen, R), 'key_revoked', 403);
    // an honest outbox of the device delivers what it signed before the revocation
    clock.set(R + HOUR);
    expect((await post(t, event(stolen, R - 1))).status).toBe(201);
    clock.set(R + DELAY - 1000);
    expect((await post(t, event(stolen, R - 1000))).status).toBe(201);
    // once maxDeliveryDelay has passed since the revocation, no backdating gets in
    clock.set(R + DELAY + 1);
    for (const s of [R - 1, R - HOUR, R - DELAY, R - 30 * 24 * HOUR, R, clock.now()]) {
      const p = await refused(t, event(stolen, s), 'key_revoked', 403);
      expect(p.detail).toContain('revoked');
    }
    // a key that is not revoked sees the plain delivery window for the same signedAt
    await refused(t, event(dev, R - 1), 'delivery_too_late', 422);
    expect((await post(t, event(dev, clock.now()))).status).toBe(201);
  });

  it('heartbeats: within maxClockSkew on both sides; a stale or future one is refused and is no sign of life', async () => {
    const now = clock.now();
    const devices = async () =>
      ((await getJson(t, '/v1/devices')).devices as Array<{ source: string }>).filter((d) => d.source === quiet.owner);
    await refused(t, heartbeat(quiet, now - SKEW - 1), 'delivery_too_late', 422);
    await refused(t, heartbeat(quiet, now + SKEW + 1), 'signed_in_future', 422);
    expect(await devices()).toEqual([]);
    const ok = await post(t, heartbeat(quiet, now - SKEW));
    expect(ok).toMatchObject({ status: 200, body: { heartbeat: true } });
    expect(await devices()).toEqual([expect.objectContaining({ source: quiet.owner, state: 'alive' })]);
  });

  it('the new codes are counted by the metrics', async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    for (const code of ['signed_in_future', 'delivery_too_late', 'key_revoked'])
      expect(text).toMatch(new RegExp(`cookwala_events_rejected_total\\{(?:log="[^"]*",)?code="${code}"(?:,log="[^"]*")?\\} [1-9]`));
  });
});

describe('configured bounds', () => {
  it('a new log declares the configured bounds and enforces them; they stay fixed when the config changes', async () => {
    const clock = createManualClock();
    const dev = deviceKey(34);
    const dir = await tmp.make();
    const tight = { maxClockSkewMs: 2_000, maxDeliveryDelayMs: 60_000 };
    await initDataDir({ dir, logs: ['time.example/tight'], now: () => clock.now(), ...tight });
    const t = await startSequencer({ dir, logs: ['time.example/tight'], clock, listen: true, devices: [dev] });
    try {
      expect((await getJson(t, `/v1/logs/${encodeURIComponent(t.log)}`)).timeBounds).toEqual(tight);
      await refused(t, event(dev, clock.now() - 60_001), 'delivery_too_late', 422);
      await refused(t, event(dev, clock.now() + 2_001), 'signed_in_future', 422);
      expect((await post(t, event(dev, clock.now() - 60_000))).status).toBe(201);
    } finally {
      await t.close();
    }
    // A looser config later: the log keeps the window its signed descriptor declares.
    const seq = await openSequencer(dir, { clock, timers: false, config: { maxDeliveryDelayMs: DELAY } });
    t.seq = seq;
    await seq.app.listen({ host: '127.0.0.1', port: 0 });
    const a = seq.app.server.address();
    t.url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
    try {
      expect(seq.logs.get('time.example/tight')!.timeBounds).toEqual(tight);
      await refused(t, event(dev, clock.now() - 60_001), 'delivery_too_late', 422);
    } finally {
      await seq.close();
    }
  });

  it("a log whose descriptor predates time bounds runs on the config's window", async () => {
    const clock = createManualClock();
    const dev = deviceKey(35);
    const OLD = 'time.example/old';
    const dir = await tmp.make();
    await initDataDir({ dir, logs: ['time.example/other'], now: () => clock.now() });
    const d = await loadDataDir(dir);
    const store = await openLogStore(logStoreDir(dir, OLD), { createIfMissing: true });
    await store.init(buildLogDescriptor({ log: OLD, mode: 'hash_only', createdAt: formatTime(clock.now()) }, d.signer));
    await store.close();
    const t = await startSequencer({ dir, logs: [OLD], clock, listen: true, devices: [dev], config: { maxDeliveryDelayMs: 10_000 } });
    try {
      const desc = await getJson(t, `/v1/logs/${encodeURIComponent(OLD)}`);
      expect(desc.timeBounds).toBeUndefined();
      expect(t.seq.logs.get(OLD)!.timeBounds).toEqual({ maxClockSkewMs: SKEW, maxDeliveryDelayMs: 10_000 });
      await refused(t, event(dev, clock.now() - 10_001), 'delivery_too_late', 422);
      expect((await post(t, event(dev, clock.now() - 10_000))).status).toBe(201);
    } finally {
      await t.close();
    }
  });
});
