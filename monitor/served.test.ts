// The quorum of a served C2SP checkpoint note (served.ts): a witness known to the auditor's policy only
// by its ML-DSA-44 vkey counts, by the subtree/v1 line it signs, as a cosignature/v1 witness does;
// a flipped ML-DSA-44 signature by a known key refuses the note, an unknown key's line is skipped.

import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { verifyPolicyNote } from './served.ts';
import { formatSignerKey, parseVerifierKey, SIG_MLDSA44 } from '../verifier/c2sp/note/index.ts';
import type { WitnessPolicy } from '../verifier/documents/index.ts';
import { toBase64url } from '../verifier/encoding/index.ts';
import { createMldsaCosigner } from '../witness/server/mldsa-cosigner.ts';
import { leafHash, mth, specSigner } from '../testkit/c2sp-log.ts';

const ORIGIN = 'monitor.example/pq-witnessed';
const seed = (tag: string): Uint8Array => createHash('sha256').update(tag).digest();

function setup() {
  const log = specSigner(ORIGIN, seed('log'));
  const known = createMldsaCosigner(formatSignerKey('pq.example/w1', SIG_MLDSA44, seed('w1')));
  const stranger = createMldsaCosigner(formatSignerKey('pq.example/w9', SIG_MLDSA44, seed('w9')));
  if (!known.ok || !stranger.ok) throw new Error('cosigner');
  const leaves = Array.from({ length: 5 }, (_, i) => leafHash(Buffer.from(`leaf ${i}`)));
  const root = mth(leaves);
  const body = `${ORIGIN}\n5\n${root.toString('base64')}\n`;
  const cp = { origin: ORIGIN, size: 5, rootHash: root };
  const line = (c: typeof known.value) => `\u2014 ${c.cosign(cp, Date.UTC(2026, 0, 1)).line}\n`;
  const logPub = parseVerifierKey(log.vkey);
  const wPub = parseVerifierKey(known.value.vkey);
  if (!logPub.ok || !wPub.ok) throw new Error('vkey');
  const policy: WitnessPolicy = {
    kind: 'WitnessPolicy',
    log: ORIGIN,
    sequencer: {
      kind: 'KeyRecord',
      kid: 'log-key',
      alg: 'EdDSA',
      publicKey: toBase64url(logPub.value.publicKey),
      owner: ORIGIN,
      role: 'sequencer',
      validFrom: '2020-01-01T00:00:00.000Z',
    },
    witnesses: [
      {
        kind: 'KeyRecord',
        kid: 'pq-w1',
        alg: 'ML-DSA-44',
        publicKey: toBase64url(wPub.value.publicKey),
        owner: 'pq.example/w1',
        role: 'witness',
        validFrom: '2020-01-01T00:00:00.000Z',
        vkey: known.value.vkey,
      },
    ],
    quorum: 1,
  };
  return { body, log, policy, knownLine: line(known.value), strangerLine: line(stranger.value) };
}

describe('verifyPolicyNote with an ML-DSA-44 witness', () => {
  const s = setup();

  it('counts the subtree/v1 line of a witness known by its 0x06 vkey, and skips an unknown one', () => {
    const r = verifyPolicyNote(`${s.body}\n${s.log.line(s.body)}${s.strangerLine}${s.knownLine}`, s.policy);
    expect(r.ok && r.value).toMatchObject({ size: 5, witnesses: ['pq-w1'] });
  });

  it('without that line the quorum is not met', () => {
    const r = verifyPolicyNote(`${s.body}\n${s.log.line(s.body)}${s.strangerLine}`, s.policy);
    expect(!r.ok && r.code).toBe('quorum_not_met');
  });

  it('a flipped byte in the known witness signature refuses the note', () => {
    const [, name, b64] = /^\u2014 (\S+) (\S+)\n$/.exec(s.knownLine)!;
    const raw = Buffer.from(b64, 'base64');
    raw[raw.length - 10] ^= 1;
    const r = verifyPolicyNote(`${s.body}\n${s.log.line(s.body)}\u2014 ${name} ${raw.toString('base64')}\n`, s.policy);
    expect(!r.ok && r.code).toBe('bad_signature');
  });
});
