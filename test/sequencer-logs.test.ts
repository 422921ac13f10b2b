// The sequencer's log lines an operator alerts on (platform/logger.ts, docs/operators.md "Logs and metrics"):
// a real sequencer (LevelDB in a temp dir, fastify through inject) with a capturing pino logger.
// A failed store write is exactly one `store_failed` line (level fatal, with the log's origin and
// the error) however many requests hit the broken log, and onFatal runs once; the other events of
// one log's life (log_created, checkpoint_signed, checkpoint_published, erased, device_lost) each
// come as a JSON record with their name and `log`; a store of the earlier key layout is one
// `store_migrated` line when the sequencer opens it. Fastify logs through the same logger.
import { afterAll, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';
import { captureLogger } from '../testkit/logs.ts';
import { createManualClock } from '../testkit/clock.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { formatTime } from '../verifier/encoding/wire.ts';
import { LOG_EVENTS } from '../platform/logger.ts';
import { openSequencer } from '../sequencer/app.ts';
import { logStoreDir } from '../sequencer/data-dir.ts';
import { BANDED, FAMILY_FIRST } from '../logstore/keys.ts';
import { toFamilyFirst } from '../testkit/logstore-layout.ts';

const opened: TestSequencer[] = [];
afterAll(async () => {
  for (const t of opened) {
    await t.close().catch(() => undefined);
    await rm(t.dir, { recursive: true, force: true });
  }
});

it('a failed store write is one store_failed line with the log, and onFatal runs once', async () => {
  const dev = deviceKey(31);
  const logs = captureLogger('sequencer');
  let broken = false;
  const fatal: string[] = [];
  const t = await startSequencer({
    devices: [dev],
    deps: {
      logger: logs.logger,
      onFatal: (_e, origin) => fatal.push(origin),
      storeFaults: {
        afterWrite: (k) => {
          if (broken && k === 'append') throw new Error('disk on fire');
        },
      },
    },
  });
  opened.push(t);
  const events = eventStream(dev);
  expect((await t.post(events.next('exec-1'))).statusCode).toBe(201);
  broken = true;
  const r = await t.post(events.next('exec-2'));
  expect(r.statusCode).toBe(500);
  expect(r.json().code).toBe('internal_error');
  // The log refuses further appends; no second line for them.
  expect((await t.post(events.next('exec-3'))).statusCode).toBe(500);
  expect(logs.events('store_failed')).toEqual([
    expect.objectContaining({
      level: 'fatal',
      service: 'sequencer',
      event: 'store_failed',
      log: t.log,
      err: expect.objectContaining({ message: 'disk on fire' }),
    }),
  ]);
  expect(fatal).toEqual([t.log]);
});

it('the events of one log: log_created, checkpoint_signed and _published, erased, device_lost, each with its log', async () => {
  const clock = createManualClock();
  const dev = deviceKey(32);
  const logs = captureLogger('sequencer');
  const interval = 5000;
  const t = await startSequencer({
    clock,
    devices: [dev],
    config: { heartbeatIntervalMs: interval, lostAfterIntervals: 2 },
    deps: { logger: logs.logger },
  });
  opened.push(t);
  const onClock = { signedAt: () => formatTime(clock.now()) };
  const events = eventStream(dev, onClock);
  expect((await t.post(events.next('exec-1'))).statusCode).toBe(201);
  await t.seq.tick();
  const signed = await logs.next('checkpoint_signed');
  expect(signed).toMatchObject({ level: 'info', log: t.log, seq: 1 });
  expect(await logs.next('checkpoint_published')).toMatchObject({ log: t.log, seq: 1, head: signed.head });

  const erase = await t.seq.app.inject({
    method: 'DELETE',
    url: logPath(t.log, '/events/1/payload'),
    headers: { authorization: `Bearer ${t.token}` },
    payload: { reason: 'consent withdrawn' },
  });
  expect(erase.statusCode, erase.body).toBe(200);
  expect(logs.events('erased')).toEqual([expect.objectContaining({ log: t.log, seq: 1, reason: 'consent withdrawn', erasureSeq: 2 })]);

  expect((await t.post(events.heartbeat())).statusCode).toBe(200);
  clock.advance(2 * interval);
  await t.seq.tick();
  expect(logs.events('device_lost')).toEqual([expect.objectContaining({ level: 'warn', log: t.log, source: dev.owner })]);

  const other = 'logs.example/missions/m-2';
  const add = await t.seq.app.inject({
    method: 'POST',
    url: '/v1/logs',
    headers: { authorization: `Bearer ${t.token}` },
    payload: { log: other, mode: 'full' },
  });
  expect(add.statusCode, add.body).toBe(201);
  expect(logs.events('log_created')).toEqual([expect.objectContaining({ log: other, mode: 'full' })]);

  // Every record is a known event (fastify's own are http_server), and every event of ours names its log.
  for (const r of logs.records) {
    if (r.event === undefined || r.event === 'http_server') continue;
    expect(Object.keys(LOG_EVENTS)).toContain(r.event);
    expect(r.log, JSON.stringify(r)).toEqual(expect.any(String));
  }
  // Fastify writes through the same instance: its lines carry our service name.
  t.seq.app.log.info('from fastify');
  expect(logs.records.at(-1)).toMatchObject({ service: 'sequencer', msg: 'from fastify' });
});

it('a log store of the earlier key layout is moved when the sequencer opens it: one store_migrated line, the log serves what it held', async () => {
  const dev = deviceKey(33);
  const t = await startSequencer({ devices: [dev] });
  opened.push(t);
  const events = eventStream(dev);
  for (let i = 1; i <= 5; i++) expect((await t.post(events.next(`exec-${i}`))).statusCode).toBe(201);
  const read = await t.get(logPath(t.log, '/entries?from=1'));
  expect(read.statusCode).toBe(200);
  const before = read.body;
  const head = t.headSeq();
  expect(before.split('exec-').length - 1).toBeGreaterThanOrEqual(5);
  await t.close();
  const records = await toFamilyFirst(logStoreDir(t.dir, t.log));
  expect(records).toBe(3 * head); // entry, node and payload each
  const logs = captureLogger('sequencer');
  t.seq = await openSequencer(t.dir, { timers: false, logger: logs.logger });
  expect(logs.events('store_migrated')).toEqual([
    expect.objectContaining({
      level: 'info',
      event: 'store_migrated',
      log: t.log,
      from: FAMILY_FIRST.format,
      to: BANDED.format,
      moved: records,
    }),
  ]);
  expect(t.headSeq()).toBe(head);
  expect((await t.get(logPath(t.log, '/entries?from=1'))).body).toBe(before);
  expect((await t.post(events.next('exec-6'))).statusCode).toBe(201);
});
