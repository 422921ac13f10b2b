// The witness state store (state.ts) on real LevelDB in temp dirs: compare-and-set per log
// version (durable across reopen), group commit across logs, forks stored once and listed by log,
// and store_locked for a second open.
import { describe, expect, it } from 'vitest';
import { openStateStore, type LogState, type StateStore } from './state.ts';
import { createFakeLog } from '../../testkit/witness.ts';
import { buildForkProof } from '../../verifier/documents/fork-proof.ts';
import { cosignCheckpoint } from '../../verifier/documents/checkpoint.ts';
import { testKey } from '../../testkit/witness.ts';
import { tmpDir } from '../../testkit/tmp.ts';

const tmp = () => tmpDir('cookwala-wstate-');

async function stateFor(origin: string, seq: number): Promise<Omit<LogState, 'version'>> {
  const log = createFakeLog(origin);
  log.append(seq);
  const cp = await log.checkpoint();
  return {
    log: origin,
    seq,
    root: cp.root,
    head: cp.head,
    checkpoint: cp,
    cosignature: cosignCheckpoint(cp, testKey('s', 'witness').signer, cp.signature[0].signedAt),
    updatedAt: cp.signature[0].signedAt,
  };
}

describe('witness state store', () => {
  it('compare-and-set: the first writer of a version wins, the second gets conflict; durable across reopen', async () => {
    const dir = await tmp();
    const s = await openStateStore(dir);
    const a = await stateFor('example.org/a', 3);
    const [r1, r2] = await Promise.all([s.commit(a, 0), s.commit({ ...a, seq: 4 }, 0)]);
    expect([r1, r2].map((r) => (r.ok ? 'ok' : r.code)).sort()).toEqual(['conflict', 'ok']);
    const won = r1.ok ? 3 : 4;
    expect(await s.get('example.org/a')).toMatchObject({ seq: won, version: 1 });
    expect(await s.commit({ ...a, seq: 5 }, 0)).toMatchObject({ ok: false, code: 'conflict' });
    expect((await s.commit({ ...a, seq: 5 }, 1)).ok).toBe(true);
    await s.close();
    const s2 = await openStateStore(dir);
    expect(await s2.get('example.org/a')).toMatchObject({ seq: 5, version: 2 });
    expect(await s2.commit({ ...a, seq: 6 }, 1)).toMatchObject({ ok: false, code: 'conflict' });
    expect((await s2.logs()).map((l) => l.seq)).toEqual([5]);
    await s2.close();
  });

  it('concurrent commits for many logs share synced batches (group commit)', async () => {
    const s = await openStateStore(await tmp());
    const states = await Promise.all(Array.from({ length: 50 }, (_, i) => stateFor(`example.org/l${i}`, 1)));
    const rs = await Promise.all(states.map((st) => s.commit(st, 0)));
    expect(rs.every((r) => r.ok)).toBe(true);
    const { batches, records } = s.stats();
    expect(records).toBe(50);
    expect(batches).toBeLessThan(50);
    expect(await s.logs()).toHaveLength(50);
    await s.close();
  });

  it('stores each fork once and lists them by log', async () => {
    const s = await openStateStore(await tmp());
    const a = createFakeLog('example.org/f');
    const b = createFakeLog('example.org/f');
    a.append(2);
    b.append(2);
    const fp = buildForkProof(await a.checkpoint(), await b.checkpoint());
    expect(await s.putFork(fp)).toBe(true);
    expect(await s.putFork(fp)).toBe(false);
    expect(await s.putFork({ ...fp, a: fp.b, b: fp.a })).toBe(false);
    expect(await s.forks('example.org/f')).toHaveLength(1);
    expect(await s.forks('example.org/other')).toHaveLength(0);
    expect(await s.forks()).toHaveLength(1);
    await s.close();
  });

  it('a second open of a held store is store_locked', async () => {
    const dir = await tmp();
    const s: StateStore = await openStateStore(dir);
    await expect(openStateStore(dir)).rejects.toMatchObject({ code: 'store_locked' });
    await s.close();
  });
});
