// WitnessPolicy <-> C2SP tlog-policy text (tlog-policy.ts; C2SP commit
// 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): the round trip is lossless (the #cookwala records),
// plain tlog-policy text from another tool reads into a policy with derived KeyRecords, the
// quorum forms map both ways, and what one side cannot express is refused with malformed_policy;
// the policy and tlog-proof readers never throw on hostile text (fast-check).
import { witnessFingerprint } from '../signing/witness-identity.ts';
import { describe, expect, it } from 'vitest';
import { policyFromTlog, policyToTlog, tlogDrops } from './tlog-policy.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../documents/policy.ts';
import { logVkeyOf } from '../documents/checkpoint-c2sp.ts';
import { formatVerifierKey, SIG_COSIGNATURE_V1 } from './note/index.ts';
import { keyFor, LOG, signerFor } from '../../testkit/verifier-fixtures.ts';

const seqSigner = signerFor('EdDSA', 'seq-9', 91);
const seqKey = keyFor(seqSigner, 'sequencer', 'cookwala:sequencer');
const witness = (i: number, url?: string) => {
  const s = signerFor('EdDSA', `w-${i}`, 91 + i);
  return {
    ...keyFor(s, 'witness', `w${i}.example`),
    vkey: formatVerifierKey(`w${i}.example`, SIG_COSIGNATURE_V1, s.publicKey),
    ...(url ? { url } : {}),
  };
};
const policyOf = (n: number, quorum: number): WitnessPolicy => {
  const p = readWitnessPolicy({
    kind: 'WitnessPolicy',
    log: LOG,
    sequencer: seqKey,
    witnesses: Array.from({ length: n }, (_, i) => witness(i + 1, i === 0 ? 'https://w1.example/submit' : undefined)),
    quorum,
  });
  if (!p.ok) throw new Error(p.detail);
  return p.value;
};
const logVkey = (logVkeyOf(LOG, seqKey) as { value: string }).value;

describe('tlog-policy conversion', () => {
  it.each([
    [3, 2, 'group cookwala-quorum 2 w-1 w-2 w-3'],
    [3, 3, 'group cookwala-quorum all w-1 w-2 w-3'],
    [1, 1, 'quorum w-1'],
    [2, 0, 'quorum none'],
  ])('round-trips %i witnesses with quorum %i losslessly (%s)', (n, k, line) => {
    const p = policyOf(n, k);
    const t = policyToTlog(p);
    expect(t.ok).toBe(true);
    if (!t.ok) return;
    expect(t.value).toContain(`\nlog ${logVkey}\n`);
    expect(t.value).toContain(`\nwitness w-1 ${p.witnesses[0].vkey} https://w1.example/submit\n`);
    expect(t.value).toContain(line);
    expect(policyFromTlog(t.value)).toEqual({ ok: true, value: p });
    expect(policyFromTlog(new TextEncoder().encode(t.value))).toEqual({ ok: true, value: p });
  });

  it('names the timeBounds it cannot write, and reads back a policy without them', () => {
    expect(tlogDrops(policyOf(2, 1))).toEqual([]);
    const p = readWitnessPolicy({ ...policyOf(2, 1), timeBounds: { required: false, maxClockSkewMs: 60_000 } });
    expect(p.ok).toBe(true);
    if (!p.ok) return;
    const drops = tlogDrops(p.value);
    expect(drops).toHaveLength(1);
    expect(drops[0]).toMatch(/^timeBounds \(required false, maxClockSkewMs 60000\): tlog-policy has no line for time bounds/);
    const t = policyToTlog(p.value);
    expect(t.ok && t.value).not.toMatch(/timeBounds|60000/);
    const back = t.ok ? policyFromTlog(t.value) : t;
    expect(back.ok && back.value.timeBounds).toBeUndefined();
  });

  it('reads plain tlog-policy text from another tool, deriving the KeyRecords', () => {
    const [w1, w2] = [witness(1), witness(2)];
    const text = `# from elsewhere\n  log ${logVkey}\n\twitness X1 ${w1.vkey} https://x1.example/\nwitness X2   ${w2.vkey}\ngroup G any X1 X2\nquorum G\n`;
    const r = policyFromTlog(text);
    expect(r).toMatchObject({
      ok: true,
      value: {
        log: LOG,
        quorum: 1,
        sequencer: { kid: expect.stringMatching(/^seq-/), publicKey: seqKey.publicKey, role: 'sequencer' },
        witnesses: [
          // The kid is the key's fingerprint, never the policy-local name X1 (nothing signs as X1).
          { kid: witnessFingerprint(w1), owner: 'w1.example', publicKey: w1.publicKey, vkey: w1.vkey, url: 'https://x1.example/' },
          { kid: witnessFingerprint(w2), vkey: w2.vkey },
        ],
      },
    });
  });

  it('refuses what has no other form, and text that breaks the grammar', () => {
    const [w1, w2, w3] = [witness(1), witness(2), witness(3)];
    const L = `log ${logVkey}\n`;
    const cases: Array<[string, RegExp]> = [
      [
        `${L}witness A ${w1.vkey}\nwitness B ${w2.vkey}\nwitness C ${w3.vkey}\ngroup G1 any A B\ngroup G2 all G1 C\nquorum G2\n`,
        /nested or partial/,
      ],
      [`${L}witness A ${w1.vkey}\nwitness B ${w2.vkey}\nquorum A\n`, /names one witness of 2/],
      [`${L}${L}quorum none\n`, /several/],
      [`${L}witness A ${w1.vkey}\ngroup G 1 A B\nquorum G\n`, /B is not defined/],
      [`${L}witness A ${w1.vkey}\nwitness B ${w1.vkey}\nquorum none\n`, /duplicates/],
      [`${L}witness A ${w1.vkey}\ngroup G 2 A\nquorum G\n`, /threshold/],
      [`${L}witness A ${w1.vkey}\ngroup G any A A\nquorum G\n`, /twice/],
      [`${L}witness none ${w1.vkey}\nquorum none\n`, /reserved/],
      [`${L}witness A ${logVkey}\nquorum none\n`, /cosignature\/v1/],
      [`${L}quorum none\nquorum none\n`, /exactly one quorum/],
      [`${L}witness A ${w1.vkey}\n`, /no quorum/],
      [`quorum none\n`, /no log line/],
      [`${L}quorum none\r\n`, /octet 0x0d/],
      [`${L}monitor x\nquorum none\n`, /unknown line kind/],
    ];
    for (const [text, why] of cases)
      expect(policyFromTlog(text)).toMatchObject({ ok: false, code: 'malformed_policy', detail: expect.stringMatching(why) });
    const { vkey: _v, ...noVkey } = policyOf(1, 1).witnesses[0];
    expect(policyToTlog({ ...policyOf(1, 1), witnesses: [noVkey] })).toMatchObject({
      ok: false,
      code: 'malformed_policy',
      detail: expect.stringMatching(/no vkey/),
    });
  });
});

describe('tlog-policy and tlog-proof readers on hostile text', () => {
  it('never throw: any text is a policy, a proof, or a named refusal', async () => {
    const { default: fc } = await import('fast-check');
    const { parseTlogProof } = await import('./tlog-proof.ts');
    const lines = fc.array(
      fc.oneof(
        fc.constantFrom(
          'log ',
          'witness ',
          'group ',
          'quorum ',
          'c2sp.org/tlog-proof@v1',
          'extra ',
          'index ',
          '#cookwala {',
          '',
          logVkey,
          'none',
          'all',
        ),
        fc.string({ maxLength: 30 }),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(lines, (ls) => {
        const text = ls.join('\n');
        const p = policyFromTlog(text);
        if (!p.ok) expect(['malformed_policy', 'invalid_document', 'weak_key', 'malformed_vkey']).toContain(p.code);
        const q = parseTlogProof(text);
        if (!q.ok) expect(q.code).toBe('malformed_proof');
      }),
    );
  });
});
