// The identity-point key (a known forgery; and a mixed-order and a y >= p key) is refused with weak_key
// at every place a key enters the core: KeyRecord reading, the witness policy, the key cache (in
// memory and from files through auditor/trust-files.ts), C2SP vkeys (Ed25519 and
// cosignature/v1), and in verification: a document "signed" by the forgery (which raw OpenSSL
// accepts) and a bundle whose sequencer-signed KeyRecord holds the identity key.
import { afterAll, describe, expect, it } from 'vitest';
import * as nc from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IDENTITY, NONCANONICAL_Y, T8, identityForgery, keyOf } from '../../testkit/ed25519-adversarial.ts';
import { toBase64url } from '../encoding/wire.ts';
import { parseKeyCache, publicKeyBytes, validKeyRecordShape, type KeyRecord } from '../signing/keys.ts';
import { readDocument } from '../documents/read.ts';
import { readWitnessPolicy } from '../documents/policy.ts';
import { createNoteVerifier, formatVerifierKey, parseVerifierKey, SIG_COSIGNATURE_V1, SIG_ED25519 } from '../c2sp/note/keys.ts';
import { signDocument, signingHeader, signingHeaderBytes, verifyDocument, verifyHashSignature, type Signer } from '../signing/signature.ts';
import { createBundleVerifier } from '../bundle/verifier.ts';
import type { JsonObject } from '../signing/document-hash.ts';
import { fakeHash, keyFor, signerFor, T0 } from '../../testkit/verifier-fixtures.ts';
import { readKeyCacheFile, readPolicyFile } from '../../auditor/trust-files.ts';
import { generateLog } from '../../testkit/log-generator.ts';
import { tempDirs } from '../../testkit/tmp.ts';

const tmp = tempDirs();
afterAll(() => tmp.cleanup());

const WEAK: Array<[string, Uint8Array]> = [
  ['the identity point', IDENTITY],
  ['a mixed-order key', keyOf(424242n, T8)],
  ['a y >= p encoding', NONCANONICAL_Y[0]],
];
const good = keyFor(signerFor('EdDSA', 'dev-1', 1), 'device', 'urn:cookwala:device:oven-7');
const withKey = (k: KeyRecord, pub: Uint8Array): KeyRecord => ({ ...k, publicKey: toBase64url(pub) });
const seqKey = keyFor(signerFor('EdDSA', 'seq-1', 2), 'sequencer', 'cookwala:sequencer');
const witKey = keyFor(signerFor('EdDSA', 'wit-1', 3), 'witness', 'witness-1');
const policyOf = (o: Partial<{ sequencer: KeyRecord; witnesses: KeyRecord[] }>) => ({
  kind: 'WitnessPolicy',
  log: 'kitchen.example.org/missions/m-0042',
  sequencer: seqKey,
  witnesses: [witKey],
  quorum: 1,
  ...o,
});

describe('KeyRecord, policy and key cache reading refuse weak keys with weak_key', () => {
  it.each(WEAK)('%s', (_name, pub) => {
    const bad = withKey(good, pub);
    expect(validKeyRecordShape(good)).toEqual({ ok: true, value: true });
    expect(publicKeyBytes(bad)).toMatchObject({ ok: false, code: 'weak_key' });
    expect(validKeyRecordShape(bad)).toMatchObject({ ok: false, code: 'weak_key' });
    expect(readDocument('KeyRecord', bad)).toMatchObject({ ok: false, code: 'weak_key', path: '/' });
    expect(readDocument('KeyCache', { kind: 'KeyCache', keys: [good, bad] })).toMatchObject({
      ok: false,
      code: 'weak_key',
      path: '/keys/1',
    });
    expect(parseKeyCache({ kind: 'KeyCache', keys: [bad] })).toMatchObject({ ok: false, code: 'weak_key' });
    expect(readWitnessPolicy(policyOf({}))).toMatchObject({ ok: true });
    expect(readWitnessPolicy(policyOf({ sequencer: withKey(seqKey, pub) }))).toMatchObject({
      ok: false,
      code: 'weak_key',
      path: '/sequencer',
    });
    expect(readWitnessPolicy(policyOf({ witnesses: [withKey(witKey, pub)] }))).toMatchObject({
      ok: false,
      code: 'weak_key',
      path: '/witnesses/0',
    });
    expect(readDocument('WitnessPolicy', policyOf({ witnesses: [withKey(witKey, pub)] }))).toMatchObject({ ok: false, code: 'weak_key' });
  });

  it('an ES256 key is not subject to the Ed25519 rule', () => {
    const p = keyFor(signerFor('ES256', 'dev-p', 4), 'device', 'urn:cookwala:device:oven-8');
    expect(validKeyRecordShape(p)).toEqual({ ok: true, value: true });
  });

  it("the auditor's policy and key cache files with the identity key are unusable input naming weak_key", async () => {
    const dir = await tmp.make();
    await writeFile(join(dir, 'keys.json'), JSON.stringify({ kind: 'KeyCache', keys: [withKey(good, IDENTITY)] }));
    await writeFile(join(dir, 'policy.json'), JSON.stringify(policyOf({ witnesses: [withKey(witKey, IDENTITY)] })));
    await writeFile(join(dir, 'ok.json'), JSON.stringify({ kind: 'KeyCache', keys: [good] }));
    await expect(readKeyCacheFile(join(dir, 'keys.json'))).rejects.toThrow(/not a KeyCache: weak_key: .*identity/);
    await expect(readPolicyFile(join(dir, 'policy.json'))).rejects.toThrow(/not a WitnessPolicy: weak_key/);
    expect((await readKeyCacheFile(join(dir, 'ok.json'))).map((k) => k.kid)).toEqual(['dev-1']);
  });
});

describe('C2SP vkeys refuse weak keys with weak_key', () => {
  it.each(WEAK)('%s, as an Ed25519 and a cosignature/v1 key (with a key ID that matches it)', (_name, pub) => {
    for (const type of [SIG_ED25519, SIG_COSIGNATURE_V1]) {
      const vkey = formatVerifierKey('witness.example.org', type, pub);
      expect(parseVerifierKey(vkey)).toMatchObject({ ok: false, code: 'weak_key' });
      expect(createNoteVerifier(vkey)).toMatchObject({ ok: false, code: 'weak_key' });
    }
    const honest = formatVerifierKey('witness.example.org', SIG_ED25519, keyOf(7n));
    expect(createNoteVerifier(honest).ok).toBe(true);
  });
});

describe('verification refuses the identity key with weak_key', () => {
  // A "signer" holding the identity key: every signature is R = [a]B, S = a.
  const forger: Signer = { kid: 'dev-weak', alg: 'EdDSA', publicKey: IDENTITY, sign: () => identityForgery(31337n).sig };
  const record: KeyRecord = {
    kind: 'KeyRecord',
    kid: 'dev-weak',
    alg: 'EdDSA',
    publicKey: toBase64url(IDENTITY),
    owner: 'urn:cookwala:device:evil',
    role: 'device',
    validFrom: T0,
  };

  it('a signature that raw OpenSSL 3.0 accepts (Node 20; 3.5 refuses it) is refused by verifyHashSignature and verifyDocument', () => {
    const hash = fakeHash('a');
    const sig = { alg: 'EdDSA' as const, kid: 'dev-weak', signedAt: T0, sig: toBase64url(forger.sign(new Uint8Array())) };
    const msg = signingHeaderBytes(signingHeader(sig, hash, 'Event'));
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), IDENTITY]);
    // the forgery is real where OpenSSL is 3.0 (Node 20); OpenSSL 3.5 (Node 24) refuses it itself
    const openssl30 = /^3\.0\./.test(process.versions.openssl);
    expect(nc.verify(null, msg, nc.createPublicKey({ key: spki, format: 'der', type: 'spki' }), forger.sign(msg))).toBe(openssl30);
    expect(verifyHashSignature(hash, 'Event', sig, record)).toMatchObject({ ok: false, code: 'weak_key' });
    const doc = signDocument({ kind: 'Checkpoint', note: 'anything' } as unknown as JsonObject, forger, T0);
    expect(verifyDocument(doc, (kid) => (kid === record.kid ? record : undefined))).toMatchObject({ ok: false, code: 'weak_key' });
  });

  it('a bundle whose sequencer-signed KeyRecord holds the identity key: weak_key on that line, its entries by an unknown key', async () => {
    const g = generateLog({ events: 16, devices: 2, checkpointEvery: 8 });
    const lines = [...g.lines()].join('').split('\n');
    lines.pop();
    const dev = g.deviceKeys[0];
    const i = lines.findIndex((l) => l.includes('"kind":"KeyRecord"') && l.includes(`"kid":"${dev.kid}"`));
    expect(i).toBeGreaterThan(0);
    // What a sequencer without the rule would have registered and signed.
    lines[i] = JSON.stringify(signDocument(withKey(dev, IDENTITY) as unknown as JsonObject, g.sequencer, T0));
    const v = createBundleVerifier({ policy: g.policy });
    for (const l of lines) {
      const p = v.line(l);
      if (p) await p;
    }
    const r = await v.end();
    expect(r.valid).toBe(false);
    expect(r.failures.find((f) => f.kind === 'weak_key')).toMatchObject({ line: i + 1, detail: expect.stringMatching(/identity/) });
    expect(r.failureCounts.unknown_key).toBe(8); // dev-0's events: its key was never admitted
  });
});
