// The device's events: signed so the verifier accepts them with the device KeyRecord (and refuses
// them with any change), status seq as cookwalaseq, local_safety only on safety reports, no times
// finer than a day under `open` consent, and readCloudEvent-valid JSON.
import { describe, expect, it } from 'vitest';
import { readCloudEvent, verifyEventSignature } from '../verifier/cloudevent/read.ts';
import { createSigner, generateSecretKey, keyRecordOf } from '../verifier/signing/signature.ts';
import { buildConsentWithdrawn, buildHeartbeat, buildStatusEvent, eventTime, LOCAL_SAFETY } from './events.ts';
import { STATES } from './lifecycle.ts';

const signer = createSigner(generateSecretKey('EdDSA', 'dev-a-1', undefined, new Uint8Array(32).fill(7)));
const source = 'urn:cookwala:device:dev-a';
const record = keyRecordOf(signer, { owner: source, role: 'device', validFrom: '2026-01-01T00:00:00.000Z' });
const lookup = (kid: string) => (kid === record.kid ? record : undefined);
const at = Date.parse('2026-11-30T10:11:12.345Z');

describe('status events', () => {
  it.each(STATES)('%s: signed, typed, ordered', (status) => {
    const ev = buildStatusEvent(
      { source, signer, dataset: 'research_only' },
      { executionId: 'x-1', recipeId: 'pasta', status, seq: 5, at, step: 2 },
    );
    expect(readCloudEvent(ev).ok).toBe(true);
    expect(ev).toMatchObject({
      specversion: '1.0',
      id: 'x-1.5',
      source,
      subject: 'x-1',
      type: `cookwala.execution.${status}`,
      cookwalaseq: 5,
      time: '2026-11-30T10:11:12.345Z',
      data: { recipe: 'pasta', step: 2 },
    });
    const v = verifyEventSignature(ev, lookup);
    expect(v.ok).toBe(true);
    expect(ev.cookwalalatency).toBe(['stopping', 'stopped', 'failed'].includes(status) ? LOCAL_SAFETY : undefined);
  });
  it('any change breaks the signature', () => {
    const ev = buildStatusEvent(
      { source, signer, dataset: 'none' },
      { executionId: 'x-1', recipeId: 'pasta', status: 'running', seq: 3, at },
    );
    for (const tamper of [
      { cookwalaseq: 4 },
      { subject: 'x-2' },
      { type: 'cookwala.execution.completed' },
      { data: { recipe: 'pizza' } },
      { cookwalalatency: LOCAL_SAFETY },
    ]) {
      const r = verifyEventSignature({ ...ev, ...tamper }, lookup);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.code).toBe('bad_signature');
    }
    // Another device's source: the key's owner does not match.
    const r = verifyEventSignature({ ...ev, source: 'urn:cookwala:device:other' }, lookup);
    expect(!r.ok && r.code).toBe('bad_signature');
  });
  it('carries a reason, verifiedBy and an explicit safety mark', () => {
    const ev = buildStatusEvent(
      { source, signer, dataset: 'none' },
      { executionId: 'x', recipeId: 'r', status: 'paused', seq: 4, at, reason: { code: 'paused_locally' }, safety: true },
    );
    expect(ev.cookwalalatency).toBe(LOCAL_SAFETY);
    expect(ev.data).toEqual({ recipe: 'r', reason: { code: 'paused_locally' } });
    const acc = buildStatusEvent(
      { source, signer, dataset: 'none' },
      { executionId: 'x', recipeId: 'r', status: 'accepted', seq: 1, at, verifiedBy: ['time'] },
    );
    expect(acc.data).toEqual({ recipe: 'r', verifiedBy: ['time'] });
  });
  it('open datasets coarsen time AND signedAt to the day (§8); other consents keep milliseconds', () => {
    expect(eventTime(at, 'open')).toBe('2026-11-30T00:00:00.000Z');
    expect(eventTime(at, 'research_only')).toBe('2026-11-30T10:11:12.345Z');
    const ev = buildStatusEvent({ source, signer, dataset: 'open' }, { executionId: 'x', recipeId: 'r', status: 'running', seq: 3, at });
    expect(ev.time).toBe('2026-11-30T00:00:00.000Z');
    const v = verifyEventSignature(ev, lookup);
    expect(v.ok && v.value.signature.signedAt).toBe('2026-11-30T00:00:00.000Z');
    const w = buildConsentWithdrawn({ source, signer, dataset: 'none' }, at, 2, 'open');
    const wv = verifyEventSignature(w, lookup);
    expect([w.time, wv.ok && wv.value.signature.signedAt]).toEqual(['2026-11-30T00:00:00.000Z', '2026-11-30T00:00:00.000Z']);
    const r = verifyEventSignature(
      buildStatusEvent({ source, signer, dataset: 'research_only' }, { executionId: 'x', recipeId: 'r', status: 'running', seq: 3, at }),
      lookup,
    );
    expect(r.ok && r.value.signature.signedAt).toBe('2026-11-30T10:11:12.345Z');
  });
});

describe('device events', () => {
  it('heartbeats and the consent withdrawal are signed, without subject or seq', () => {
    for (const ev of [
      buildHeartbeat({ source, signer, dataset: 'open' }, at, 1),
      buildConsentWithdrawn({ source, signer, dataset: 'open' }, at, 3, 'research_only'),
    ]) {
      expect(readCloudEvent(ev).ok).toBe(true);
      expect(verifyEventSignature(ev, lookup).ok).toBe(true);
      expect(ev.subject).toBeUndefined();
      expect(ev.cookwalaseq).toBeUndefined();
    }
    const hb = buildHeartbeat({ source, signer, dataset: 'open' }, at, 1);
    expect(hb).toMatchObject({ type: 'cookwala.device.heartbeat', time: '2026-11-30T10:11:12.345Z' });
    expect(hb.data).toBeUndefined();
    expect(buildConsentWithdrawn({ source, signer, dataset: 'none' }, at, 3, 'research_only')).toMatchObject({
      type: 'cookwala.consent.withdrawn',
      id: 'consent.withdrawn.3',
      data: { previous: 'research_only' },
    });
  });
});
