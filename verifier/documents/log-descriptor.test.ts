// The log descriptor (docs/design.md §4): origins, building, and verification against the trusted
// sequencer key, with every reason code.
import { describe, expect, it } from 'vitest';
import { buildLogDescriptor, CORE_VERSION, isValidOrigin, verifyLogDescriptor } from './log-descriptor.ts';
import { readDocument } from './read.ts';
import { signDocument } from '../signing/signature.ts';
import { toBase64url, utf8 } from '../encoding/wire.ts';
import { at, keyFor, LOG, signerFor } from '../../testkit/verifier-fixtures.ts';

const sequencer = signerFor('EdDSA', 'seq-1', 41);
const seqKey = keyFor(sequencer, 'sequencer', 'kitchen.example.org');

describe('isValidOrigin', () => {
  it('accepts schema-less URL origins', () => {
    for (const o of [LOG, 'localhost/missions/demo', 'example.com', 'log.example:8443/a_b~c', 'a']) expect(isValidOrigin(o), o).toBe(true);
  });
  it('refuses schemes, spaces, +, control and non-ASCII characters, empty and overlong names', () => {
    for (const o of [
      'https://example.com/log',
      'ex ample.com',
      'example.com/a+b',
      'example.com\n',
      'example.com\t',
      'exämple.com',
      '',
      'a'.repeat(201),
      'a"b',
      'a<b',
      3,
      null,
      '..',
      'a/./b',
      'a//b',
    ]) {
      expect(isValidOrigin(o), JSON.stringify(o)).toBe(false);
    }
    expect(isValidOrigin('a'.repeat(200))).toBe(true);
  });
});

describe('buildLogDescriptor', () => {
  const d = buildLogDescriptor({ log: LOG, mode: 'hash_only', createdAt: at(0) }, sequencer);
  it('writes coreVersion 0.2.1, names the sequencer kid and signs at createdAt', () => {
    expect(CORE_VERSION).toBe('0.2.1');
    expect(d).toMatchObject({
      kind: 'Log',
      coreVersion: '0.2.1',
      log: LOG,
      mode: 'hash_only',
      sequencer: 'seq-1',
      createdAt: at(0),
      signature: { kid: 'seq-1', signedAt: at(0), alg: 'EdDSA' },
    });
    expect(readDocument('Log', d)).toMatchObject({ ok: true });
    expect(verifyLogDescriptor(d, seqKey)).toEqual({ ok: true, value: { hash: d.hash, legacy: false } });
  });
  it('throws on a bad origin, mode or time (programmer errors)', () => {
    expect(() => buildLogDescriptor({ log: 'https://x/y', mode: 'full', createdAt: at(0) }, sequencer)).toThrow(TypeError);
    expect(() => buildLogDescriptor({ log: LOG, mode: 'all' as 'full', createdAt: at(0) }, sequencer)).toThrow(TypeError);
    expect(() => buildLogDescriptor({ log: LOG, mode: 'full', createdAt: '2026-11-30' }, sequencer)).toThrow(TypeError);
  });
});

describe('verifyLogDescriptor', () => {
  const d = buildLogDescriptor({ log: LOG, mode: 'full', createdAt: at(0) }, sequencer);
  it('hash_mismatch when a field changes under the same hash', () => {
    expect(verifyLogDescriptor({ ...d, mode: 'hash_only' }, seqKey)).toMatchObject({ ok: false, code: 'hash_mismatch' });
  });
  it('log_mismatch when the expected origin differs', () => {
    expect(verifyLogDescriptor(d, seqKey, { log: 'other.example/log' })).toMatchObject({ ok: false, code: 'log_mismatch' });
    expect(verifyLogDescriptor(d, seqKey, { log: LOG }).ok).toBe(true);
  });
  it('descriptor_mismatch when it names another sequencer', () => {
    expect(verifyLogDescriptor(d, { ...seqKey, kid: 'seq-2' })).toMatchObject({ ok: false, code: 'descriptor_mismatch' });
  });
  it('bad_signature when re-signed by another key under the same kid; key_role_mismatch for a non-sequencer key', () => {
    const impostor = signerFor('EdDSA', 'seq-1', 42);
    const forged = buildLogDescriptor({ log: LOG, mode: 'full', createdAt: at(0) }, impostor);
    expect(verifyLogDescriptor(forged, seqKey)).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(verifyLogDescriptor(d, { ...seqKey, role: 'witness' })).toMatchObject({ ok: false, code: 'key_role_mismatch' });
    expect(verifyLogDescriptor(d, { ...seqKey, revokedAt: at(0) })).toMatchObject({ ok: false, code: 'key_revoked' });
  });
  it('a 0.2.0 descriptor signed over the bare hash verifies only with allowLegacy', () => {
    const body = { kind: 'Log', coreVersion: '0.2.0', log: LOG, mode: 'full', sequencer: 'seq-1', createdAt: at(0) };
    const h = signDocument(body, sequencer, at(0)).hash;
    const legacy = {
      ...body,
      hash: h,
      signature: { alg: 'EdDSA' as const, kid: 'seq-1', signedAt: at(0), sig: toBase64url(sequencer.sign(utf8(h))) },
    } as Parameters<typeof verifyLogDescriptor>[0];
    expect(readDocument('Log', legacy)).toMatchObject({ ok: false, code: 'legacy_signature' });
    expect(verifyLogDescriptor(legacy, seqKey)).toMatchObject({ ok: false, code: 'legacy_signature' });
    expect(readDocument('Log', legacy, { allowLegacy: true })).toMatchObject({ ok: true });
    expect(verifyLogDescriptor(legacy, seqKey, { allowLegacy: true })).toEqual({ ok: true, value: { hash: h, legacy: true } });
  });
});
