// witness/server/checkpoint-cosigner.ts: the witness's JSON cosignature over a verified checkpoint
// (Core 0.2 §5, RFC-0012): the same Signature as verifier/documents/checkpoint.ts
// cosignVerifiedCheckpoint, with the signed header's JCS text written from a template instead of
// by the generic canonicalizer. The header {alg, hash, kid, kind: "Checkpoint", signedAt} always
// has these five members, in this code-point order, and JCS writes strings as JSON.stringify does
// (RFC 8785 §3.2.2.2), so the text is `{"alg":…,"hash":…,"kid":…,"kind":"Checkpoint","signedAt":…}`;
// the part fixed by the signer (alg, kid) is written once per signer. checkpoint-cosigner.test.ts
// proves the bytes equal signingHeaderBytes for any kid, hash and time.
// cosignatureOf wraps a signature made elsewhere (signing-worker.ts) over those same bytes.
// Left out: verifying (verifier/documents/signature.ts does that). Invariant: the hash and the
// time are checked (a programmer error otherwise, as in cosignVerifiedCheckpoint), so nothing
// but the fixed shape can be signed.

import { isHashString, isTime, toBase64url, utf8 } from '../../verifier/encoding/wire.ts';
import { CHECKPOINT_KIND } from '../../verifier/documents/checkpoint.ts';
import type { Signature, Signer } from '../../verifier/documents/signature.ts';

interface Template {
  head: string;
  middle: string;
}

/** Per signer object: a new signer (a key rotated in) gets its own template. */
const templates = new WeakMap<Signer, Template>();

function templateOf(signer: Signer): Template {
  let t = templates.get(signer);
  if (t === undefined) {
    t = {
      head: `{"alg":${JSON.stringify(signer.alg)},"hash":"`,
      middle: `","kid":${JSON.stringify(signer.kid)},"kind":${JSON.stringify(CHECKPOINT_KIND)},"signedAt":"`,
    };
    templates.set(signer, t);
  }
  return t;
}

/** The signed bytes of our cosignature header: equal to signingHeaderBytes(signingHeader(…)). */
export function cosignatureHeaderBytes(signer: Signer, hash: string, signedAt: string): Uint8Array {
  if (!isTime(signedAt)) throw new TypeError('signedAt is an RFC 3339 UTC time with milliseconds');
  if (!isHashString(hash)) throw new TypeError('not a verified checkpoint hash');
  const t = templateOf(signer);
  return utf8(`${t.head}${hash}${t.middle}${signedAt}"}`);
}

/** The Signature made of `sig`, the signer's signature over cosignatureHeaderBytes(signer, hash, signedAt). */
export function cosignatureOf(signer: Signer, signedAt: string, sig: Uint8Array): Signature {
  return { alg: signer.alg, kid: signer.kid, signedAt, sig: toBase64url(sig) };
}

/** cosignVerifiedCheckpoint(verified, signer, signedAt), the same Signature. */
export function cosignCheckpoint(verified: { hash: string }, signer: Signer, signedAt: string): Signature {
  return cosignatureOf(signer, signedAt, signer.sign(cosignatureHeaderBytes(signer, verified.hash, signedAt)));
}
