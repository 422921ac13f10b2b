// witness/server/checkpoint-cosigner.ts: the witness's JSON cosignature over a verified checkpoint
// (Core 0.2 §5, RFC-0012): the same Signature as verifier/documents/checkpoint.ts
// cosignVerifiedCheckpoint, split so that the signing can happen elsewhere (signing-worker.ts):
// cosignatureHeaderBytes gives the signed bytes (signingHeaderBytes of the header {alg, hash, kid,
// kind: "Checkpoint", signedAt}, which writes this usual shape directly), cosignatureOf wraps a
// signature made over them. Left out: verifying (verifier/signing/signature.ts does that).
// Invariant: the hash and the time are checked (a programmer error otherwise, as in
// cosignVerifiedCheckpoint), so nothing but the fixed shape can be signed.

import { isHashString, isTime, toBase64url } from '../../verifier/encoding/index.ts';
import { CHECKPOINT_KIND } from '../../verifier/documents/index.ts';
import { signingHeader, signingHeaderBytes, type Signature, type Signer } from '../../verifier/signing/index.ts';

/** The signed bytes of our cosignature header: signingHeaderBytes(signingHeader(…)). */
export function cosignatureHeaderBytes(signer: Signer, hash: string, signedAt: string): Uint8Array {
  if (!isTime(signedAt)) throw new TypeError('signedAt is an RFC 3339 UTC time with milliseconds');
  if (!isHashString(hash)) throw new TypeError('not a verified checkpoint hash');
  return signingHeaderBytes(signingHeader({ alg: signer.alg, kid: signer.kid, signedAt }, hash, CHECKPOINT_KIND));
}

/** The Signature made of `sig`, the signer's signature over cosignatureHeaderBytes(signer, hash, signedAt). */
export function cosignatureOf(signer: Signer, signedAt: string, sig: Uint8Array): Signature {
  return { alg: signer.alg, kid: signer.kid, signedAt, sig: toBase64url(sig) };
}

/** cosignVerifiedCheckpoint(verified, signer, signedAt), the same Signature. */
export function cosignCheckpoint(verified: { hash: string }, signer: Signer, signedAt: string): Signature {
  return cosignatureOf(signer, signedAt, signer.sign(cosignatureHeaderBytes(signer, verified.hash, signedAt)));
}
