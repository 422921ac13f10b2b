// The sequencer-side publisher against three real witnesses over libp2p in one process. A lost
// quorum is one `quorum_lost` JSON log line (and its return one `quorum_restored`), however many
// checkpoints go unpublished in between.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { generateKeyPair } from '@libp2p/crypto/keys';
import { verifyCheckpoint } from '../../verifier/documents/checkpoint.ts';
import type { WitnessPolicy } from '../../verifier/documents/policy.ts';
import { createWitness, type Witness } from '../server/service.ts';
import { openStateStore, type StateStore } from '../server/state.ts';
import { createP2pNode, type P2pNode } from '../wire/p2p-node.ts';
import { createWitnessConnection, type WitnessConnection } from './connection.ts';
import { createCheckpointPublisher } from './publisher.ts';
import { processAddCheckpoint } from '../server/add-checkpoint.ts';
import { createFakeLog, fakeStore, testKey } from '../../testkit/witness.ts';
import { waitFor } from '../../testkit/wait.ts';
import { captureLogger } from '../../testkit/logs.ts';
import { fail } from '../../verifier/errors.ts';
import { makeTempDir, removeDir } from '../../testkit/tmp.ts';

const ORIGIN = 'example.org/pub';
const log = createFakeLog(ORIGIN);
const keys = [0, 1, 2].map((i) => testKey(`pub-w${i}`, 'witness'));
let dir: string;
const states: StateStore[] = [];
const witnesses: Witness[] = [];
const addrs: string[] = [];
let node: P2pNode;

beforeAll(async () => {
  dir = await makeTempDir('cookwala-wpub-');
  for (const [i, k] of keys.entries()) {
    const st = await openStateStore(join(dir, `w${i}`));
    states.push(st);
    const w = createWitness(
      { state: st, signer: k.signer, keyRecord: k.keyRecord },
      { peerKey: await generateKeyPair('Ed25519'), listen: ['/ip4/127.0.0.1/tcp/0'], logs: [{ log: ORIGIN, sequencer: log.keyRecord }] },
    );
    witnesses.push(w);
    addrs.push((await w.start()).multiaddrs[0]);
  }
  node = await createP2pNode({ privateKey: await generateKeyPair('Ed25519'), listen: [] });
});

afterAll(async () => {
  await node?.stop();
  for (const w of witnesses) await w.stop().catch(() => {});
  for (const s of states) await s.close();
  await removeDir(dir);
});

const policy = (quorum: number): WitnessPolicy => ({
  kind: 'WitnessPolicy',
  log: ORIGIN,
  sequencer: log.keyRecord,
  witnesses: keys.map((k) => k.keyRecord),
  quorum,
});

function metricsSpy() {
  const values = new Map<string, number>();
  return { values, set: (n: string, v: number) => void values.set(n, v), inc: (n: string) => void values.set(n, (values.get(n) ?? 0) + 1) };
}

describe('checkpoint publisher', () => {
  let conns: WitnessConnection[] = [];
  afterAll(async () => {
    for (const c of conns) await c.close();
  });

  it('resynchronises through conflict, publishes at quorum and keeps the late cosignature', async () => {
    log.append(6);
    // Witness 0 already cosigned seq 6 (say, before the sequencer restarted): it will answer conflict.
    const r0 = await processAddCheckpoint(await log.request(0), {
      state: states[0],
      logs: { get: () => ({ log: ORIGIN, sequencer: log.keyRecord }) },
      signer: keys[0].signer,
      clock: Date.now,
    });
    expect(r0.ok).toBe(true);
    log.append(5);
    conns = addrs.map((a) => createWitnessConnection(node, a));
    const store = fakeStore(log);
    // An event when the store holds a checkpoint with all four signatures (no polling).
    let allFour!: () => void;
    const persistedWithFour = new Promise<void>((r) => (allFour = r));
    const put = store.putCheckpoint;
    store.putCheckpoint = async (c) => {
      await put(c);
      if ((store.checkpoints.get(c.seq)?.signature.length ?? 0) >= 1 + 3 * 2) allFour();
    };
    const pub = createCheckpointPublisher({ store, policy: policy(2), witnesses: conns }, { resubmitMs: 0 });
    const cp = await log.checkpoint();
    const out = await pub.publish(cp);
    expect(out).toBeDefined();
    expect(verifyCheckpoint(out!, policy(2))).toMatchObject({ ok: true });
    // The third cosignature arrives and is persisted with the checkpoint.
    await persistedWithFour;
    // Each witness answers its JCS cosignature and its cosignature/v1 (one key, two forms): both kept.
    expect(store.checkpoints.get(cp.seq)?.signature).toHaveLength(1 + 3 * 2);
    expect(pub.status().witnesses.map((w) => w.lastCosignedSeq)).toEqual([11, 11, 11]);
    // Each connection is named by the kid of its last valid cosignature (the explorer's witness table).
    expect(pub.status().witnesses.map((w) => w.kid)).toEqual(keys.map((k) => k.keyRecord.kid));
    expect(pub.latest()?.signature).toHaveLength(1 + 3 * 2);
    const v = verifyCheckpoint(pub.latest()!, policy(3));
    expect(v.ok && [...v.value.witnesses].sort()).toEqual(keys.map((k) => k.keyRecord.kid).sort()); // each witness once, in any order
    await pub.close();
  });

  it('re-submits an unchanged published checkpoint so cosignature timestamps stay fresh', async () => {
    const store = fakeStore(log);
    const pub = createCheckpointPublisher({ store, policy: policy(2), witnesses: conns }, { resubmitMs: 150 });
    pub.start();
    const old = log.size;
    log.append(2);
    const out = await pub.publish(await log.checkpoint());
    expect(out).toBeDefined();
    const first = new Map(out!.signature.slice(1).map((s) => [s.kid, s.signedAt]));
    const fresher = await waitFor(
      () => {
        const cp = store.checkpoints.get(old + 2);
        const later = cp?.signature.slice(1).filter((s) => first.has(s.kid) && s.signedAt > first.get(s.kid)!);
        return later && later.length >= 2 ? cp : undefined;
      },
      { timeoutMs: 10_000, what: 'fresh cosignatures' },
    );
    expect(verifyCheckpoint(fresher, policy(2)).ok).toBe(true);
    expect(pub.latest()!.hash).toBe(out!.hash);
    await pub.close();
  });

  it('a lost quorum is one quorum_lost line, its return one quorum_restored line', async () => {
    // Real witnesses behind connections that can be switched off (a witness unreachable).
    const down = new Set<number>();
    const cut = conns.slice(0, 2).map((c, i): WitnessConnection => ({
      addr: c.addr,
      get peerId() {
        return c.peerId;
      },
      get connected() {
        return c.connected;
      },
      request: (req, o) => (down.has(i) ? Promise.resolve(fail('witness_unavailable', `${c.addr}: switched off`)) : c.request(req, o)),
      close: async () => undefined,
    }));
    const logs = captureLogger('sequencer');
    const pub = createCheckpointPublisher(
      { store: fakeStore(log), policy: policy(2), witnesses: cut, logger: logs.logger },
      { resubmitMs: 0 },
    );
    log.append(1);
    expect(await pub.publish(await log.checkpoint())).toBeDefined();
    down.add(1);
    for (let i = 0; i < 3; i++) {
      log.append(1);
      expect(await pub.publish(await log.checkpoint())).toBeUndefined();
    }
    down.clear();
    log.append(1);
    expect(await pub.publish(await log.checkpoint())).toBeDefined();
    expect(logs.events('quorum_lost')).toEqual([expect.objectContaining({ level: 'warn', log: ORIGIN, event: 'quorum_lost' })]);
    expect(logs.events('quorum_restored')).toEqual([expect.objectContaining({ level: 'info', log: ORIGIN, event: 'quorum_restored' })]);
    // One witness_error when witness 1 went away, not one per unpublished checkpoint.
    expect(logs.events('witness_error')).toEqual([
      expect.objectContaining({ code: 'witness_unavailable', addr: cut[1].addr, transport: 'libp2p', log: ORIGIN }),
    ]);
    expect(logs.records.findIndex((r) => r.event === 'quorum_lost')).toBeLessThan(
      logs.records.findIndex((r) => r.event === 'quorum_restored'),
    );
    await pub.close();
  });

  it('one witness down: still published; two down: nothing published and the reason reported', async () => {
    const store = fakeStore(log);
    const metrics = metricsSpy();
    const logs = captureLogger('sequencer');
    const pub = createCheckpointPublisher(
      { store, policy: policy(2), witnesses: conns, logger: logs.logger, metrics },
      { resubmitMs: 0, timeoutMs: 2000 },
    );
    await witnesses[2].stop();
    const from = log.size;
    log.append(3);
    const out = await pub.publish(await log.checkpoint());
    expect(out && verifyCheckpoint(out, policy(2)).ok).toBe(true);
    expect(metrics.values.get('cookwala_quorum_missing')).toBe(0);
    await witnesses[1].stop();
    log.append(3);
    const lost = await pub.publish(await log.checkpoint());
    expect(lost).toBeUndefined();
    expect(metrics.values.get('cookwala_quorum_missing')).toBe(1);
    expect(pub.status()).toMatchObject({ quorumMissing: true });
    expect(pub.status().reason).toMatch(/1 cosignature \(quorum 2\)/);
    expect(pub.status().reason).toMatch(/unreachable/);
    expect(pub.status().witnesses[2].lastError).toMatch(/^witness_unavailable: /);
    expect(logs.events('quorum_lost')).toEqual([
      expect.objectContaining({
        level: 'warn',
        service: 'sequencer',
        log: ORIGIN,
        quorum: 2,
        reason: expect.stringMatching(/1 cosignature \(quorum 2\)/),
      }),
    ]);
    expect(logs.events('witness_error').map((r) => r.code)).toEqual(['witness_unavailable', 'witness_unavailable']);
    expect(pub.latest()?.seq).toBe(from + 3);
    await pub.close();
  });
});
