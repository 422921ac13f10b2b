// The witness policy (docs/design.md §4): strict reading, quorum default, and the rules a schema cannot say.
import { describe, expect, it } from 'vitest';
import { readWitnessPolicy, type WitnessPolicy } from './policy.ts';
import { readDocument } from './read.ts';
import { clone, deepFreeze, keyFor, LOG, signerFor } from '../../testkit/verifier-fixtures.ts';

const seq = keyFor(signerFor('EdDSA', 'seq-1', 51), 'sequencer', 'kitchen.example.org');
const w1 = keyFor(signerFor('EdDSA', 'w-1', 52), 'witness', 'witness-one.example');
const w2 = keyFor(signerFor('ES256', 'w-2', 53), 'witness', 'witness-two.example');
const policy = { kind: 'WitnessPolicy', log: LOG, sequencer: seq, witnesses: [w1, w2], quorum: 2 };

describe('readWitnessPolicy', () => {
  it('reads a policy and returns a new object; the input is not changed', () => {
    const input = deepFreeze(clone(policy));
    const r = readWitnessPolicy(input);
    expect(r).toEqual({ ok: true, value: policy });
    expect(r.ok && r.value).not.toBe(input);
  });

  it('quorum defaults to 1; 0 is accepted (a sequencer with no witnesses yet)', () => {
    const { quorum: _q, ...noQuorum } = policy;
    expect(readWitnessPolicy(noQuorum)).toMatchObject({ ok: true, value: { quorum: 1 } });
    expect(noQuorum).not.toHaveProperty('quorum');
    expect(readWitnessPolicy({ ...policy, witnesses: [], quorum: 0 })).toMatchObject({ ok: true, value: { quorum: 0 } });
    expect(readWitnessPolicy({ ...policy, witnesses: [] })).toMatchObject({ ok: false, code: 'invalid_document', path: '/quorum' });
  });

  it('is the same as readDocument("WitnessPolicy")', () => {
    expect(readDocument('WitnessPolicy', policy)).toEqual(readWitnessPolicy(policy));
  });

  it('refuses non-objects, another kind, unknown members, and schema breaks', () => {
    for (const x of [null, [], 'p']) expect(readWitnessPolicy(x)).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(readWitnessPolicy({ ...policy, kind: 'Policy' })).toMatchObject({ ok: false, code: 'invalid_document', path: '/kind' });
    expect(readWitnessPolicy({ ...policy, extra: 1 })).toMatchObject({ ok: false, code: 'unknown_field', path: '/extra' });
    expect(readWitnessPolicy({ ...policy, witnesses: [{ ...w1, colour: 'red' }] })).toMatchObject({
      ok: false,
      code: 'unknown_field',
      path: '/witnesses/0/colour',
    });
    expect(readWitnessPolicy({ ...policy, 'x-acme-comment': 'ok' })).toMatchObject({ ok: true });
    expect(readWitnessPolicy({ ...policy, log: 'https://x/y' })).toMatchObject({ ok: false, code: 'invalid_origin', path: '/log' });
    expect(readWitnessPolicy({ ...policy, quorum: 1.5 })).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(readWitnessPolicy({ ...policy, quorum: -1 })).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(readWitnessPolicy({ ...policy, sequencer: { ...seq, alg: 'RS256' } })).toMatchObject({ ok: false, code: 'unsupported_alg' });
  });

  it('refuses wrong roles, repeated kids, shared public keys, bad keys and an unreachable quorum', () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ sequencer: { ...seq, role: 'witness' } }, '/sequencer/role'],
      [{ witnesses: [{ ...w1, role: 'device' }, w2] }, '/witnesses/0/role'],
      [{ witnesses: [w1, { ...w2, kid: 'w-1' }] }, '/witnesses/1/kid'],
      [{ witnesses: [w1, { ...w2, kid: 'seq-1' }] }, '/witnesses/1/kid'],
      [{ witnesses: [w1, { ...seq, kid: 'w-3', role: 'witness' }] }, '/witnesses/1/publicKey'],
      [{ witnesses: [w1, { ...w1, kid: 'w-3' }] }, '/witnesses/1/publicKey'],
      [{ witnesses: [w1, { ...w2, publicKey: w1.publicKey }] }, '/witnesses/1'],
      [{ sequencer: { ...seq, publicKey: 'AAAA' } }, '/sequencer'],
      [{ quorum: 3 }, '/quorum'],
    ];
    for (const [change, path] of bad)
      expect(readWitnessPolicy({ ...policy, ...change }), JSON.stringify(change).slice(0, 60)).toMatchObject({
        ok: false,
        code: 'invalid_document',
        path,
      });
  });

  it('typed use: a WitnessPolicy value is what verifyCheckpoint takes', () => {
    const r = readWitnessPolicy(policy);
    const p: WitnessPolicy | undefined = r.ok ? r.value : undefined;
    expect(p?.witnesses.map((k) => k.kid)).toEqual(['w-1', 'w-2']);
  });
});
