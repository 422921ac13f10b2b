// Checkpoints in the store: stored by seq, cosignatures merged, never a fork nor a checkpoint
// that disagrees with the entries; and open refuses a store behind its latest checkpoint.
import { describe, expect, it } from 'vitest';
import { Level } from 'level';
import { ProtocolError } from '../verifier/errors.ts';
import { openLogStore, type LogStore } from './index.ts';
import { BANDED, P, checkpointKey, singleKey } from './keys.ts';
import { encodeHead, encodeJson } from './values.ts';
import { TEST_LOG, cosigned, fixedSigner, makeCheckpoint, makeItems, witnessSigner, errorCode } from '../testkit/logstore.ts';
import { useStores } from '../testkit/logstore-stores.ts';

const stores = useStores();
const fresh = (items: number) => stores.fresh({ items });
const close = (s: LogStore) => stores.close(s);

async function cpAt(s: LogStore, seq: number, signedAt?: string) {
  const head = seq === 0 ? s.descriptor()!.hash : (await s.getEntry(seq))!.hash;
  return makeCheckpoint(TEST_LOG, seq, head, await s.rootAt(seq), signedAt);
}

const OTHER = 'sha256:' + '11'.repeat(32);

describe('putCheckpoint', () => {
  it('stores by seq, lists in order, and returns the latest', async () => {
    const s = await fresh(10);
    expect(await s.latestCheckpoint()).toBeUndefined();
    const c0 = await cpAt(s, 0);
    const c4 = await cpAt(s, 4);
    const c10 = await cpAt(s, 10);
    await s.putCheckpoint(c10);
    await s.putCheckpoint(c4);
    await s.putCheckpoint(c0);
    expect(await s.latestCheckpoint()).toEqual(c10);
    expect(await s.checkpoint(4)).toEqual(c4);
    expect(await s.checkpoint(5)).toBeUndefined();
    const all = [];
    for await (const c of s.checkpoints()) all.push(c.seq);
    expect(all).toEqual([0, 4, 10]);
    const newestFirst = [];
    for await (const c of s.checkpoints({ reverse: true })) newestFirst.push(c.seq);
    expect(newestFirst).toEqual([10, 4, 0]);
  });

  it('same head and root: cosignatures accumulate, none is lost to a stale copy', async () => {
    const s = await fresh(6);
    const base = await cpAt(s, 6);
    const w1 = witnessSigner();
    const w2 = fixedSigner('wit-2', 4);
    await s.putCheckpoint(cosigned(base, w1));
    await s.putCheckpoint(cosigned(base, w2)); // built from the copy without w1
    const got = (await s.checkpoint(6))!;
    expect(got.signature.map((x) => x.kid)).toEqual(['seq-1', 'wit-2', 'wit-1']);
    expect(got.head).toBe(base.head);
    // the sequencer re-signs later (fresh timestamp): its new signature[0] wins, cosignatures stay
    const resigned = await cpAt(s, 6, '2026-11-30T10:05:00.000Z');
    await s.putCheckpoint(resigned);
    const again = (await s.checkpoint(6))!;
    expect(again.signature[0]).toEqual(resigned.signature[0]);
    expect(again.signature.map((x) => x.kid).sort()).toEqual(['seq-1', 'wit-1', 'wit-2']);
  });

  it('a different head or root at a stored seq is fork_detected; the stored one stays', async () => {
    const s = await fresh(5);
    const good = await cpAt(s, 5);
    await s.putCheckpoint(good);
    const forkHead = makeCheckpoint(TEST_LOG, 5, OTHER, good.root);
    const forkRoot = makeCheckpoint(TEST_LOG, 5, good.head, OTHER);
    const e = await s.putCheckpoint(forkHead).catch((x: unknown) => x as ProtocolError);
    expect((e as ProtocolError).code).toBe('fork_detected');
    expect((e as ProtocolError).extra.seq).toBe(5);
    expect(await errorCode(s.putCheckpoint(forkRoot))).toBe('fork_detected');
    expect(await s.checkpoint(5)).toEqual(good);
  });

  it('refuses checkpoints the entries do not back: beyond the head, other head, other root, other log', async () => {
    const s = await fresh(5);
    const good = await cpAt(s, 3);
    expect(await errorCode(s.putCheckpoint(makeCheckpoint(TEST_LOG, 6, good.head, good.root)))).toBe('store_behind_checkpoint');
    expect(await errorCode(s.putCheckpoint(makeCheckpoint(TEST_LOG, 3, OTHER, good.root)))).toBe('rewrite_detected');
    expect(await errorCode(s.putCheckpoint(makeCheckpoint(TEST_LOG, 3, good.head, OTHER)))).toBe('rewrite_detected');
    expect(await errorCode(s.putCheckpoint(makeCheckpoint('other.example/log', 3, good.head, good.root)))).toBe('log_mismatch');
    expect(await errorCode(s.putCheckpoint({ ...good, signature: [] }))).toBe('invalid_document');
    expect(await s.latestCheckpoint()).toBeUndefined();
  });
});

describe('a checkpoint and the write order', () => {
  it('appends called after a checkpoint land with it, and a store closed while its reads run refuses it', async () => {
    const s = await fresh(8);
    const c8 = await cpAt(s, 8);
    const put = s.putCheckpoint(c8);
    const more = s.append(makeItems(TEST_LOG, s.head(), 3, { prefix: 'after-' }));
    await Promise.all([put, more]);
    expect(s.head().seq).toBe(11);
    expect(await s.checkpoint(8)).toEqual(c8);
    const c11 = await cpAt(s, 11);
    const late = s.putCheckpoint(c11).catch((e: unknown) => e as Error);
    const reopened = await stores.reopen(s);
    expect(String(await late)).toMatch(/closed/);
    expect((await reopened.latestCheckpoint())?.seq).toBe(8);
  });

  it('a checkpoint is written while an append batch is held before the disk, and close waits for both', async () => {
    const gate = (): { hold: Promise<void>; release: () => void; reached: Promise<void>; arrive: () => void } => {
      let release!: () => void;
      let arrive!: () => void;
      const hold = new Promise<void>((r) => (release = r));
      const reached = new Promise<void>((r) => (arrive = r));
      return { hold, release, reached, arrive };
    };
    const held: { append?: ReturnType<typeof gate>; checkpoint?: ReturnType<typeof gate> } = {};
    const s = await stores.fresh({
      items: 4,
      faults: {
        beforeWrite: async (k) => {
          const g = k === 'append' || k === 'checkpoint' ? held[k] : undefined;
          if (!g) return;
          g.arrive();
          await g.hold;
        },
      },
    });
    const appends = (held.append = gate());
    const more = s.append(makeItems(TEST_LOG, s.head(), 2, { prefix: 'held-' }));
    await appends.reached;
    // The batch is planned and on its way: the checkpoint of the durable seq 4 does not wait for it.
    const c4 = await cpAt(s, 4);
    await s.putCheckpoint(c4);
    expect(await s.checkpoint(4)).toEqual(c4);
    expect(s.head().seq).toBe(4);
    appends.release();
    expect((await more).seq).toBe(6);
    // A checkpoint held before the disk: close refuses new writes but waits for it.
    const checkpoints = (held.checkpoint = gate());
    const c6 = await cpAt(s, 6);
    const put = s.putCheckpoint(c6);
    await checkpoints.reached;
    let closed = false;
    const closing = stores.close(s).then(() => (closed = true));
    await expect(s.append(makeItems(TEST_LOG, s.head(), 1, { prefix: 'late-' }))).rejects.toThrow(/closed/);
    expect(closed).toBe(false);
    checkpoints.release();
    await put;
    await closing;
    const reopened = await stores.open(s.dir, { createIfMissing: false });
    expect(await reopened.latestCheckpoint()).toEqual(c6);
  });
});

describe('open refuses a store behind its latest checkpoint', () => {
  it('a checkpoint written directly at a seq beyond the head', async () => {
    const s = await fresh(4);
    const at4 = await cpAt(s, 4);
    await close(s);
    const db = new Level<Buffer, Buffer>(s.dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.put(checkpointKey(9), encodeJson({ ...at4, seq: 9 }));
    await db.close();
    const e = await openLogStore(s.dir).catch((x: unknown) => x as ProtocolError);
    expect((e as ProtocolError).code).toBe('store_behind_checkpoint');
    expect((e as ProtocolError).extra).toMatchObject({ seq: 9, headSeq: 4 });
    // the refused open released the database: a direct open works
    const again = new Level(s.dir);
    await again.open();
    await again.close();
  });

  it('a head rolled back below a signed checkpoint (the entries lost)', async () => {
    const s = await fresh(8);
    await s.putCheckpoint(await cpAt(s, 8));
    const at5 = { seq: 5, hash: (await s.getEntry(5))!.hash, root: await s.rootAt(5) };
    await close(s);
    const db = new Level<Buffer, Buffer>(s.dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.put(singleKey.head, encodeHead(at5));
    await db.close();
    expect(await errorCode(openLogStore(s.dir))).toBe('store_behind_checkpoint');
  });

  it('a checkpoint at a stored seq with another head (the entry was rewritten)', async () => {
    const s = await fresh(6);
    const cp = await cpAt(s, 6);
    await close(s);
    const db = new Level<Buffer, Buffer>(s.dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    await db.put(checkpointKey(6), encodeJson({ ...cp, head: OTHER }));
    await db.close();
    const e = await openLogStore(s.dir).catch((x: unknown) => x as ProtocolError);
    expect((e as ProtocolError).code).toBe('store_behind_checkpoint');
    expect((e as ProtocolError).message).toMatch(/entry 6 hash/);
  });

  it('a store that agrees with its latest checkpoint opens, and one whose tree nodes were damaged does not', async () => {
    const s = await fresh(6);
    await s.putCheckpoint(await cpAt(s, 6));
    await close(s);
    const t = await openLogStore(s.dir);
    expect(t.head().seq).toBe(6);
    await t.close();
    const db = new Level<Buffer, Buffer>(s.dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const e6 = await db.get(BANDED.key(P.entry, 6));
    expect(e6).toBeDefined();
    // the frontier of size 6 is nodes [2,0] and [1,2]; the node key of leaf 5 holds [1,2]
    await db.put(BANDED.key(P.node, 5), Buffer.alloc(64, 9));
    await db.close();
    expect(await errorCode(openLogStore(s.dir))).toBe('root_mismatch');
  });
});
