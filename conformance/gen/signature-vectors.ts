// conformance/gen/signature-vectors.ts: builds signatures.json, the vectors for RFC-0012 signatures
// (Core 0.2 §5, docs/design.md §3): the signed bytes are UTF-8(JCS({alg, hash, kid, kind, signedAt})),
// rebuilt by the verifier from the Signature object and the recomputed hash, so a signature that
// moves to another document, kid, alg, kind or signedAt is refused; EdDSA is strict RFC 8032 (a
// non-canonical S, S + L, is refused), ES256 is raw r||s with high S allowed (n - s still
// verifies) and DER refused; key windows and revocation at signedAt; bare-hash (0.2.0) signatures
// only with allowLegacy and only on 0.2.0 documents. Expected verdicts are written by hand from
// the spec; the runner checks them. Left out: the document hash itself, key validity edges and
// disclosures (core-vectors.ts).

import type { JsonObject } from '../../verifier/signing/index.ts';
import { fromBase64url, toBase64url, utf8 } from '../../verifier/encoding/index.ts';
import { signDocument, signHash, type Signature } from '../../verifier/signing/index.ts';
import { backend, clone, invalid, LOG, shiftMs, T, valid, type Keys, type VectorFile } from './fixtures.ts';

const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const ED25519_L = 2n ** 252n + 27742317777372353535851937790883648493n;

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
