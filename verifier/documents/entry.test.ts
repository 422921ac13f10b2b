// Log entries (docs/design.md §4): the entry hash, the chain rule, the Merkle leaf, and the device
// signature over the event hash, which still verifies once the payload is gone; the direct JCS
// writer buildEntry uses (entryCanonicalText) agrees with the generic one or defers to it.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  buildEntry,
  checkLink,
  entryCanonicalText,
  entryCeOf,
  entryLeaf,
  verifyEntryEventSignature,
  verifyEntryHash,
  type Entry,
} from './entry.ts';
import { canonicalize } from '../encoding/jcs.ts';
import { decodeCookwalasig, eventHash, signEvent, type CloudEvent } from '../cloudevent/read.ts';
import { buildLogDescriptor } from './log-descriptor.ts';
import { computeHash, type JsonObject } from '../signing/document-hash.ts';
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

describe('entryCanonicalText (the direct JCS writer buildEntry uses)', () => {
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.string({ unit: 'grapheme', maxLength: 8 }),
    fc.constantFrom('', '"', '\\', '\\u0041', '\u0001', '\u2028', '\ud800', 'a\udfff', '😀', 'x-y', '</script>'),
  );
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
  const body = fc.record({
    kind: fc.constantFrom('Event', 'Other'),
    log: text,
    seq: fc.oneof(fc.nat(), fc.constantFrom(0, -1, 2 ** 53, 1.5, Number.MAX_SAFE_INTEGER)),
    prev: text,
    sequencedAt: text,
    ce: fc.record({ source: text, id: text, type: text, subject: maybe(text), cookwalaseq: maybe(fc.oneof(fc.nat(), fc.constant(-0))) }),
    eventHash: text,
    eventSignature: fc.oneof(
      fc.record({ alg: text, kid: text, signedAt: text, sig: text }),
      fc.record({ alg: text, kid: text, sig: text, signedAt: text }),
      fc.record({ alg: text, kid: text, sig: text, signedAt: text, 'x-v-n': text }),
    ),
  });
  // Drop members set to undefined (a built entry never holds one), as buildEntry's callers do.
  const clean = (b: Record<string, unknown>) => {
    const ce = b.ce as Record<string, unknown>;
    for (const k of Object.keys(ce)) if (ce[k] === undefined) delete ce[k];
    return b as unknown as Omit<Entry, 'hash'>;
  };

  it('property: equals the generic canonical form, or defers (undefined) where it is not sure', () => {
    fc.assert(
      fc.property(body, (raw) => {
        const b = clean(raw);
        const direct = entryCanonicalText(b);
        const generic = canonicalize(b);
        if (direct !== undefined) expect(generic).toEqual({ ok: true, value: direct });
        // The usual shape is never deferred: plain strings, integer seqs, the four signature members.
        const plain = (s: unknown) => typeof s === 'string' && !/["\\\u0000-\u001f\ud800-\udfff]/.test(s);
        const sig = b.eventSignature as unknown as Record<string, unknown>;
        const ce = b.ce as unknown as Record<string, unknown>;
        const usual =
          b.kind === 'Event' &&
          Number.isSafeInteger(b.seq) &&
          Object.keys(sig).length === 4 &&
          [b.log, b.prev, b.sequencedAt, b.eventHash, ...Object.values(sig), ce.source, ce.id, ce.type].every(plain) &&
          (ce.subject === undefined || plain(ce.subject));
        if (usual) expect(direct).toBeDefined();
      }),
      { numRuns: 2000 },
    );
  });

  it('buildEntry hashes exactly what computeHash hashes, on the usual shape and on the deferred ones', () => {
    const [e] = chain(1);
    const { hash: _h, kind: _k, ...fields } = e;
    const variants: Array<Omit<Entry, 'kind' | 'hash'>> = [
      fields,
      { ...fields, ce: { ...fields.ce, subject: 'caf\u00e9 \u0007 "q"' } },
      { ...fields, ce: { source: fields.ce.source, id: fields.ce.id, type: fields.ce.type } },
      { ...fields, eventSignature: { ...fields.eventSignature, 'x-vendor-note': { a: [1] } } as unknown as Entry['eventSignature'] },
      { ...fields, log: 'lone \ud800 half' },
    ];
    for (const v of variants) {
      if (v.log.includes('\ud800')) {
        expect(() => buildEntry(v)).toThrow(TypeError); // no canonical form: refused, never hashed as something else
        continue;
      }
      const built = buildEntry(v);
      const { hash, ...rest } = built;
      expect(computeHash(rest as unknown as JsonObject)).toEqual({ ok: true, value: hash });
      expect(verifyEntryHash(built)).toEqual({ ok: true, value: true });
    }
    expect(entryCanonicalText({ ...fields, kind: 'Event' })).toBeDefined();
  });

  it('keeps the signature member order it is given (the hash does not depend on it)', () => {
    const [e] = chain(1);
    const { hash: _h, kind: _k, ...fields } = e;
    const s = fields.eventSignature;
    const a = buildEntry({ ...fields, eventSignature: { alg: s.alg, kid: s.kid, signedAt: s.signedAt, sig: s.sig } });
    const b = buildEntry({ ...fields, eventSignature: { alg: s.alg, kid: s.kid, sig: s.sig, signedAt: s.signedAt } });
    expect(Object.keys(a.eventSignature)).toEqual(['alg', 'kid', 'signedAt', 'sig']);
    expect(Object.keys(b.eventSignature)).toEqual(['alg', 'kid', 'sig', 'signedAt']);
    expect(a.hash).toBe(b.hash);
  });
});
