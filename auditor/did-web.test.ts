// Key sources for `cookwala keys fetch`: did:web resolution (W3C did:web: host%3Aport and path
// segments, https unless localhost), the http rule for service URLs, and DID documents and keys
// documents turned into KeyRecords, with anything unusable skipped and named.
import { describe, expect, it } from 'vitest';
import { keySourceOf, keysFromDidDocument, keysFromKeysDocument } from './did-web.ts';
import { signerKey } from '../testkit/keys.ts';
import { fromBase64url, toBase64url } from '../verifier/encoding/wire.ts';

describe('keySourceOf', () => {
  it('resolves did:web identifiers', () => {
    expect(keySourceOf('did:web:example.com')).toMatchObject({
      ok: true,
      value: { url: 'https://example.com/.well-known/did.json', kind: 'did' },
    });
    expect(keySourceOf('did:web:example.com%3A8443:org:kitchen')).toMatchObject({
      value: { url: 'https://example.com:8443/org/kitchen/did.json' },
    });
    expect(keySourceOf('did:web:127.0.0.1%3A9000')).toMatchObject({ value: { url: 'http://127.0.0.1:9000/.well-known/did.json' } });
    expect(keySourceOf('did:web:localhost%3A9000')).toMatchObject({ value: { url: 'http://localhost:9000/.well-known/did.json' } });
    expect(keySourceOf('did:web:')).toMatchObject({ ok: false, code: 'bad_request' });
    expect(keySourceOf('did:web:ex%2Fample.com')).toMatchObject({ ok: false });
  });
  it('reads service URLs: the well-known document by default, http only on localhost', () => {
    expect(keySourceOf('https://hub.example')).toMatchObject({
      value: { url: 'https://hub.example/.well-known/cookwala.json', kind: 'cookwala' },
    });
    expect(keySourceOf('http://127.0.0.1:8700/v1/logs/x/keys')).toMatchObject({ value: { url: 'http://127.0.0.1:8700/v1/logs/x/keys' } });
    expect(keySourceOf('http://hub.example')).toMatchObject({ ok: false });
    expect(keySourceOf('ftp://127.0.0.1/x')).toMatchObject({ ok: false });
    expect(keySourceOf('not a url')).toMatchObject({ ok: false });
  });
});

describe('DID documents and keys documents', () => {
  const did = 'did:web:org.example';
  const ed = signerKey('did-ed', 'operator');
  const p = signerKey('did-p', 'operator', { alg: 'ES256' });
  const pub = fromBase64url(p.record.publicKey) as { value: Uint8Array };
  const jwkP = { kty: 'EC', crv: 'P-256', x: toBase64url(pub.value.slice(1, 33)), y: toBase64url(pub.value.slice(33)) };
  it('turns OKP/Ed25519 and EC/P-256 JWKs into KeyRecords and skips the rest', () => {
    const doc = {
      id: did,
      verificationMethod: [
        { id: '#a', controller: did, publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: ed.record.publicKey } },
        { id: `${did}#b`, controller: 'did:web:parent.example', publicKeyJwk: jwkP },
        { id: '#c', publicKeyJwk: { kty: 'OKP', crv: 'X25519', x: ed.record.publicKey } },
        { id: '#d', publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: ed.record.publicKey, d: 'secret' } },
        { id: '#e', publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: 'AAAA' } },
        { id: '#f', publicKeyMultibase: 'z6Mk…' },
      ],
    };
    const r = keysFromDidDocument(doc, did, { role: 'catalog', validFrom: '2026-01-01T00:00:00.000Z' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.keys).toEqual([
      {
        kind: 'KeyRecord',
        kid: `${did}#a`,
        alg: 'EdDSA',
        publicKey: ed.record.publicKey,
        owner: did,
        role: 'catalog',
        validFrom: '2026-01-01T00:00:00.000Z',
      },
      {
        kind: 'KeyRecord',
        kid: `${did}#b`,
        alg: 'ES256',
        publicKey: p.record.publicKey,
        owner: 'did:web:parent.example',
        role: 'catalog',
        validFrom: '2026-01-01T00:00:00.000Z',
      },
    ]);
    expect(r.value.skipped.map((s) => s.split(':').slice(0, 3).join(':'))).toEqual([`${did}#c`, `${did}#d`, `${did}#e`, `${did}#f`]);
    expect(
      keysFromDidDocument({ ...doc, id: 'did:web:other.example' }, did, { role: 'catalog', validFrom: '2026-01-01T00:00:00.000Z' }),
    ).toMatchObject({ ok: false, code: 'invalid_document' });
  });
  it('reads {keys:[…]} documents strictly, record by record', () => {
    const r = keysFromKeysDocument({ keys: [ed.record, { ...p.record, extra: 1 }, { kind: 'KeyRecord' }], logs: ['x'] });
    expect(r).toMatchObject({ ok: true, value: { keys: [ed.record] } });
    expect(r.ok && r.value.skipped.length).toBe(2);
    expect(keysFromKeysDocument({ kind: 'KeyCache' })).toMatchObject({ ok: false });
  });
});
