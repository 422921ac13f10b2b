// conformance/gen/core-vectors.ts: builds the vector files for the Core 0.2 §5 integrity rules that
// every part shares: the document hash, RFC-0012 signatures (signature-vectors.ts builds them, with
// every way of moving one), KeyRecord validity edges, and selective disclosure. Document-hash
// vectors state a hash computed here from a HAND-WRITTEN canonical string, not by
// verifier/signing/document-hash.ts, so they test the hashing rule rather than repeat its
// output. Expected verdicts are written by hand from the spec; the runner checks them.

import { toBase64url, utf8, formatHash } from '../../verifier/encoding/index.ts';
import { createDisclosure } from '../../verifier/documents/index.ts';
import { signDocument } from '../../verifier/signing/index.ts';
import {
  backend,
  clone,
  createKeys,
  DEVICE,
  fixedBytes,
  invalid,
  shiftMs,
  T,
  valid,
  type Keys,
  type VectorCase,
  type VectorFile,
} from './fixtures.ts';
import { signatureFile } from './signature-vectors.ts';

export { signatureFile };

function sha256Of(canonical: string): string {
  return formatHash(backend.sha256(utf8(canonical)));
}

export function documentHashFile(k: Keys): VectorFile {
  const pk = k.dev.record.publicKey;
  const keyCanon = `{"alg":"EdDSA","kid":"dev-oven-7","kind":"KeyRecord","owner":"${DEVICE}","publicKey":"${pk}","role":"device","validFrom":"${T.keysFrom}"}`;
  const keyDoc = {
    kind: 'KeyRecord',
    kid: 'dev-oven-7',
    alg: 'EdDSA',
    publicKey: pk,
    owner: DEVICE,
    role: 'device',
    validFrom: T.keysFrom,
    hash: sha256Of(keyCanon),
    signature: { alg: 'EdDSA', kid: 'x', signedAt: T.t0, sig: 'AA' },
  };
  const nestedCanon = '{"kind":"Example","meta":{"hash":"inner","signature":"inner"}}';
  const nestedDoc = { signature: [], hash: 'outer', meta: { signature: 'inner', hash: 'inner' }, kind: 'Example' };
  const ceCanon = `{"cookwalaseq":3,"data":{"tempC":92.5},"datacontenttype":"application/json","hash":"kept","id":"e-0001","signature":"kept","source":"${DEVICE}","specversion":"1.0","subject":"x-0001","type":"cookwala.execution.running"}`;
  const ceDoc = {
    specversion: '1.0',
    id: 'e-0001',
    source: DEVICE,
    type: 'cookwala.execution.running',
    subject: 'x-0001',
    cookwalaseq: 3,
    datacontenttype: 'application/json',
    data: { tempC: 92.5 },
    hash: 'kept',
    signature: 'kept',
    cookwalasig: 'eyJzaWciOiJ4In0',
  };
  // Keys sort by UTF-16 code units: "\r" < "a" < "b" < "é" < "€" < "😀" (a surrogate pair, 0xD83D).
  // eslint-disable-next-line no-loss-of-precision -- the literal as the JCS test vector writes it
  const orderDoc = { '😀': 333333333.33333329, '€': 1, é: 0.1, b: [true, null, '\u0000'], a: 1e30, '\r': 'line\u2028sep' };
  const orderCanon = '{"\\r":"line\u2028sep","a":1e+30,"b":[true,null,"\\u0000"],"é":0.1,"€":1,"😀":333333333.3333333}';
  const nfcCanon = '{"name":"caf\u00e9"}';
  return {
    topic: 'document-hash',
    description:
      'Core 0.2 §5 document hash: sha256: + hex(SHA-256(UTF-8(JCS(document without its top-level hash and signature members)))); for a CloudEvent only cookwalasig is removed. Each `hash` here was computed from a hand-written canonical string.',
    cases: [
      valid('keyrecord-hash-and-signature-removed', 'top-level hash and signature members are not covered', {
        op: 'document-hash',
        document: keyDoc,
        hash: sha256Of(keyCanon),
      }),
      valid('nested-hash-is-content', 'only top-level members are removed; a nested hash or signature is content', {
        op: 'document-hash',
        document: nestedDoc,
        hash: sha256Of(nestedCanon),
      }),
      valid(
        'cloudevent-only-cookwalasig-removed',
        'for a CloudEvent the signature member is cookwalasig; hash and signature are ordinary extensions and stay covered',
        { op: 'document-hash', document: ceDoc, hash: sha256Of(ceCanon) },
      ),
      valid(
        'jcs-key-order-numbers-strings',
        'RFC 8785: keys by UTF-16 code units, ECMAScript numbers, minimal string escapes (U+2028 raw, U+0000 escaped)',
        { op: 'document-hash', document: orderDoc, hash: sha256Of(orderCanon) },
      ),
      invalid('no-unicode-normalization', 'hash_mismatch', 'JCS does not normalize Unicode: "cafe\\u0301" is not "caf\\u00e9"', {
        op: 'document-hash',
        document: { name: 'cafe\u0301' },
        hash: sha256Of(nfcCanon),
      }),
      invalid('stated-hash-one-digit-off', 'hash_mismatch', 'a hash that differs in one hex digit', {
        op: 'document-hash',
        document: keyDoc,
        hash: sha256Of(keyCanon).replace(/.$/, (c) => (c === '0' ? '1' : '0')),
      }),
      invalid('stated-hash-uppercase', 'hash_mismatch', 'hash strings are lowercase hex; an uppercase spelling is another string', {
        op: 'document-hash',
        document: keyDoc,
        hash: 'sha256:' + sha256Of(keyCanon).slice(7).toUpperCase(),
      }),
      invalid('not-an-object', 'invalid_document', 'a document is a JSON object', {
        op: 'document-hash',
        document: [1, 2, 3],
        hash: sha256Of('[1,2,3]'),
      }),
    ],
  };
}

export function keyValidityFile(k: Keys): VectorFile {
  const w = k.windowed.record;
  const r = k.revoked.record;
  const at = (id: string, d: string, key: unknown, signedAt: string, code?: Parameters<typeof invalid>[1]) =>
    code ? invalid(id, code, d, { op: 'key-valid-at', key, signedAt }) : valid(id, d, { op: 'key-valid-at', key, signedAt });
  return {
    topic: 'key-validity',
    description:
      'KeyRecord validity (Core 0.2 §5, docs/design.md §3): valid only if validFrom <= signedAt, signedAt <= validUntil (when set) and signedAt < revokedAt (when set).',
    cases: [
      at('at-validFrom', 'signedAt equal to validFrom is valid', w, w.validFrom),
      at('before-validFrom', 'one millisecond before validFrom', w, shiftMs(w.validFrom, -1), 'key_not_valid_at'),
      at('at-validUntil', 'signedAt equal to validUntil is valid', w, T.until),
      at('after-validUntil', 'one millisecond after validUntil', w, shiftMs(T.until, 1), 'key_not_valid_at'),
      at('before-revokedAt', 'one millisecond before revokedAt is valid', r, shiftMs(T.revoked, -1)),
      at('at-revokedAt', 'signedAt equal to revokedAt is already revoked', r, T.revoked, 'key_revoked'),
      at('after-revokedAt', 'a day after revokedAt', r, shiftMs(T.revoked, 86_400_000), 'key_revoked'),
      at('signedAt-not-rfc3339', 'a signedAt that is not RFC 3339 UTC with milliseconds', w, '2026-11-30 10:00:00', 'invalid_document'),
      at(
        'publicKey-wrong-length',
        'an Ed25519 KeyRecord whose publicKey is 31 bytes',
        { ...w, publicKey: toBase64url(fixedBytes('short key', 31)) },
        T.t1,
        'invalid_document',
      ),
      at(
        'unknown-role',
        'a KeyRecord role outside sequencer, witness, device, operator, catalog',
        { ...w, role: 'admin' },
        T.t1,
        'invalid_document',
      ),
    ].map(clone),
  };
}

export function disclosureFile(k: Keys): VectorFile {
  const salt = fixedBytes('salt 1', 16);
  const d1 = createDisclosure('Asha Rao', backend, salt);
  const d2 = createDisclosure({ allergens: ['peanut'], household: 4 }, backend, fixedBytes('salt 2', 16));
  const short = createDisclosure('Asha Rao', backend, fixedBytes('salt 3', 15));
  const doc = signDocument(
    { kind: 'Example', coreVersion: '0.2.1', owner: { ...d1.digest }, note: 'the owner is disclosed only to those allowed' },
    k.operator.signer,
    T.t0,
    backend,
  );
  return {
    topic: 'disclosures',
    description:
      'Selective disclosure (Core 0.2 §5): {"disclosure": sha256(JCS([salt, value]))} with a 16-byte base64url salt; revealing [salt, value] proves the value and the signature still verifies.',
    cases: [
      valid('string-value', 'a revealed string value', { op: 'verify-disclosure', digest: d1.digest, revealed: d1.revealed }),
      valid('object-value', 'a revealed object value (hashed in JCS form)', {
        op: 'verify-disclosure',
        digest: d2.digest,
        revealed: d2.revealed,
      }),
      valid('object-value-other-member-order', 'the same object value with members in another order: JCS makes it the same', {
        op: 'verify-disclosure',
        digest: d2.digest,
        revealed: [d2.revealed[0], { household: 4, allergens: ['peanut'] }],
      }),
      invalid('wrong-value', 'bad_disclosure', 'the right salt with another value', {
        op: 'verify-disclosure',
        digest: d1.digest,
        revealed: [d1.revealed[0], 'Asha Rau'],
      }),
      invalid('wrong-salt', 'bad_disclosure', 'the right value with another salt', {
        op: 'verify-disclosure',
        digest: d1.digest,
        revealed: [toBase64url(fixedBytes('salt 9', 16)), 'Asha Rao'],
      }),
      invalid('short-salt', 'bad_disclosure', 'a 15-byte salt, even with a matching digest: short salts make digests guessable', {
        op: 'verify-disclosure',
        digest: short.digest,
        revealed: short.revealed,
      }),
      invalid('not-a-pair', 'bad_disclosure', 'a revealed disclosure is exactly [salt, value]', {
        op: 'verify-disclosure',
        digest: d1.digest,
        revealed: [...d1.revealed, 'extra'],
      }),
      invalid('not-an-array', 'bad_disclosure', 'a revealed disclosure is an array', {
        op: 'verify-disclosure',
        digest: d1.digest,
        revealed: { salt: d1.revealed[0], value: 'Asha Rao' },
      }),
      valid('inside-signed-document', 'a digest inside a signed document: the signature verifies and so does the reveal', {
        op: 'verify-disclosure',
        document: doc,
        keys: [k.operator.record],
        path: ['owner'],
        revealed: d1.revealed,
      }),
      invalid('inside-signed-document-wrong-value', 'bad_disclosure', 'the signed document verifies, the reveal does not', {
        op: 'verify-disclosure',
        document: doc,
        keys: [k.operator.record],
        path: ['owner'],
        revealed: [d1.revealed[0], 'someone else'],
      }),
    ].map(clone),
  };
}

export function coreVectorFiles(k: Keys = createKeys()): Record<string, VectorFile> {
  return {
    'document-hash.json': documentHashFile(k),
    'signatures.json': signatureFile(k),
    'key-validity.json': keyValidityFile(k),
    'disclosures.json': disclosureFile(k),
  };
}

export type { VectorCase };
