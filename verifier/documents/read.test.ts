// Strict reading (docs/design.md §3; Core §2, §9): one entry point per kind; unknown members refused with
// their JSON Pointer, x-<vendor>- members ignored but hashed, coreVersion 0.2.x only, 0.2.0 only
// with allowLegacy, hashes and times in their one spelling, and the input never rewritten.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkCoreVersion, parseJson, readDocument, type DocumentKind } from './read.ts';
import { buildLogDescriptor } from './log-descriptor.ts';
import { addCosignature, buildCheckpoint, cosignCheckpoint } from './checkpoint.ts';
import { buildForkProof } from './fork-proof.ts';
import { buildEntry, entryCeOf, verifyEntryHash, type Entry } from './entry.ts';
import { decodeCookwalasig, eventHash, signEvent } from '../cloudevent/read.ts';
import { computeHash, isVendorMember, type JsonObject } from '../signing/document-hash.ts';
import { SCHEMA_BUNDLE, DOCUMENT_KINDS } from './schemas/bundle.ts';
import { createSchemaValidator, pointerToken } from './schemas/validate.ts';
import { at, clone, deepFreeze, fakeHash, keyFor, LOG, sampleEvent, signerFor } from '../../testkit/verifier-fixtures.ts';
import { SPECIAL_KEYS } from '../../testkit/json-arbitraries.ts';

const seq = signerFor('EdDSA', 'seq-1', 91);
const dev = signerFor('ES256', 'dev-1', 92);
const wit = signerFor('EdDSA', 'w-1', 93);
const seqKey = keyFor(seq, 'sequencer', 'kitchen.example.org');
const devKey = keyFor(dev, 'device', 'urn:cookwala:device:oven-7', { validUntil: at(9_000_000) });
const witKey = keyFor(wit, 'witness', 'w.example');
const descriptor = buildLogDescriptor({ log: LOG, mode: 'full', createdAt: at(0) }, seq);
const ev = signEvent(sampleEvent(), dev, at(10));
const entry: Entry = buildEntry({
  log: LOG,
  seq: 1,
  prev: descriptor.hash,
  sequencedAt: at(20),
  ce: entryCeOf(ev),
  eventHash: (eventHash(ev) as { value: string }).value,
  eventSignature: (decodeCookwalasig(ev.cookwalasig!) as { value: Entry['eventSignature'] }).value,
});
let cp = buildCheckpoint({ log: LOG, seq: 1, head: entry.hash, root: fakeHash('12') }, seq, at(30));
cp = addCosignature(cp, cosignCheckpoint(cp, wit, at(31)));
const cp2 = buildCheckpoint({ log: LOG, seq: 1, head: fakeHash('99'), root: fakeHash('12') }, seq, at(32));
const samples: Record<DocumentKind, unknown> = {
  Log: descriptor,
  Event: entry,
  Checkpoint: cp,
  KeyRecord: devKey,
  ForkProof: buildForkProof(cp, cp2),
  Signature: entry.eventSignature,
  WitnessPolicy: { kind: 'WitnessPolicy', log: LOG, sequencer: seqKey, witnesses: [witKey], quorum: 1 },
  KeyCache: { kind: 'KeyCache', keys: [seqKey, devKey, witKey] },
};

describe('readDocument', () => {
  it('reads every kind; never changes the input (frozen input, same object back)', () => {
    for (const kind of DOCUMENT_KINDS) {
      const input = deepFreeze(clone(samples[kind]));
      const r = readDocument(kind, input);
      expect(r, kind).toMatchObject({ ok: true });
      if (kind !== 'WitnessPolicy' && kind !== 'KeyCache') expect(r.ok && r.value).toBe(input);
      expect(input).toEqual(samples[kind]);
    }
  });

  it('returns a KeyCache for KeyCache and a policy with its quorum for WitnessPolicy', () => {
    const kc = readDocument('KeyCache', samples.KeyCache);
    expect(kc.ok && kc.value.get('dev-1')).toEqual(devKey);
    const { quorum: _q, ...p } = samples.WitnessPolicy as Record<string, unknown>;
    expect(readDocument('WitnessPolicy', p)).toMatchObject({ ok: true, value: { quorum: 1 } });
  });

  it('refuses non-objects and the wrong kind with invalid_document', () => {
    for (const kind of DOCUMENT_KINDS) {
      for (const x of [null, [], 'x', 1, true]) expect(readDocument(kind, x), kind).toMatchObject({ ok: false, code: 'invalid_document' });
      if (kind === 'Signature') continue;
      expect(readDocument(kind, { ...(samples[kind] as object), kind: 'Other' })).toMatchObject({
        ok: false,
        code: 'invalid_document',
        path: '/kind',
      });
      const { kind: _k, ...noKind } = samples[kind] as Record<string, unknown>;
      expect(readDocument(kind, noKind)).toMatchObject({ ok: false, code: 'invalid_document', path: '/kind' });
    }
    expect(readDocument('Event', ev)).toMatchObject({ ok: false, code: 'invalid_document' }); // a CloudEvent is not an entry
    expect(() => readDocument('Nope' as DocumentKind, {})).toThrow(TypeError);
  });

  it('refuses unknown members at any depth with unknown_field and the JSON Pointer', () => {
    const cases: Array<[DocumentKind, unknown, string]> = [
      ['Log', { ...descriptor, extra: 1 }, '/extra'],
      ['Log', { ...descriptor, signature: { ...descriptor.signature, hash: fakeHash('1') } }, '/signature/hash'],
      ['Event', { ...entry, ce: { ...entry.ce, data: {} } }, '/ce/data'],
      ['Event', { ...entry, payload: ev }, '/payload'],
      ['Checkpoint', { ...cp, signature: [cp.signature[0], { ...cp.signature[1], 'weird/name~': 1 }] }, '/signature/1/weird~1name~0'],
      ['ForkProof', { ...(samples.ForkProof as object), a: { ...cp, coreVersion: '0.2.1' } }, '/a/coreVersion'],
      ['KeyCache', { kind: 'KeyCache', keys: [devKey, { ...witKey, comment: 'x' }] }, '/keys/1/comment'],
      ['KeyRecord', { ...devKey, 'x-': 1 }, '/x-'],
      ['KeyRecord', { ...devKey, 'x-acme': 1 }, '/x-acme'],
      ['Signature', { ...entry.eventSignature, kind: 'Event' }, '/kind'],
      ['WitnessPolicy', { ...(samples.WitnessPolicy as object), sequencer: { ...seqKey, note: 1 } }, '/sequencer/note'],
    ];
    for (const [kind, doc, path] of cases)
      expect(readDocument(kind, doc), `${kind} ${path}`).toMatchObject({
        ok: false,
        code: 'unknown_field',
        path,
        detail: `unknown member ${path}`,
      });
  });

  it("refuses members named like Object.prototype's (__proto__, toString, …) in every kind, at any depth", () => {
    for (const name of SPECIAL_KEYS) {
      const text = (doc: unknown) => JSON.stringify(doc).replace('{', `{${JSON.stringify(name)}:{"kind":"x"},`);
      for (const kind of DOCUMENT_KINDS) {
        if (kind === 'WitnessPolicy') continue; // read by policy.ts, below
        const r = readDocument(kind, JSON.parse(text(samples[kind])));
        expect(r, `${kind} ${JSON.stringify(name)}`).toMatchObject({ ok: false, code: 'unknown_field', path: '/' + pointerToken(name) });
      }
      const nested = JSON.parse(JSON.stringify(entry).replace('"ce":{', `"ce":{${JSON.stringify(name)}:1,`));
      expect(readDocument('Event', nested), name).toMatchObject({ ok: false, code: 'unknown_field', path: '/ce/' + pointerToken(name) });
    }
  });

  it('ignores x-<vendor>- members at any depth, and they stay covered by the entry hash', () => {
    const withX = {
      ...entry,
      'x-acme-batch': 7,
      ce: { ...entry.ce, 'x-acme-zone': 'north' },
      eventSignature: { ...entry.eventSignature, 'x-acme-hsm': 'slot-2' },
    } as Entry;
    expect(readDocument('Event', withX)).toMatchObject({ ok: true });
    expect(verifyEntryHash(withX)).toMatchObject({ ok: false, code: 'entry_hash_mismatch' });
    const rebuilt = { ...withX, hash: (computeHash(withX as unknown as JsonObject) as { value: string }).value };
    expect(rebuilt.hash).not.toBe(entry.hash);
    expect(verifyEntryHash(rebuilt)).toMatchObject({ ok: true });
    expect(verifyEntryHash({ ...rebuilt, 'x-acme-batch': 8 } as Entry)).toMatchObject({ ok: false, code: 'entry_hash_mismatch' });
  });

  it('member names: anything not defined and not x-<vendor>-… is refused (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), (name) => {
        fc.pre(!Object.prototype.hasOwnProperty.call(descriptor, name)); // not `in`: that skipped toString & co.
        const r = readDocument('Log', { ...descriptor, [name]: 1 });
        if (isVendorMember(name)) expect(r.ok).toBe(true);
        else expect(r).toMatchObject({ ok: false, code: 'unknown_field', path: '/' + pointerToken(name) });
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9.]{1,8}$/), fc.string({ minLength: 1, maxLength: 8 }), (vendor, rest) => {
        expect(readDocument('Log', { ...descriptor, [`x-${vendor}-${rest}`]: { any: ['thing'] } }).ok).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('coreVersion: any 0.2.x; other minors and majors unsupported_version, checked before the schema', () => {
    expect(readDocument('Log', { ...descriptor, coreVersion: '0.2.7' })).toMatchObject({ ok: true });
    expect(readDocument('Log', { ...descriptor, coreVersion: '0.2.10' })).toMatchObject({ ok: true });
    for (const v of ['0.3.0', '1.0.0', '0.1.9', '0.2', '0.2.01', '0.2.1-rc1', 'v0.2.1', '']) {
      expect(readDocument('Log', { ...descriptor, coreVersion: v }), v).toMatchObject({
        ok: false,
        code: 'unsupported_version',
        path: '/coreVersion',
      });
    }
    expect(readDocument('Log', { ...descriptor, coreVersion: '0.3.0', newThing: 1 })).toMatchObject({ code: 'unsupported_version' });
    expect(readDocument('Checkpoint', { ...cp, coreVersion: '0.3.0' })).toMatchObject({ code: 'unsupported_version' });
    expect(readDocument('Log', { ...descriptor, coreVersion: 2 })).toMatchObject({ code: 'invalid_document' });
    const { coreVersion: _c, ...none } = descriptor;
    expect(readDocument('Log', none)).toMatchObject({ code: 'invalid_document', path: '/coreVersion' });
  });

  it('coreVersion 0.2.0 is legacy_signature unless allowLegacy', () => {
    expect(readDocument('Log', { ...descriptor, coreVersion: '0.2.0' })).toMatchObject({ ok: false, code: 'legacy_signature' });
    expect(readDocument('Log', { ...descriptor, coreVersion: '0.2.0' }, { allowLegacy: true })).toMatchObject({ ok: true });
    expect(checkCoreVersion('0.2.3')).toEqual({ ok: true, value: true });
  });

  it('hashes: invalid_hash; algorithms: unsupported_alg; times, numbers, enums, origins: invalid_document', () => {
    const bad: Array<[DocumentKind, unknown, string, string]> = [
      ['Event', { ...entry, prev: entry.prev.toUpperCase().replace('SHA256', 'sha256') }, 'invalid_hash', '/prev'],
      ['Event', { ...entry, eventHash: 'sha256:' + '0'.repeat(63) }, 'invalid_hash', '/eventHash'],
      ['Checkpoint', { ...cp, root: 'sha512:' + '0'.repeat(64) }, 'invalid_hash', '/root'],
      ['KeyRecord', { ...devKey, hash: 'abc' }, 'invalid_hash', '/hash'],
      ['Signature', { ...entry.eventSignature, alg: 'HS256' }, 'unsupported_alg', '/alg'],
      ['KeyRecord', { ...devKey, alg: 'Ed448' }, 'unsupported_alg', '/alg'],
      ['Event', { ...entry, sequencedAt: '2026-11-30T10:00:00Z' }, 'invalid_document', '/sequencedAt'],
      ['Event', { ...entry, sequencedAt: '2026-11-30T10:00:00.000+00:00' }, 'invalid_document', '/sequencedAt'],
      ['Signature', { ...entry.eventSignature, signedAt: '2026-02-30T00:00:00.000Z' }, 'invalid_document', '/signedAt'],
      ['Event', { ...entry, seq: 0 }, 'invalid_document', '/seq'],
      ['Event', { ...entry, seq: 1.5 }, 'invalid_document', '/seq'],
      ['Event', { ...entry, seq: '1' }, 'invalid_document', '/seq'],
      ['Event', { ...entry, seq: 2 ** 53 }, 'invalid_document', '/seq'],
      ['Event', { ...entry, ce: { ...entry.ce, cookwalaseq: -1 } }, 'invalid_document', '/ce/cookwalaseq'],
      ['Event', { ...entry, ce: { ...entry.ce, subject: '' } }, 'invalid_document', '/ce/subject'],
      ['Checkpoint', { ...cp, seq: -1 }, 'invalid_document', '/seq'],
      ['Checkpoint', { ...cp, signature: [] }, 'invalid_document', '/signature'],
      ['Checkpoint', { ...cp, signature: cp.signature[0] }, 'invalid_document', '/signature'],
      ['Checkpoint', { ...cp, signature: Array(257).fill(cp.signature[0]) }, 'invalid_document', '/signature'],
      ['Log', { ...descriptor, mode: 'partial' }, 'invalid_document', '/mode'],
      ['Log', { ...descriptor, log: 'https://kitchen.example.org/x' }, 'invalid_document', '/log'],
      ['Log', { ...descriptor, sequencer: '' }, 'invalid_document', '/sequencer'],
      ['KeyRecord', { ...devKey, role: 'admin' }, 'invalid_document', '/role'],
      ['KeyRecord', { ...devKey, publicKey: devKey.publicKey + '=' }, 'invalid_document', '/publicKey'],
      ['KeyRecord', { ...devKey, publicKey: 'AAAA' }, 'invalid_document', '/'],
      ['KeyRecord', { ...devKey, validUntil: at(-1) }, 'invalid_document', '/'],
      ['Signature', { ...entry.eventSignature, sig: 'a+b' }, 'invalid_document', '/sig'],
      ['KeyCache', { kind: 'KeyCache', keys: [devKey, { ...witKey, publicKey: 'AAAA' }] }, 'invalid_document', '/keys/1'],
      ['KeyCache', { kind: 'KeyCache' }, 'invalid_document', '/'],
    ];
    for (const [kind, doc, code, path] of bad)
      expect(readDocument(kind, doc), `${kind} ${path} ${code}`).toMatchObject({ ok: false, code, path });
  });

  it('unknown_field takes priority over other schema breaks, so the report is stable', () => {
    expect(readDocument('Event', { ...entry, seq: 'x', hash: 'bad', extra: 1 })).toMatchObject({ code: 'unknown_field', path: '/extra' });
    expect(readDocument('Event', { ...entry, seq: 'x', hash: 'bad' })).toMatchObject({ code: 'invalid_hash', path: '/hash' });
  });
});

describe('the schema bundle', () => {
  it('is one offline bundle with a schema per kind, every object closed but for x- members', () => {
    for (const k of DOCUMENT_KINDS) expect(SCHEMA_BUNDLE.definitions).toHaveProperty(k);
    const walk = (s: unknown): void => {
      if (!s || typeof s !== 'object') return;
      const o = s as Record<string, unknown>;
      if (o.type === 'object') {
        expect(o.additionalProperties).toBe(false);
        expect(Object.keys(o.patternProperties as object)).toEqual(['^x-[A-Za-z0-9.]+-.']);
      }
      for (const v of Object.values(o)) walk(v);
    };
    walk(SCHEMA_BUNDLE);
    expect(JSON.stringify(SCHEMA_BUNDLE)).not.toMatch(/"\$ref":"https?:/);
  });

  it('remembers only a valid origin: a bad one after it, or a bad signature encoding, is still refused', () => {
    const v = createSchemaValidator();
    const withLog = (log: string) => ({ ...clone(entry), log });
    expect(v.validate('Event', entry).ok).toBe(true);
    for (const bad of ['https://x.example/l', 'a//b', 'a b', 'x/../y', ''])
      expect(v.validate('Event', withLog(bad)), bad).toMatchObject({ ok: false });
    expect(v.validate('Event', entry).ok).toBe(true);
    const sig = entry.eventSignature.sig;
    // a non-canonical last character (unused low bits set) and a character outside the alphabet
    const last = sig.length % 4 === 2 ? 'B' : sig.length % 4 === 3 ? 'B' : undefined;
    const sigs = ['+' + sig.slice(1), sig.slice(0, -1) + '=', ...(last ? [sig.slice(0, -1) + last] : [])];
    for (const s of sigs)
      expect(v.validate('Event', { ...clone(entry), eventSignature: { ...entry.eventSignature, sig: s } }), s).toMatchObject({ ok: false });
  });

  it('separate validators agree (no shared mutable state)', () => {
    const a = createSchemaValidator();
    const b = createSchemaValidator();
    for (const k of DOCUMENT_KINDS) expect(a.validate(k, samples[k])).toEqual(b.validate(k, samples[k]));
  });
});

describe('parseJson', () => {
  it('parses JSON text and refuses anything else with bad_json', () => {
    expect(parseJson('{"a":[1,"x",null]}')).toEqual({ ok: true, value: { a: [1, 'x', null] } });
    for (const t of ['', '{', "{'a':1}", '{"a":1,}', 'NaN', '\ufeff{}', '{"a":1} x'])
      expect(parseJson(t), t).toMatchObject({ ok: false, code: 'bad_json' });
    expect(parseJson(undefined as unknown as string)).toMatchObject({ ok: false, code: 'bad_json' });
  });
  it('is the I-JSON reader (verifier/encoding/strict-json.ts): a member twice is duplicate_member, not the last one', () => {
    expect(parseJson('{"kind":"Log","kind":"Event"}')).toMatchObject({ ok: false, code: 'duplicate_member', path: '/kind' });
  });
});
