// conformance/gen/core-vectors.ts: builds the vector files for the Core 0.2 §5 integrity rules that
// every part shares: the document hash, RFC-0012 signatures (and every way of moving one), KeyRecord
// validity edges, and selective disclosure. Document-hash vectors state a hash computed here from a
// HAND-WRITTEN canonical string, not by verifier/documents/document-hash.ts, so they test the hashing rule rather
// than repeat its output. Expected verdicts are written by hand from the spec; the runner checks them.

import type { JsonObject } from '../../verifier/documents/document-hash.ts';
import { fromBase64url, toBase64url, utf8, formatHash } from '../../verifier/encoding/wire.ts';
import { createDisclosure } from '../../verifier/documents/disclosure.ts';
import { signDocument, signHash, type Signature } from '../../verifier/documents/signature.ts';
import {
  backend,
  clone,
  createKeys,
  DEVICE,
  fixedBytes,
  invalid,
  LOG,
  shiftMs,
  T,
  valid,
  type Keys,
  type VectorCase,
  type VectorFile,
} from './fixtures.ts';

const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const ED25519_L = 2n ** 252n + 27742317777372353535851937790883648493n;

function sha256Of(canonical: string): string {
  return formatHash(backend.sha256(utf8(canonical)));
}

function bytesToBig(b: Uint8Array): bigint {
  let n = 0n;
  for (const x of b) n = n * 256n + BigInt(x);
  return n;
}
function bigToBytes(n: bigint, len: number): Uint8Array {
  const out = new Uint8Array(len);
  for (let i = len - 1; i >= 0; i--) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}
function sigBytes(s: Signature): Uint8Array {
  const r = fromBase64url(s.sig);
  if (!r.ok) throw new TypeError('generated signature is base64url');
  return r.value;
}

/** The same ES256 signature with s replaced by n - s (still valid: ES256 does not require low S). */
function flipS(s: Signature): Signature {
  const b = sigBytes(s);
  const sv = bytesToBig(b.subarray(32));
  const out = Uint8Array.from(b);
  out.set(bigToBytes(P256_N - sv, 32), 32);
  return { ...s, sig: toBase64url(out) };
}

/** The same Ed25519 signature with S + L (non-canonical S; strict RFC 8032 rejects it). */
function nonCanonicalS(s: Signature): Signature {
  const b = sigBytes(s);
  const le = Uint8Array.from(b.subarray(32)).reverse();
  const out = Uint8Array.from(b);
  out.set(bigToBytes(bytesToBig(le) + ED25519_L, 32).reverse(), 32);
  return { ...s, sig: toBase64url(out) };
}

/** DER SEQUENCE{INTEGER r, INTEGER s} of a raw r||s signature (refused by ES256 as used here). */
function derOf(s: Signature): Signature {
  const b = sigBytes(s);
  const int = (x: Uint8Array) => {
    const d = [...x];
    while (d.length > 1 && d[0] === 0 && !(d[1] & 0x80)) d.shift();
    if (d[0] & 0x80) d.unshift(0);
    return [0x02, d.length, ...d];
  };
  const body = [...int(b.subarray(0, 32)), ...int(b.subarray(32))];
  return { ...s, sig: toBase64url(Uint8Array.from([0x30, body.length, ...body])) };
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

function logDoc(coreVersion = '0.2.1'): JsonObject {
  return { kind: 'Log', coreVersion, log: LOG, mode: 'hash_only', sequencer: 'seq-1', createdAt: T.genesis };
}

export function signatureFile(k: Keys): VectorFile {
  const seqKeys = [k.seq.record];
  const signed = signDocument(logDoc(), k.seq.signer, T.genesis, backend);
  const es = signDocument(clone(k.devP256.record) as unknown as JsonObject, k.operator.signer, T.t0, backend);
  const opKeys = [k.operator.record];
  const tampered = { ...signed, mode: 'full' };
  const rehashed = signDocument({ ...logDoc(), mode: 'full' }, k.seq.signer, T.genesis, backend);
  const moved = { ...rehashed, signature: signed.signature };
  const sameKeyOtherKid = { ...k.seq.record, kid: 'seq-1-alias' };
  const bare = (doc: JsonObject, signer = k.seq.signer) => {
    const h = signDocument(doc, signer, T.genesis, backend).hash;
    return {
      ...doc,
      hash: h,
      signature: { alg: signer.alg, kid: signer.kid, signedAt: T.genesis, sig: toBase64url(signer.sign(utf8(h))) },
    };
  };
  const hash = signed.hash;
  const sig = signed.signature;
  const vs = (id: string, d: string, extra: Record<string, unknown>) =>
    valid(id, d, { op: 'verify-signature', hash, kind: 'Log', signature: sig, keys: seqKeys, ...extra });
  const is = (id: string, code: Parameters<typeof invalid>[1], d: string, extra: Record<string, unknown>) =>
    invalid(id, code, d, { op: 'verify-signature', hash, kind: 'Log', signature: sig, keys: seqKeys, ...extra });
  const revokedSig = signHash(hash, 'Log', k.revoked.signer, T.revoked);
  const earlySig = signHash(hash, 'Log', k.windowed.signer, shiftMs(T.t0, -1));
  return {
    topic: 'signatures',
    description:
      'RFC-0012 signatures (Core 0.2 §5): the signed bytes are UTF-8(JCS({alg, hash, kid, kind, signedAt})), rebuilt by the verifier from the Signature object and the recomputed hash, so a signature cannot move to another document, kid, alg, kind or signedAt. EdDSA is strict RFC 8032; ES256 is raw r||s, high S allowed, DER refused.',
    cases: [
      valid('eddsa-log-descriptor', 'a Log document signed by the sequencer key (EdDSA)', {
        op: 'verify-document',
        document: signed,
        keys: seqKeys,
      }),
      valid('es256-keyrecord', 'a device KeyRecord signed by an operator key (ES256, raw r||s)', {
        op: 'verify-document',
        document: es,
        keys: opKeys,
      }),
      valid('es256-high-s-accepted', 'the same ES256 signature with s replaced by n - s: ES256 does not require low S', {
        op: 'verify-document',
        document: { ...es, signature: flipS(es.signature) },
        keys: opKeys,
      }),
      invalid('es256-der-refused', 'bad_signature', 'the same ES256 signature DER-encoded: only raw r||s is ES256', {
        op: 'verify-document',
        document: { ...es, signature: derOf(es.signature) },
        keys: opKeys,
      }),
      invalid('eddsa-non-canonical-s', 'bad_signature', 'the Ed25519 signature with S + L: strict RFC 8032 refuses a non-canonical S', {
        op: 'verify-document',
        document: { ...signed, signature: nonCanonicalS(sig) },
        keys: seqKeys,
      }),
      invalid('content-changed-hash-stale', 'hash_mismatch', 'a member changed after signing, hash member left as it was', {
        op: 'verify-document',
        document: tampered,
        keys: seqKeys,
      }),
      invalid(
        'content-changed-hash-recomputed',
        'bad_signature',
        'a member changed and the hash recomputed: the signature no longer covers it',
        { op: 'verify-document', document: { ...tampered, hash: rehashed.hash }, keys: seqKeys },
      ),
      invalid('moved-to-another-document', 'bad_signature', 'a valid signature of one document attached to another document', {
        op: 'verify-document',
        document: moved,
        keys: seqKeys,
      }),
      invalid('moved-to-another-kid', 'bad_signature', 'kid changed to a second KeyRecord that holds THE SAME public key: kid is covered', {
        op: 'verify-document',
        document: { ...signed, signature: { ...sig, kid: 'seq-1-alias' } },
        keys: [k.seq.record, sameKeyOtherKid],
      }),
      invalid('moved-to-another-alg', 'bad_signature', 'alg changed from EdDSA to ES256 (the key record says EdDSA)', {
        op: 'verify-document',
        document: { ...signed, signature: { ...sig, alg: 'ES256' } },
        keys: seqKeys,
      }),
      invalid('moved-to-another-signedAt', 'bad_signature', 'signedAt moved by one millisecond: signedAt is covered', {
        op: 'verify-document',
        document: { ...signed, signature: { ...sig, signedAt: shiftMs(T.genesis, 1) } },
        keys: seqKeys,
      }),
      vs('header-kind-log', 'the signature over the hash with kind Log', {}),
      is('moved-to-another-kind', 'bad_signature', 'the same signature and hash checked as kind Checkpoint: kind is covered', {
        kind: 'Checkpoint',
      }),
      is('kind-dropped', 'bad_signature', 'the same signature checked with no kind: a header without kind is other bytes', {
        kind: undefined,
      }),
      is('unknown-kid', 'unknown_key', 'no trusted KeyRecord has the kid', { keys: [k.w1.record] }),
      is('wrong-role', 'key_role_mismatch', 'a sequencer key where a witness key is required', { role: 'witness' }),
      vs('right-role', 'the sequencer key where a sequencer key is required', { role: 'sequencer' }),
      is('unsupported-alg', 'unsupported_alg', 'an algorithm other than EdDSA or ES256', { signature: { ...sig, alg: 'RS256' } }),
      is('sig-padded-base64', 'malformed_signature', 'sig with base64 padding is not base64url without padding', {
        signature: { ...sig, sig: sig.sig + '==' },
      }),
      is('signedAt-without-ms', 'malformed_signature', 'signedAt must be RFC 3339 UTC with milliseconds', {
        signature: { ...sig, signedAt: '2026-11-30T09:00:00Z' },
      }),
      is('signature-unknown-member', 'unknown_field', 'a Signature member that is not alg, kid, signedAt, sig or x-…', {
        signature: { ...sig, nonce: 'abc' },
      }),
      vs('signature-x-member-ignored', 'an x-<vendor> member in a Signature is ignored', { signature: { ...sig, 'x-acme-note': 'hello' } }),
      invalid('revoked-at-signedAt', 'key_revoked', "signedAt equal to the key's revokedAt: already revoked", {
        op: 'verify-signature',
        hash,
        kind: 'Log',
        signature: revokedSig,
        keys: [k.revoked.record],
      }),
      invalid('before-validFrom', 'key_not_valid_at', "signedAt one millisecond before the key's validFrom", {
        op: 'verify-signature',
        hash,
        kind: 'Log',
        signature: earlySig,
        keys: [k.windowed.record],
      }),
      invalid(
        'legacy-bare-hash-refused',
        'legacy_signature',
        'a coreVersion 0.2.0 document signed over the bare hash string, without --allow-legacy-signatures',
        { op: 'verify-document', document: bare(logDoc('0.2.0')), keys: seqKeys },
      ),
      valid('legacy-bare-hash-allowed', 'the same 0.2.0 document with --allow-legacy-signatures', {
        op: 'verify-document',
        document: bare(logDoc('0.2.0')),
        keys: seqKeys,
        allowLegacy: true,
      }),
      invalid(
        'legacy-only-for-0.2.0',
        'legacy_signature',
        'a bare-hash signature on a 0.2.1 document is refused even when legacy is allowed',
        { op: 'verify-document', document: bare(logDoc('0.2.1')), keys: seqKeys, allowLegacy: true },
      ),
    ].map(clone),
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
      'KeyRecord validity (Core 0.2 §5, DESIGN §3): valid only if validFrom <= signedAt, signedAt <= validUntil (when set) and signedAt < revokedAt (when set).',
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
