// The witness's add-checkpoint decision (add-checkpoint.ts) over a real state store in a temp
// dir: first contact with a descriptor, consistent extensions, the seq-0 checkpoint, and each
// refusal by its code (unknown_log, bad_signature, descriptor_mismatch, conflict with knownSeq,
// inconsistent), with nothing changed by a refusal.
import { afterEach, describe, expect, it } from 'vitest';
import { formatHash, formatTime } from '../../verifier/encoding/wire.ts';
import { addCosignature, buildCheckpoint, verifyCheckpoint, type Checkpoint } from '../../verifier/documents/checkpoint.ts';
import { verifyForkProof, type ForkProof } from '../../verifier/documents/fork-proof.ts';
import { buildLogDescriptor } from '../../verifier/documents/log-descriptor.ts';
import { EMPTY_ROOT } from '../../verifier/merkle/index.ts';
import { documentHash } from '../../verifier/signing/document-hash.ts';
import { signHash } from '../../verifier/signing/signature.ts';
import { processAddCheckpoint, type AdmittedLog, type WitnessDeps } from './add-checkpoint.ts';
import { openStateStore, type StateStore } from './state.ts';
import { noLock } from './mutex.ts';
import { createFakeLog, testKey, TEST_EPOCH, type FakeLog } from '../../testkit/witness.ts';
import { tmpDir } from '../../testkit/tmp.ts';

const ORIGIN = 'example.org/missions/m-1';
const stores: StateStore[] = [];

/** A store in `dir`, or in a fresh temp dir removed after the test (testkit/tmp.ts, after the afterEach that closes it). */
async function tempStore(dir?: string): Promise<StateStore> {
  const d = dir ?? (await tmpDir('cookwala-witness-'));
  const s = await openStateStore(d);
  stores.push(s);
  return s;
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close().catch(() => {});
});

const witnessKey = testKey('w1', 'witness');

function deps(state: StateStore, log: FakeLog, extra: Partial<WitnessDeps> = {}): WitnessDeps & { forks: ForkProof[]; now: { t: number } } {
  const admitted = new Map<string, AdmittedLog>([[log.origin, { log: log.origin, sequencer: log.keyRecord }]]);
  const forks: ForkProof[] = [];
  const now = { t: Date.parse('2026-01-01T00:00:00.000Z') };
  return {
    state,
    logs: { get: (o) => admitted.get(o) },
    signer: witnessKey.signer,
    clock: () => now.t,
    onFork: (fp) => void forks.push(fp),
    forks,
    now,
    ...extra,
  };
}

const policyFor = (log: FakeLog) => ({
  kind: 'WitnessPolicy' as const,
  log: log.origin,
  sequencer: log.keyRecord,
  witnesses: [witnessKey.keyRecord],
  quorum: 1,
});

describe('processAddCheckpoint', () => {
  it('cosigns a first checkpoint with its descriptor, then a consistent extension; the cosignature verifies', async () => {
    const log = createFakeLog(ORIGIN);
    const d = deps(await tempStore(), log);
    log.append(5);
    const r1 = await processAddCheckpoint(await log.request(0), d);
    expect(r1.ok).toBe(true);
    log.append(6);
    const cp = await log.checkpoint();
    const r2 = await processAddCheckpoint(await log.request(5, cp), d);
    if (!r2.ok) throw new Error(r2.detail);
    expect(r2.value.kid).toBe(witnessKey.signer.kid);
    expect(verifyCheckpoint(addCosignature(cp, r2.value), policyFor(log)).ok).toBe(true);
    const st = await d.state.get(ORIGIN);
    expect(st).toMatchObject({ seq: 11, head: log.heads[11], root: cp.root, descriptorHash: log.descriptor.hash });
  });

  it('cosigns the checkpoint at seq 0 (descriptor hash as head, empty root) and refuses another head there', async () => {
    const log = createFakeLog(ORIGIN);
    const d = deps(await tempStore(), log);
    const cp0 = await log.checkpoint(0);
    expect(cp0.root).toBe(formatHash(EMPTY_ROOT));
    expect((await processAddCheckpoint(await log.request(0, cp0), d)).ok).toBe(true);
    const d2 = deps(await tempStore(), log);
    const bad = buildCheckpoint(
      { log: ORIGIN, seq: 0, head: formatHash(new Uint8Array(32)), root: cp0.root },
      log.signer,
      formatTime(Date.now()),
    );
    const r = await processAddCheckpoint(await log.request(0, bad), d2);
    expect(r.ok ? 'ok' : r.code).toBe('inconsistent');
  });

  it('unknown_log for a log not admitted by configuration', async () => {
    const log = createFakeLog(ORIGIN);
    const other = createFakeLog('example.org/other');
    other.append(1);
    const r = await processAddCheckpoint(await other.request(0), deps(await tempStore(), log));
    expect(r.ok ? 'ok' : r.code).toBe('unknown_log');
  });

  it('bad_signature: another key, a tampered root, a forged descriptor (descriptor_mismatch when it names another key)', async () => {
    const log = createFakeLog(ORIGIN);
    const impostor = createFakeLog(ORIGIN, 'impostor');
    const d = deps(await tempStore(), log);
    impostor.append(2);
    const r1 = await processAddCheckpoint(await impostor.request(0), d);
    expect(r1.ok ? 'ok' : r1.code).toBe('bad_signature');
    log.append(2);
    const req = await log.request(0);
    const tampered = { ...req, checkpoint: { ...req.checkpoint, root: formatHash(new Uint8Array(32).fill(7)) } };
    const r2 = await processAddCheckpoint(tampered, d);
    expect(r2.ok ? 'ok' : r2.code).toBe('bad_signature');
    const r3 = await processAddCheckpoint({ ...req, descriptor: impostor.descriptor }, d);
    expect(r3.ok ? 'ok' : r3.code).toBe('descriptor_mismatch');
    // The admitted kid, but not its signature.
    const body = { ...impostor.descriptor, sequencer: log.keyRecord.kid };
    const forged = { ...body, hash: documentHash(body as never), signature: { ...impostor.descriptor.signature, kid: log.keyRecord.kid } };
    const r4 = await processAddCheckpoint({ ...req, descriptor: forged }, d);
    expect(r4.ok ? 'ok' : r4.code).toBe('bad_signature');
    expect(await d.state.get(ORIGIN)).toBeUndefined();
  });

  it('first contact needs oldSeq 0 (conflict, knownSeq 0) and the descriptor (invalid_document); a descriptor of another log is refused', async () => {
    const log = createFakeLog(ORIGIN);
    const d = deps(await tempStore(), log);
    log.append(4);
    const r1 = await processAddCheckpoint(await log.request(2), d);
    expect(r1).toMatchObject({ ok: false, code: 'conflict', knownSeq: 0 });
    const { descriptor: _d, ...noDescriptor } = await log.request(0);
    const r2 = await processAddCheckpoint(noDescriptor, d);
    expect(r2.ok ? 'ok' : r2.code).toBe('invalid_document');
    const otherDescriptor = buildLogDescriptor({ log: 'example.org/elsewhere', mode: 'full', createdAt: TEST_EPOCH }, log.signer);
    const r3 = await processAddCheckpoint({ ...(await log.request(0)), descriptor: otherDescriptor }, d);
    expect(r3.ok).toBe(false);
  });

  it('conflict with knownSeq for a wrong oldSeq and for an older seq; nothing changes', async () => {
    const log = createFakeLog(ORIGIN);
    const d = deps(await tempStore(), log);
    log.append(8);
    expect((await processAddCheckpoint(await log.request(0), d)).ok).toBe(true);
    log.append(4);
    const r1 = await processAddCheckpoint(await log.request(5), d);
    expect(r1).toMatchObject({ ok: false, code: 'conflict', knownSeq: 8 });
    const r2 = await processAddCheckpoint(await log.request(3, await log.checkpoint(6)), d);
    expect(r2).toMatchObject({ ok: false, code: 'conflict', knownSeq: 8 });
    expect((await d.state.get(ORIGIN))?.seq).toBe(8);
    // Another genesis for this origin under the same key is refused, not treated as a resend.
    const regenesis = buildLogDescriptor({ log: ORIGIN, mode: 'full', createdAt: '2021-01-01T00:00:00.000Z' }, log.signer);
    const r3 = await processAddCheckpoint({ ...(await log.request(0)), descriptor: regenesis }, d);
    expect(r3).toMatchObject({ ok: false, code: 'descriptor_mismatch', knownSeq: 8 });
    // The resend from knownSeq succeeds.
    expect((await processAddCheckpoint(await log.request(8), d)).ok).toBe(true);
  });

  it('inconsistent: a bad consistency proof, a bad head proof, a head that is not the last leaf', async () => {
    const log = createFakeLog(ORIGIN);
    const d = deps(await tempStore(), log);
    log.append(7);
    expect((await processAddCheckpoint(await log.request(0), d)).ok).toBe(true);
    log.append(9);
    const good = await log.request(7);
    const flip = (hs: string[]) => hs.map((h, i) => (i === 0 ? formatHash(new Uint8Array(32).fill(1)) : h));
    for (const bad of [
      { ...good, consistency: flip(good.consistency) },
      { ...good, consistency: good.consistency.slice(1) },
      { ...good, headProof: flip(good.headProof) },
      { ...good, headProof: [] },
    ]) {
      const r = await processAddCheckpoint(bad, d);
      expect(r.ok ? 'ok' : r.code).toBe('inconsistent');
    }
    // A validly signed checkpoint whose head is entry 15's, not 16's.
    const wrongHead = buildCheckpoint(
      { log: ORIGIN, seq: 16, head: log.heads[15], root: await log.rootAt(16) },
      log.signer,
      formatTime(Date.now()),
    );
    const r = await processAddCheckpoint(await log.request(7, wrongHead), d);
    expect(r.ok ? 'ok' : r.code).toBe('inconsistent');
    // A tree that does not extend the cosigned one.
    const forked = createFakeLog(ORIGIN);
    forked.append(16);
    const r2 = await processAddCheckpoint({ ...(await forked.request(7)), descriptor: undefined }, d);
    expect(r2.ok ? 'ok' : r2.code).toBe('inconsistent');
    expect((await d.state.get(ORIGIN))?.seq).toBe(7);
    expect((await processAddCheckpoint(good, d)).ok).toBe(true);
  });

  it('the same checkpoint again gets a fresh cosignature (new signedAt)', async () => {
    const log = createFakeLog(ORIGIN);
    const d = deps(await tempStore(), log);
    log.append(3);
    const cp = await log.checkpoint();
    const r1 = await processAddCheckpoint(await log.request(0, cp), d);
    d.now.t += 60_000;
    const r2 = await processAddCheckpoint(await log.request(3, cp), d);
    if (!r1.ok || !r2.ok) throw new Error('expected cosignatures');
    expect(r2.value.signedAt > r1.value.signedAt).toBe(true);
    expect(verifyCheckpoint(addCosignature(cp, r2.value), policyFor(log)).ok).toBe(true);
  });

  it('a same-tree checkpoint with another hash (an x- member) re-cosigned: the stored checkpoint is the one the stored cosignature covers', async () => {
    const log = createFakeLog(ORIGIN);
    const d = deps(await tempStore(), log);
    log.append(3);
    const cp = await log.checkpoint();
    expect((await processAddCheckpoint(await log.request(0, cp), d)).ok).toBe(true);
    const body = { kind: 'Checkpoint' as const, log: cp.log, seq: cp.seq, head: cp.head, root: cp.root, 'x-acme-note': 'same tree' };
    const h = documentHash(body);
    const vendor = { ...body, hash: h, signature: [signHash(h, 'Checkpoint', log.signer, formatTime(Date.now()))] } as Checkpoint;
    expect(vendor.hash).not.toBe(cp.hash);
    d.now.t += 60_000;
    const r = await processAddCheckpoint(await log.request(3, vendor), d);
    if (!r.ok) throw new Error(r.detail);
    const st = (await d.state.get(ORIGIN))!;
    expect(st.cosignature).toEqual(r.value);
    expect(verifyCheckpoint(addCosignature(st.checkpoint!, st.cosignature!), policyFor(log)).ok).toBe(true);
  });

  it('fork_detected at the same seq with another head or root: a ForkProof that verifies, stored and handed on once', async () => {
    const log = createFakeLog(ORIGIN);
    const d = deps(await tempStore(), log);
    log.append(4);
    expect((await processAddCheckpoint(await log.request(0), d)).ok).toBe(true);
    const evil = log.fork();
    log.append(3);
    evil.append(3);
    expect((await processAddCheckpoint(await log.request(4), d)).ok).toBe(true);
    const req = await evil.request(4);
    const r = await processAddCheckpoint(req, d);
    expect(r).toMatchObject({ ok: false, code: 'fork_detected', knownSeq: 7 });
    const fp = (r as unknown as { forkProof: ForkProof }).forkProof;
    expect(verifyForkProof(fp, log.keyRecord)).toMatchObject({ ok: true, value: { seq: 7 } });
    expect(await d.state.forks(ORIGIN)).toHaveLength(1);
    // Asked again: refused again, but the fork is reported (stored, gossiped) only once.
    const again = await processAddCheckpoint(req, d);
    expect(again.ok ? 'ok' : again.code).toBe('fork_detected');
    expect(d.forks).toHaveLength(1);
    expect(await d.state.forks(ORIGIN)).toHaveLength(1);
    // Fork precedes conflict: a wrong oldSeq does not hide a provable fork.
    const r3 = await processAddCheckpoint({ ...req, oldSeq: 2 }, d);
    expect(r3.ok ? 'ok' : r3.code).toBe('fork_detected');
    expect((await d.state.get(ORIGIN))?.head).toBe(log.heads[7]);
  });

  it('stall hook, with the per-log lock: of two racing checkpoints at one seq exactly one is cosigned, the other is a fork', async () => {
    const log = createFakeLog(ORIGIN);
    const state = await tempStore();
    log.append(3);
    expect((await processAddCheckpoint(await log.request(0), deps(state, log))).ok).toBe(true);
    const evil = log.fork();
    log.append(2);
    evil.append(2);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let stalls = 0;
    const d = deps(state, log, {
      hooks: {
        afterCheck: async () => {
          stalls++;
          if (stalls === 1) await gate;
        },
      },
    });
    const p1 = processAddCheckpoint(await log.request(3), d);
    const p2 = processAddCheckpoint(await evil.request(3), d);
    await new Promise((r) => setTimeout(r, 50));
    // The second is held at the lock: only one request is in the window.
    expect(stalls).toBe(1);
    release();
    const [r1, r2] = await Promise.all([p1, p2]);
    expect(r1.ok).toBe(true);
    expect(r2.ok ? 'ok' : r2.code).toBe('fork_detected');
    expect((await state.get(ORIGIN))?.head).toBe(log.heads[5]);
  });

  it('stall hook, without the lock: both pass the checks, the version check lets exactly one commit', async () => {
    const log = createFakeLog(ORIGIN);
    const state = await tempStore();
    log.append(3);
    expect((await processAddCheckpoint(await log.request(0), deps(state, log))).ok).toBe(true);
    const evil = log.fork();
    log.append(2);
    evil.append(2);
    let arrived = 0;
    let open!: () => void;
    const both = new Promise<void>((r) => (open = r));
    const hook = async () => {
      arrived++;
      if (arrived === 2) open();
      if (arrived <= 2) await both; // both requests are inside the window between check and commit
    };
    const d = deps(state, log, { lock: noLock, hooks: { afterCheck: hook } });
    const [r1, r2] = await Promise.all([processAddCheckpoint(await log.request(3), d), processAddCheckpoint(await evil.request(3), d)]);
    expect(arrived).toBeGreaterThanOrEqual(2);
    const results = [r1, r2].map((r) => (r.ok ? 'ok' : r.code)).sort();
    expect(results).toEqual(['fork_detected', 'ok']);
    const winner = r1.ok ? log : evil;
    expect((await state.get(ORIGIN))?.head).toBe(winner.heads[5]);
  });

  it('state survives a restart: an older or conflicting checkpoint is never cosigned, and re-admitting the log does not reset it', async () => {
    const dir = await tmpDir('cookwala-witness-');
    const log = createFakeLog(ORIGIN);
    const s1 = await tempStore(dir);
    log.append(10);
    expect((await processAddCheckpoint(await log.request(0), deps(s1, log))).ok).toBe(true);
    await s1.close();
    stores.splice(stores.indexOf(s1), 1);
    const s2 = await tempStore(dir);
    const d2 = deps(s2, log); // a fresh admission of the same log
    expect((await s2.get(ORIGIN))?.seq).toBe(10);
    const older = await processAddCheckpoint(await log.request(0, await log.checkpoint(6)), d2);
    expect(older).toMatchObject({ ok: false, code: 'conflict', knownSeq: 10 });
    const evil = log.fork();
    evil.append(1);
    log.append(1);
    expect((await processAddCheckpoint(await log.request(10), d2)).ok).toBe(true);
    const conflicting = await processAddCheckpoint(await evil.request(10), d2);
    expect(conflicting.ok ? 'ok' : conflicting.code).toBe('fork_detected');
  });

  it('a checkpoint carrying cosignatures is judged by its sequencer signature alone and stored without them', async () => {
    const log = createFakeLog(ORIGIN);
    const d = deps(await tempStore(), log);
    log.append(2);
    const cp: Checkpoint = addCosignature(await log.checkpoint(), {
      alg: 'EdDSA',
      kid: 'wit-x',
      signedAt: formatTime(Date.now()),
      sig: 'AAAA',
    });
    expect((await processAddCheckpoint(await log.request(0, cp), d)).ok).toBe(true);
    expect((await d.state.get(ORIGIN))?.checkpoint?.signature).toHaveLength(1);
  });
});
