// The disk can fill: an append, a checkpoint write and an erasure that fail with
// ENOSPC answer 507 disk_full, acknowledge nothing that is not durable, and the sequencer takes
// writes again once space returns. Two ways: fault injection in the store (an ENOSPC before the
// LevelDB batch: the store stays writable and recovers in process), and, where this machine lets
// root mount one, a real 64 MiB tmpfs filled to the last byte (LevelDB's own write fails: the store
// refuses until reopened, and a restart after space returns has every acknowledged event).
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { openSequencer } from '../sequencer/app.ts';
import type { WriteKind } from '../logstore/index.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const dev = deviceKey(71);
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28 });

describe('disk full by fault injection', () => {
  const full = new Set<WriteKind>();
  let t: TestSequencer;
  afterAll(async () => {
    await t?.close();
    if (t) await removeDir(t.dir);
  });

  it('append, checkpoint and erasure answer disk_full, write nothing, and work again when space returns', async () => {
    t = await startSequencer({
      devices: [dev],
      deps: {
        storeFaults: {
          beforeWrite: (k) => {
            if (full.has(k)) throw enospc();
          },
        },
      },
    });
    const s = eventStream(dev);
    const first = s.next('exec-d');
    expect((await t.post(first)).statusCode).toBe(201);
    await t.seq.tick();
    const signedBefore = t.seq.logs.get(t.log)!.checkpoints.latestSigned()!.seq;

    full.add('append').add('checkpoint').add('erase');
    const second = s.next('exec-d');
    const r = await t.post(second, { key: 'full-1' });
    expect(r.statusCode).toBe(507);
    expect(r.json()).toMatchObject({ code: 'disk_full', status: 507 });
    expect(r.headers['content-type']).toContain('application/problem+json');
    const batch = await t.post([s.next('exec-e')]);
    expect(JSON.stringify(batch.json())).toContain('disk_full');
    expect(t.headSeq()).toBe(1);
    // a checkpoint cannot be written: nothing new is signed, nothing crashes
    await t.seq.tick().catch(() => undefined);
    expect(t.seq.logs.get(t.log)!.checkpoints.latestSigned()!.seq).toBe(signedBefore);
    const erase = await t.seq.app.inject({
      method: 'DELETE',
      url: logPath(t.log, '/events/1/payload'),
      headers: { authorization: `Bearer ${t.token}` },
      payload: { reason: 'consent withdrawn' },
    });
    expect(erase.statusCode, erase.body).toBe(507);
    expect(erase.json().code).toBe('disk_full');
    expect((await t.get(logPath(t.log, '/events/1'))).statusCode).toBe(200);

    // space returns: the same request (same key, same event) is taken, then the rest
    full.clear();
    const again = await t.post(second, { key: 'full-1' });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().seq).toBe(2);
    await t.seq.tick();
    expect(t.seq.logs.get(t.log)!.checkpoints.latestSigned()!.seq).toBe(2);
    const erased = await t.seq.app.inject({
      method: 'DELETE',
      url: logPath(t.log, '/events/1/payload'),
      headers: { authorization: `Bearer ${t.token}` },
      payload: { reason: 'consent withdrawn' },
    });
    expect(erased.statusCode, erased.body).toBe(200);
  });
});

/** Mount an 64 MiB tmpfs (root only); undefined where that is not allowed. */
async function mountTmpfs(): Promise<string | undefined> {
  const dir = await makeTempDir('cookwala-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    await removeDir(dir);
    return undefined;
  }
}

describe('disk full on a real tmpfs', async () => {
  const mnt = process.getuid?.() === 0 ? await mountTmpfs() : undefined;
  afterAll(async () => {
    if (!mnt) return;
    execFileSync('umount', ['-l', mnt], { stdio: 'ignore' });
    await removeDir(mnt);
  });
  it.skipIf(!mnt)(
    'an append on a full disk is disk_full; after space returns a restart has every acknowledged event and takes new ones',
    async () => {
      const dir = join(mnt!, 'data');
      const fatal: string[] = [];
      const t = await startSequencer({ dir, devices: [dev], deps: { onFatal: (_e, log) => fatal.push(log) } });
      const s = eventStream(dev);
      const acked: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await t.post(s.next('exec-f'));
        expect(r.statusCode).toBe(201);
        acked.push(r.json().seq);
      }
      // fill the filesystem to its last byte
      let n = 0;
      try {
        for (;;) await writeFile(join(mnt!, `filler-${n++}`), Buffer.alloc(256 * 1024, 1));
      } catch (e) {
        expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
      }
      for (let size = 16 * 1024; size >= 1; size = Math.floor(size / 2)) {
        try {
          for (;;) await writeFile(join(mnt!, `filler-${n++}`), Buffer.alloc(size, 1));
        } catch {
          // this size no longer fits; try a smaller one
        }
      }
      const big = await t.post(s.next('exec-f', { data: { pad: 'p'.repeat(200_000) } }));
      expect(big.statusCode, big.body).toBe(507);
      expect(big.json().code).toBe('disk_full');
      expect((await t.post(s.next('exec-f'))).json().code).toBe('disk_full');
      expect(fatal).toEqual([t.log]);
      // closing signs a last checkpoint, which a failed store refuses; the store is closed all the same
      await t.close().catch((e) => expect(['store_failed', 'disk_full']).toContain(e.code));
      // space returns; a restart (what the CLI's supervisor does after onFatal) reads the disk
      for (const f of await readdir(mnt!)) if (f.startsWith('filler-')) await rm(join(mnt!, f));
      t.seq = await openSequencer(dir, { timers: false });
      for (const seq of acked) expect((await t.get(logPath(t.log, `/events/${seq}`))).statusCode).toBe(200);
      const head = t.headSeq();
      expect(head).toBeGreaterThanOrEqual(3);
      const next = await t.post(s.next('exec-g'));
      expect(next.statusCode, next.body).toBe(201);
      expect(next.json().seq).toBe(head + 1);
      await t.close();
    },
    60_000,
  );
});
