// auditor/did-web.ts: key sources of Core §5 for offline use: where a `did:web` identifier or a
// service URL keeps its keys, and how their documents become KeyRecords. did:web (W3C did:web
// method): `did:web:host%3Aport[:path…]` resolves to https://host:port/.well-known/did.json, or to
// https://host:port/path…/did.json with a path; plain http only for localhost and 127.0.0.1
// (tests, the demo). A DID document's verificationMethod entries with publicKeyJwk OKP/Ed25519 or
// EC/P-256 become KeyRecords (kid = the method's DID URL, owner = the controller or the DID, role
// and validFrom from the caller, since a DID document states neither); other key types are
// skipped and named. A service URL serves /.well-known/cookwala.json ({keys:[KeyRecord…]}) or,
// given a full path, any {keys:[…]} document (e.g. a log's GET …/keys).

import { fromBase64url, toBase64url } from '../verifier/encoding/index.ts';
import { fail, ok, type Result } from '../verifier/index.ts';
import { readDocument } from '../verifier/documents/index.ts';
import type { KeyRecord, KeyRole } from '../verifier/signing/index.ts';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface KeySource {
  url: string;
  kind: 'did' | 'cookwala';
  did?: string;
}

/** Where to fetch: refuses http except for localhost and 127.0.0.1. */
export function keySourceOf(target: string): Result<KeySource> {
  if (target.startsWith('did:web:')) {
    const parts = target.slice('did:web:'.length).split(':');
    if (parts.length === 0 || parts[0] === '') return fail('bad_request', `not a did:web identifier: ${target}`);
    const host = decodeURIComponent(parts[0]);
    if (!/^[A-Za-z0-9.-]+(:[0-9]{1,5})?$/.test(host) && !/^\[::1\](:[0-9]{1,5})?$/.test(host))
      return fail('bad_request', `did:web host ${host} is not a host[:port]`);
    const path = parts.slice(1).map((p) => decodeURIComponent(p));
    const scheme = LOCAL_HOSTS.has(host.replace(/:[0-9]+$/, '')) ? 'http' : 'https';
    const url = `${scheme}://${host}/${path.length ? path.join('/') : '.well-known'}/did.json`;
    return ok({ url, kind: 'did', did: target });
  }
  let u: URL;
  try {
    u = new URL(target);
  } catch {
    return fail('bad_request', `not a URL or did:web identifier: ${target}`);
  }
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && LOCAL_HOSTS.has(u.hostname)))
    return fail('bad_request', `${u.protocol} is allowed only as https, or http for localhost and 127.0.0.1`);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/.well-known/cookwala.json';
  return ok({ url: u.toString(), kind: 'cookwala' });
}

interface Jwk {
  kty?: unknown;
  crv?: unknown;
  x?: unknown;
  y?: unknown;
  d?: unknown;
}

function jwkToKey(jwk: Jwk): Result<{ alg: 'EdDSA' | 'ES256'; publicKey: string }> {
  if (jwk.d !== undefined) return fail('invalid_document', 'a publicKeyJwk holds a private key (d): refused');
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string') {
    const x = fromBase64url(jwk.x);
    if (!x.ok || x.value.length !== 32) return fail('invalid_document', 'an Ed25519 JWK x is 32 bytes of base64url');
    return ok({ alg: 'EdDSA', publicKey: jwk.x });
  }
  if (jwk.kty === 'EC' && jwk.crv === 'P-256' && typeof jwk.x === 'string' && typeof jwk.y === 'string') {
    const x = fromBase64url(jwk.x);
    const y = fromBase64url(jwk.y);
    if (!x.ok || !y.ok || x.value.length !== 32 || y.value.length !== 32)
      return fail('invalid_document', 'a P-256 JWK x and y are 32 bytes each');
    const pub = new Uint8Array(65);
    pub[0] = 4;
    pub.set(x.value, 1);
    pub.set(y.value, 33);
    return ok({ alg: 'ES256', publicKey: toBase64url(pub) });
  }
  return fail('unsupported_alg', `JWK ${String(jwk.kty)}/${String(jwk.crv)} is neither OKP/Ed25519 nor EC/P-256`);
}

/** KeyRecords of a DID document; `skipped` names the methods that could not be used. */
export function keysFromDidDocument(
  doc: unknown,
  did: string,
  f: { role: KeyRole; validFrom: string },
): Result<{ keys: KeyRecord[]; skipped: string[] }> {
  const d = doc as { id?: unknown; controller?: unknown; verificationMethod?: unknown };
  if (!d || typeof d !== 'object' || d.id !== did) return fail('invalid_document', `the DID document's id is not ${did}`);
  if (!Array.isArray(d.verificationMethod)) return fail('invalid_document', 'the DID document has no verificationMethod array');
  const keys: KeyRecord[] = [];
  const skipped: string[] = [];
  for (const m of d.verificationMethod as Array<Record<string, unknown>>) {
    const id = typeof m?.id === 'string' ? (m.id.startsWith('#') ? did + m.id : m.id) : undefined;
    if (!id || !m.publicKeyJwk) {
      skipped.push(`${String(id ?? '?')}: no id or publicKeyJwk`);
      continue;
    }
    const k = jwkToKey(m.publicKeyJwk as Jwk);
    if (!k.ok) {
      skipped.push(`${id}: ${k.detail}`);
      continue;
    }
    const owner = typeof m.controller === 'string' ? m.controller : did;
    const rec: KeyRecord = {
      kind: 'KeyRecord',
      kid: id,
      alg: k.value.alg,
      publicKey: k.value.publicKey,
      owner,
      role: f.role,
      validFrom: f.validFrom,
    };
    const r = readDocument('KeyRecord', rec);
    if (!r.ok) skipped.push(`${id}: ${r.detail}`);
    else keys.push(r.value);
  }
  return ok({ keys, skipped });
}

/** KeyRecords of a {keys:[…]} document (well-known, a log's keys, a key cache). */
export function keysFromKeysDocument(doc: unknown): Result<{ keys: KeyRecord[]; skipped: string[] }> {
  const d = doc as { keys?: unknown };
  if (!d || typeof d !== 'object' || !Array.isArray(d.keys)) return fail('invalid_document', 'a keys document is {"keys":[KeyRecord…]}');
  const keys: KeyRecord[] = [];
  const skipped: string[] = [];
  for (const k of d.keys) {
    const r = readDocument('KeyRecord', k);
    if (r.ok) keys.push(r.value);
    else skipped.push(`${String((k as { kid?: unknown })?.kid ?? '?')}: ${r.code}: ${r.detail}`);
  }
  return ok({ keys, skipped });
}
