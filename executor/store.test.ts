// The device store and identity on real disks: one process per store (store_locked), everything
// survives a reopen, outbox order is creation order, requeue puts events back at their original
// places, and device keys are created once (racing starts agree) and never silently replaced.
import { afterAll, describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ProtocolError } from '../verifier/errors.ts';
import { verifyEventSignature } from '../verifier/cloudevent/read.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { openExecutorStore } from './store.ts';
import { loadOrCreateDevice, sourceOf } from './device-key.ts';
import { buildStatusEvent } from './events.ts';
import { testDevice } from '../testkit/executor.ts';

const dirs = tempDirs('cookwala-exec-store-');
afterAll(() => dirs.cleanup());

const dev = testDevice('dev-s');
const ev = (subject: string, seq: number) =>
  buildStatusEvent(
    { source: dev.source, signer: dev.signer, dataset: 'none' },
    { executionId: subject, recipeId: 'r', status: 'running', seq, at: Date.UTC(2026, 10, 30) },
  );

describe('executor store', () => {
  it('a second opener gets store_locked', async () => {
    const dir = await dirs.make();
    const a = await openExecutorStore(dir);
    await expect(openExecutorStore(dir)).rejects.toSatisfy((e) => e instanceof ProtocolError && e.code === 'store_locked');
    await a.close();
    const b = await openExecutorStore(dir);
    await b.close();
  });

  it('keeps the outbox in creation order; requeue restores original places; all of it survives a reopen', async () => {
    const dir = await dirs.make();
    let s = await openExecutorStore(dir);
    await s.commit({
      events: [
        { event: ev('a', 1), enqueue: true },
        { event: ev('b', 1), enqueue: true },
      ],
    });
    await s.commit({
      events: [
        { event: ev('a', 2), enqueue: true },
        { event: ev('a', 3), enqueue: false },
      ],
    });
    await s.commit({
      consent: { dataset: 'open', epoch: 0 },
      events: [
        { event: ev('b', 2), enqueue: true, epoch: 0 },
        { event: ev('c', 1), enqueue: true, epoch: 7 },
      ],
    });
    const ids = async () => (await s.pending(100, false)).map((r) => r.event.id);
    expect(await ids()).toEqual(['a.1', 'b.1', 'a.2', 'b.2']); // c is of another consent epoch; a.3 was never queued
    const first = await s.pending(2, false);
    await s.delivered(first.map((r) => r.key));
    expect(await ids()).toEqual(['a.2', 'b.2']);
    expect([
      await s.isPending('a', 1),
      await s.isPending('a', 2),
      await s.isPending('a', 3),
      await s.isPending('c', 1),
      await s.isPending('a', 9),
    ]).toEqual(['delivered', 'pending', 'local', 'local', 'unknown']);
    expect(await s.requeue('a', 1, 4)).toBe(2); // a.1 and a.2 (a.3 may not leave)
    expect(await ids()).toEqual(['a.1', 'a.2', 'b.2']);
    await s.close();
    s = await openExecutorStore(dir);
    expect(s.consent()).toEqual({ dataset: 'open', epoch: 0 });
    expect(await ids()).toEqual(['a.1', 'a.2', 'b.2']);
    expect((await s.events('a')).map((e) => e.id)).toEqual(['a.1', 'a.2', 'a.3']);
    // New records continue the counter after a reopen: they queue behind the old ones.
    await s.commit({ events: [{ event: ev('d', 1), enqueue: true }] });
    expect(await ids()).toEqual(['a.1', 'a.2', 'b.2', 'd.1']);
    // A purge withdraws everything pending; those records never come back.
    await s.commit({ purgeOutbox: true, consent: { dataset: 'none', epoch: 1 } });
    expect(await s.pendingCount()).toBe(0);
    expect(await s.requeue('a', 1, 4)).toBe(0);
    expect(await s.isPending('d', 1)).toBe('local');
    await s.close();
  });
});

describe('device identity', () => {
  it('creates once, loads the same key after, refuses another name', async () => {
    const dir = await dirs.make();
    const a = await loadOrCreateDevice(dir, { name: 'oven-1' });
    expect(a.source).toBe(sourceOf('oven-1'));
    expect(a.keyRecord).toMatchObject({ kind: 'KeyRecord', alg: 'EdDSA', role: 'device', owner: 'urn:cookwala:device:oven-1' });
    expect(a.keyRecord.kid).toMatch(/^oven-1-[A-Za-z0-9_-]{8}$/);
    const b = await loadOrCreateDevice(dir);
    expect(b.keyRecord).toEqual(a.keyRecord);
    await expect(loadOrCreateDevice(dir, { name: 'oven-2' })).rejects.toThrow(/holds device oven-1/);
    await expect(loadOrCreateDevice(await dirs.make(), { name: 'Bad Name' })).rejects.toThrow(/device name/);
    expect((await stat(join(dir, 'device.key.json'))).mode & 0o777).toBe(0o600);
    // Its events verify against its own KeyRecord.
    const e = buildStatusEvent(
      { source: b.source, signer: b.signer, dataset: 'none' },
      { executionId: 'x', recipeId: 'r', status: 'accepted', seq: 1, at: Date.now() },
    );
    expect(verifyEventSignature(e, (k) => (k === a.keyRecord.kid ? a.keyRecord : undefined)).ok).toBe(true);
  });
  it('racing first starts agree on one key', async () => {
    const dir = await dirs.make();
    const all = await Promise.all(Array.from({ length: 6 }, () => loadOrCreateDevice(dir)));
    expect(new Set(all.map((d) => d.keyRecord.publicKey)).size).toBe(1);
    expect(new Set(all.map((d) => d.name)).size).toBe(1);
    expect(JSON.parse(await readFile(join(dir, 'device.json'), 'utf8')).keyRecord).toEqual(all[0].keyRecord);
  });
});
