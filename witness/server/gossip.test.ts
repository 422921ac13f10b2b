// Gossip judgement (gossip.ts): a signed checkpoint that agrees with our state is accepted,
// garbage, unknown members and bad signatures are rejected, a conflicting checkpoint at our seq
// yields a ForkProof, and fork proofs are judged (real, non-fork, forged, unknown log).
import { describe, expect, it } from 'vitest';
import { encodeMessage } from '../wire/messages.ts';
import { judgeCheckpoint, judgeFork } from './gossip.ts';
import { buildForkProof } from '../../verifier/documents/fork-proof.ts';
import { cosignCheckpoint, addCosignature } from '../../verifier/documents/checkpoint.ts';
import { formatHash, formatTime } from '../../verifier/encoding/wire.ts';
import { createFakeLog, testKey } from '../../testkit/witness.ts';
import type { LogState } from './state.ts';
import type { AdmittedLog } from './add-checkpoint.ts';

const ORIGIN = 'example.org/g';

async function setup() {
  const log = createFakeLog(ORIGIN);
  log.append(5);
  const cosigned = await log.checkpoint();
  const w = testKey('gw', 'witness');
  const state: LogState = {
    log: ORIGIN,
    seq: 5,
    root: cosigned.root,
    head: cosigned.head,
    checkpoint: cosigned,
    cosignature: cosignCheckpoint(cosigned, w.signer, formatTime(Date.now())),
    version: 1,
    updatedAt: formatTime(Date.now()),
  };
  const admitted = new Map<string, AdmittedLog>([[ORIGIN, { log: ORIGIN, sequencer: log.keyRecord }]]);
  const deps = { logs: { get: (o: string) => admitted.get(o) }, state: { get: async (o: string) => (o === ORIGIN ? state : undefined) } };
  return { log, cosigned, deps, w };
}

describe('gossip judgement', () => {
  it('accepts a validly signed checkpoint (with cosignatures) that agrees with our state', async () => {
    const { cosigned, deps, w } = await setup();
    const cp = addCosignature(cosigned, cosignCheckpoint(cosigned, w.signer, formatTime(Date.now())));
    expect(await judgeCheckpoint(encodeMessage(cp), deps)).toMatchObject({ verdict: 'accept', reason: 'ok' });
  });

  it('rejects garbage, unknown fields and bad signatures; ignores logs it does not follow', async () => {
    const { cosigned, deps } = await setup();
    expect((await judgeCheckpoint(new TextEncoder().encode('{'), deps)).verdict).toBe('reject');
    expect((await judgeCheckpoint(Uint8Array.from([0xc3, 0x28]), deps)).verdict).toBe('reject');
    expect((await judgeCheckpoint(encodeMessage({ ...cosigned, extra: 1 }), deps)).verdict).toBe('reject');
    expect((await judgeCheckpoint(encodeMessage({ ...cosigned, root: formatHash(new Uint8Array(32)) }), deps)).verdict).toBe('reject');
    const other = createFakeLog('example.org/not-followed');
    other.append(1);
    expect(await judgeCheckpoint(encodeMessage(await other.checkpoint()), deps)).toMatchObject({
      verdict: 'ignore',
      reason: 'unknown_log',
    });
    const impostor = createFakeLog(ORIGIN, 'impostor');
    impostor.append(5);
    expect(await judgeCheckpoint(encodeMessage(await impostor.checkpoint()), deps)).toMatchObject({
      verdict: 'reject',
      reason: 'bad_signature',
    });
  });

  it('a conflicting checkpoint at our seq yields a ForkProof', async () => {
    const { log, deps } = await setup();
    const evil = log.fork();
    // Same history up to 5 in the fork's copy; rebuild a different seq-5 tree.
    const alt = createFakeLog(ORIGIN);
    alt.append(5);
    const j = await judgeCheckpoint(encodeMessage(await alt.checkpoint()), deps);
    expect(j.verdict).toBe('accept');
    expect(j.fork?.a.head).toBe(log.heads[5]);
    expect(j.fork?.b.head).toBe(alt.heads[5]);
    evil.append(1);
    // Another seq: nothing to compare with, accepted without a fork.
    expect((await judgeCheckpoint(encodeMessage(await evil.checkpoint()), deps)).fork).toBeUndefined();
  });

  it('judges fork proofs: a real one accepted, a non-fork or a forged one rejected, unknown logs ignored', async () => {
    const { log, cosigned, deps } = await setup();
    const alt = createFakeLog(ORIGIN);
    alt.append(5);
    const fp = buildForkProof(cosigned, await alt.checkpoint());
    expect(judgeFork(encodeMessage(fp), deps)).toMatchObject({ verdict: 'accept' });
    expect(judgeFork(encodeMessage({ ...fp, b: fp.a }), deps).verdict).toBe('reject');
    const impostor = createFakeLog(ORIGIN, 'impostor');
    impostor.append(5);
    expect(judgeFork(encodeMessage(buildForkProof(cosigned, await impostor.checkpoint())), deps).verdict).toBe('reject');
    expect(
      judgeFork(
        encodeMessage({
          ...fp,
          log: 'example.org/unknown',
          a: { ...fp.a, log: 'example.org/unknown' },
          b: { ...fp.b, log: 'example.org/unknown' },
        }),
        deps,
      ).verdict,
    ).toBe('ignore');
    expect(judgeFork(new TextEncoder().encode('[]'), deps).verdict).toBe('reject');
    void log;
  });
});
