// conformance/topics/ecdsa-p256.ts: ECDSA P-256 / ES256 vectors on BOTH CryptoBackends, each run a
// case. wycheproof-*p1363*_test.json: raw r||s, any other length invalid (the ES256 form);
// wycheproof-*secp256r1_sha256_test.json: DER signatures decoded strictly here (der.ts; malformed DER
// is invalid) and verified as r||s; rfc7515-*.json: the JWS ES256 example verifies, the JWK's d
// gives its x, y, and a fresh signature verifies across backends; rfc6979-*.json: noble's
// deterministic signer reproduces r, s exactly (node:crypto signs randomly, so it only verifies).
// Groups hashed with anything but SHA-256 are skipped: ES256 is SHA-256 only.

import path from 'node:path';
import { bytesEqual, concatBytes, fromBase64url, toHex, utf8 } from '../../verifier/encoding/index.ts';
import { createNobleBackend } from '../../verifier/crypto/index.ts';
import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import { classify, isDocumentation, listFiles, readJson } from '../files.ts';
import type { Tally } from '../tally.ts';
import type { TopicRunner } from '../topic.ts';
import { derToRawSignature } from './der.ts';
import { backends, runWycheproof, vectorHex, type WycheproofGroup } from './wycheproof.ts';

const PATTERNS = {
  p1363: /^wycheproof-[^/]*p1363[^/]*_test\.json$/,
  der: /^wycheproof-[^/]*secp256r1_sha256_test\.json$/,
  rfc7515: /^rfc7515-[^/]*\.json$/,
  rfc6979: /^rfc6979-[^/]*\.json$/,
};

function groupKey(g: WycheproofGroup): { key: Uint8Array } | { skip: string } {
  const pk = g.publicKey as { curve?: string; uncompressed?: string } | undefined;
  if (g.sha !== undefined && g.sha !== 'SHA-256') return { skip: `hash ${String(g.sha)} is not ES256's SHA-256` };
  if (pk?.curve !== undefined && pk.curve !== 'secp256r1') return { skip: `curve ${pk.curve} is not P-256` };
  if (typeof pk?.uncompressed !== 'string') return { skip: 'group without publicKey.uncompressed' };
  return { key: vectorHex(pk.uncompressed) };
}

function b64u(s: unknown, what: string): Uint8Array {
  const r = fromBase64url(String(s));
  if (!r.ok) throw new Error(`${what} is not base64url`);
  return r.value;
}

function runRfc7515(file: string, doc: Record<string, unknown>, t: Tally): void {
  const jwk = doc.jwk as { x: string; y: string; d?: string };
  const pub = concatBytes(Uint8Array.of(4), b64u(jwk.x, 'jwk.x'), b64u(jwk.y, 'jwk.y'));
  const input = utf8(String(doc.signingInput));
  const sig = b64u(doc.signatureB64u, 'signatureB64u');
  const want = doc.expected === 'invalid' ? 'invalid' : 'valid';
  const bs = backends();
  for (const b of bs) t.check(file, `JWS signature [${b.name}]`, want, b.p256Verify(pub, input, sig) ? 'valid' : 'invalid');
  if (jwk.d === undefined) return;
  const d = b64u(jwk.d, 'jwk.d');
  for (const b of bs) t.check(file, `public key from d [${b.name}]`, toHex(pub), toHex(b.p256PublicKey(d)));
  // ECDSA is randomized in node:crypto: a fresh signature from each backend must verify on the other.
  for (const b of bs) {
    const fresh = b.p256Sign(d, input);
    for (const v of bs)
      if (v !== b) t.check(file, `sign [${b.name}] verify [${v.name}]`, 'valid', v.p256Verify(pub, input, fresh) ? 'valid' : 'invalid');
  }
}

function runRfc6979(file: string, doc: Record<string, unknown>, t: Tally): void {
  const secret = vectorHex(doc.privateKey);
  const pk = doc.publicKey as { x: string; y: string };
  const pub = concatBytes(Uint8Array.of(4), vectorHex(pk.x), vectorHex(pk.y));
  const bs = backends();
  for (const b of bs) t.check(file, `public key [${b.name}]`, toHex(pub), toHex(b.p256PublicKey(secret)));
  const noble = createNobleBackend();
  const vs = doc.vectors as Array<{ messageUtf8: string; r: string; s: string; expected?: string }>;
  if (!Array.isArray(vs)) throw new Error('no vectors[]');
  for (const v of vs) {
    const msg = utf8(v.messageUtf8);
    const rs = concatBytes(vectorHex(v.r), vectorHex(v.s));
    const id = JSON.stringify(v.messageUtf8);
    const got = noble.p256Sign(secret, msg);
    if (bytesEqual(got, rs)) t.pass(file, `${id} deterministic sign [noble]`);
    else t.fail(file, `${id} deterministic sign [noble]`, `r||s ${toHex(rs)}`, toHex(got));
    for (const b of bs) t.check(file, `${id} verify [${b.name}]`, v.expected ?? 'valid', b.p256Verify(pub, msg, rs) ? 'valid' : 'invalid');
  }
}

const P1363 = { key: groupKey, verify: (b: CryptoBackend, pk: Uint8Array, m: Uint8Array, sig: Uint8Array) => b.p256Verify(pk, m, sig) };
const DER = {
  key: groupKey,
  verify(b: CryptoBackend, pk: Uint8Array, m: Uint8Array, der: Uint8Array): boolean {
    const raw = derToRawSignature(der);
    return raw !== null && b.p256Verify(pk, m, raw);
  },
};

const RUNS: Record<keyof typeof PATTERNS, (file: string, doc: unknown, t: Tally) => void> = {
  p1363: (f, doc, t) => runWycheproof(f, doc, P1363, t),
  der: (f, doc, t) => runWycheproof(f, doc, DER, t),
  rfc7515: (f, doc, t) => runRfc7515(f, doc as Record<string, unknown>, t),
  rfc6979: (f, doc, t) => runRfc6979(f, doc as Record<string, unknown>, t),
};

export const ecdsaP256Topic: TopicRunner = {
  async run(dir, t) {
    const { byPattern, unclaimed } = classify(await listFiles(dir), PATTERNS);
    for (const f of unclaimed) if (!isDocumentation(f) && !/_schema[^/]*\.json$/.test(f)) t.ignore(f);
    for (const k of Object.keys(PATTERNS) as Array<keyof typeof PATTERNS>) {
      for (const f of byPattern[k]) {
        try {
          RUNS[k](f, await readJson(path.join(dir, f)), t);
        } catch (e) {
          t.fileError(f, (e as Error).message);
        }
      }
    }
  },
};
