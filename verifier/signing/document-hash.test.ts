// The Core §5 document hash: sha256 of JCS of the document without its top-level hash and
// signature (for CloudEvents: without cookwalasig), identical on both backends.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { computeHash, documentHash, hashedView, isCloudEvent, isVendorMember, jsonHash, type JsonObject } from './document-hash.ts';
import { createNodeBackend } from '../crypto/node.ts';
import { createNobleBackend } from '../crypto/noble.ts';

const sha = (s: string) => 'sha256:' + createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');

describe('computeHash', () => {
  it('is sha256 of the JCS bytes without top-level hash and signature', () => {
    const doc = { kind: 'X', b: 2, a: 'é', hash: 'sha256:00', signature: { sig: 'x' } };
    expect(computeHash(doc)).toEqual({ ok: true, value: sha('{"a":"é","b":2,"kind":"X"}') });
  });

  it('keeps nested hash and signature members: they are content', () => {
    const doc = { a: { hash: 1, signature: 2 } };
    expect(computeHash(doc)).toEqual({ ok: true, value: sha('{"a":{"hash":1,"signature":2}}') });
  });

  it('for a CloudEvent drops cookwalasig and keeps hash/signature extensions', () => {
    const ce = { specversion: '1.0', id: '1', hash: 'h', signature: 's', cookwalasig: 'zzz' };
    expect(computeHash(ce)).toEqual({ ok: true, value: sha('{"hash":"h","id":"1","signature":"s","specversion":"1.0"}') });
    expect(isCloudEvent(ce)).toBe(true);
    expect(isCloudEvent({ kind: 'Log' })).toBe(false);
    expect(hashedView(ce)).toEqual({ specversion: '1.0', id: '1', hash: 'h', signature: 's' });
  });

  it('covers x- vendor members', () => {
    expect(computeHash({ a: 1, 'x-acme-n': 1 })).not.toEqual(computeHash({ a: 1, 'x-acme-n': 2 }));
  });

  it('refuses non-objects and values JCS cannot express', () => {
    expect(computeHash([] as unknown as JsonObject)).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(computeHash(null as unknown as JsonObject)).toMatchObject({ ok: false, code: 'invalid_document' });
    expect(computeHash({ a: NaN } as unknown as JsonObject)).toMatchObject({ ok: false, code: 'noncanonical_number' });
    expect(() => documentHash({ a: Infinity } as unknown as JsonObject)).toThrow(TypeError);
  });

  it('does not change the document', () => {
    const doc = { hash: 'h', signature: 's', a: 1 };
    computeHash(doc);
    expect(doc).toEqual({ hash: 'h', signature: 's', a: 1 });
  });

  it('is the same on node:crypto and @noble', () => {
    const node = createNodeBackend();
    const noble = createNobleBackend();
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), (d) => {
        const doc = JSON.parse(JSON.stringify(d)) as JsonObject;
        expect(computeHash(doc, node)).toEqual(computeHash(doc, noble));
        expect(documentHash(doc, node)).toMatch(/^sha256:[0-9a-f]{64}$/);
      }),
      { numRuns: 200 },
    );
  });
});

describe('jsonHash', () => {
  it('hashes any JSON value, arrays included, without removing members', () => {
    expect(jsonHash(['s', { hash: 1 }])).toEqual({ ok: true, value: sha('["s",{"hash":1}]') });
    expect(jsonHash({ a: NaN })).toMatchObject({ ok: false, code: 'noncanonical_number' });
  });
});

describe('isVendorMember', () => {
  it('accepts x-<vendor>-… and nothing else', () => {
    for (const n of ['x-acme-note', 'x-cookwala-untrusted', 'x-example.org-a', 'x-a-b']) expect(isVendorMember(n), n).toBe(true);
    for (const n of ['x-', 'x-acme', 'x-acme-', 'x--a', 'X-acme-a', 'xacme-a', 'y-acme-a', 'hash', ''])
      expect(isVendorMember(n), n).toBe(false);
  });
});
