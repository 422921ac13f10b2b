// Log entries (DESIGN §4): the entry hash, the chain rule, the Merkle leaf, and the device
// signature over the event hash, which still verifies once the payload is gone.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEntry, checkLink, entryCeOf, entryLeaf, verifyEntryEventSignature, verifyEntryHash, type Entry } from './entry.ts';
import { decodeCookwalasig, eventHash, signEvent, type CloudEvent } from '../cloudevent/read.ts';
import { buildLogDescriptor } from './log-descriptor.ts';
import { computeHash, type JsonObject } from './document-hash.ts';
import { readDocument } from './read.ts';
import { at, clone, DEVICE, fakeHash, keyFor, LOG, lookupOf, sampleEvent, signerFor } from '../../testkit/verifier-fixtures.ts';

const device = signerFor('EdDSA', 'dev-1', 31);
const deviceKey = keyFor(device, 'device', DEVICE);
const sequencer = signerFor('EdDSA', 'seq-1', 32);
const descriptor = buildLogDescriptor({ log: LOG, mode: 'hash_only', createdAt: at(0) }, sequencer);

function entryFor(ce: CloudEvent, prev: { seq: number; hash: string }): Entry {
  const sig = decodeCookwalasig(ce.cookwalasig!);
  if (!sig.ok) throw new Error(sig.detail);
  return buildEntry({
    log: LOG,
    seq: prev.seq + 1,
    prev: prev.hash,
    sequencedAt: at(100 + prev.seq),
    ce: entryCeOf(ce),
    eventHash: (eventHash(ce) as { value: string }).value,
    eventSignature: sig.value,
  });
}

function chain(n: number): Entry[] {
  const out: Entry[] = [];
  let prev = { seq: 0, hash: descriptor.hash };
  for (let i = 0; i < n; i++) {
    const e = entryFor(signEvent(sampleEvent({ id: `ev-${i}`, cookwalaseq: i + 1 }), device, at(10 + i)), prev);
    out.push(e);
    prev = e;
  }
  return out;
}

describe('entryCeOf', () => {
  it('keeps source, id, type and the optional subject and cookwalaseq', () => {
    expect(entryCeOf(sampleEvent())).toEqual({
      source: DEVICE,
      id: 'ev-0001',
      type: 'cookwala.execution.running',
      subject: 'exec-42',
      cookwalaseq: 3,
    });
    expect(entryCeOf(sampleEvent({ subject: null, cookwalaseq: undefined }))).toEqual({
      source: DEVICE,
      id: 'ev-0001',
      type: 'cookwala.execution.running',
    });
  });
});

describe('buildEntry and verifyEntryHash', () => {
  const [e] = chain(1);
  it('computes the hash over everything but the hash member', () => {
    const { hash, ...body } = e;
    expect(computeHash(body as unknown as JsonObject)).toEqual({ ok: true, value: hash });
    expect(e.kind).toBe('Event');
    expect(verifyEntryHash(e)).toEqual({ ok: true, value: true });
    expect(readDocument('Event', e)).toMatchObject({ ok: true });
  });

  it('detects a change of any field, nested ones included (entry_hash_mismatch naming the seq)', () => {
    const changes: Array<(x: Entry) => void> = [
      (x) => (x.seq = 2),
      (x) => (x.prev = fakeHash('0')),
      (x) => (x.sequencedAt = at(999)),
      (x) => (x.log = 'other.example/log'),
      (x) => (x.ce.id = 'ev-x'),
      (x) => (x.ce.cookwalaseq = 4),
      (x) => delete x.ce.subject,
      (x) => (x.eventHash = fakeHash('9')),
      (x) => (x.eventSignature.signedAt = at(1)),
      (x) => ((x as unknown as Record<string, unknown>)['x-acme-note'] = 'added'),
    ];
    for (const change of changes) {
      const x = clone(e);
      change(x);
      expect(verifyEntryHash(x)).toMatchObject({ ok: false, code: 'entry_hash_mismatch', seq: x.seq });
    }
    expect(verifyEntryHash({ ...e, hash: 'sha256:xyz' })).toMatchObject({ ok: false, code: 'invalid_hash' });
  });

  it("does not alias the caller's ce or signature objects", () => {
    const ce = { source: DEVICE, id: 'a', type: 't' };
    const x = buildEntry({ ...e, ce });
    ce.id = 'b';
    expect(x.ce.id).toBe('a');
    expect(verifyEntryHash(x).ok).toBe(true);
  });
});

describe('checkLink', () => {
  const entries = chain(3);
  it('accepts a chain from the descriptor', () => {
    let prev = { seq: 0, hash: descriptor.hash };
    for (const e of entries) {
      expect(checkLink(prev, e)).toEqual({ ok: true, value: true });
      prev = e;
    }
  });
  it('refuses a gap, a repeat, a regression and a wrong prev with chain_broken', () => {
    expect(checkLink(entries[0], entries[2])).toMatchObject({ ok: false, code: 'chain_broken', seq: 3, expected: 2 });
    expect(checkLink(entries[1], entries[1])).toMatchObject({ ok: false, code: 'chain_broken' });
    expect(checkLink(entries[2], entries[0])).toMatchObject({ ok: false, code: 'chain_broken' });
    expect(checkLink({ seq: 1, hash: fakeHash('1') }, entries[1])).toMatchObject({ ok: false, code: 'chain_broken', seq: 2 });
  });
  it('any change to an earlier entry breaks the link of the next (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 }), fc.string({ minLength: 1, maxLength: 8 }), (i, id) => {
        fc.pre(id !== entries[i].ce.id);
        const changed = buildEntry({ ...entries[i], ce: { ...entries[i].ce, id } });
        expect(checkLink(changed, entries[i + 1])).toMatchObject({ ok: false, code: 'chain_broken' });
      }),
      { numRuns: 50 },
    );
  });
});

describe('entryLeaf', () => {
  it('is the 32 raw bytes of the entry hash', () => {
    const [e] = chain(1);
    const leaf = entryLeaf(e);
    expect(leaf.length).toBe(32);
    expect(Buffer.from(leaf).toString('hex')).toBe(e.hash.slice(7));
    expect(() => entryLeaf({ hash: 'sha256:00' })).toThrow(TypeError);
  });
});

describe('verifyEntryEventSignature', () => {
  const [e] = chain(1);
  const lookup = lookupOf(deviceKey);

  it('verifies the device signature from the entry alone (no payload needed)', () => {
    expect(verifyEntryEventSignature(e, lookup)).toMatchObject({
      ok: true,
      value: { eventHash: e.eventHash, key: deviceKey, legacy: false },
    });
  });

  it('reason codes: bad_signature, unknown_key, source_mismatch, key_role_mismatch, key_revoked, malformed_signature, invalid_hash', () => {
    expect(verifyEntryEventSignature({ ...e, eventHash: fakeHash('7') }, lookup)).toMatchObject({ ok: false, code: 'bad_signature' });
    expect(verifyEntryEventSignature(e, () => undefined)).toMatchObject({ ok: false, code: 'unknown_key' });
    expect(verifyEntryEventSignature({ ...e, ce: { ...e.ce, source: 'urn:other' } }, lookup)).toMatchObject({
      ok: false,
      code: 'source_mismatch',
    });
    expect(verifyEntryEventSignature(e, lookupOf({ ...deviceKey, role: 'operator' }))).toMatchObject({
      ok: false,
      code: 'key_role_mismatch',
    });
    expect(verifyEntryEventSignature(e, lookupOf({ ...deviceKey, revokedAt: e.eventSignature.signedAt }))).toMatchObject({
      ok: false,
      code: 'key_revoked',
    });
    expect(verifyEntryEventSignature({ ...e, eventSignature: { ...e.eventSignature, sig: '***' } }, lookup)).toMatchObject({
      ok: false,
      code: 'malformed_signature',
    });
    expect(verifyEntryEventSignature({ ...e, eventHash: 'sha256:0' }, lookup)).toMatchObject({ ok: false, code: 'invalid_hash' });
  });

  it('a sequencer-made entry verifies with role sequencer and no source check', () => {
    const seqKey = keyFor(sequencer, 'sequencer', 'kitchen.example.org');
    const erased = signEvent(
      {
        specversion: '1.0',
        id: 'erase-1',
        source: 'cookwala:sequencer/' + LOG,
        type: 'cookwala.log.erased',
        data: { seq: 1, eventHash: e.eventHash, reason: 'consent withdrawn' },
      },
      sequencer,
      at(500),
    );
    const x = entryFor(erased, e);
    expect(verifyEntryEventSignature(x, lookupOf(seqKey))).toMatchObject({ ok: false, code: 'key_role_mismatch' });
    expect(verifyEntryEventSignature(x, lookupOf(seqKey), { role: 'sequencer', checkSource: false }).ok).toBe(true);
  });
});
