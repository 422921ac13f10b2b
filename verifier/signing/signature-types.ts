// verifier/signing/signature-types.ts: the Signature object and signing header of RFC-0012 (Core 0.2 §5),
// kept apart so keys.ts and signature.ts can both name them without a cycle.

import type { Alg } from './keys.ts';

/** A Signature object: the header is rebuilt from it plus the recomputed document hash. */
export interface Signature {
  alg: Alg;
  kid: string;
  signedAt: string;
  sig: string;
}

/** The signed bytes are UTF-8(JCS(header)); `kind` only when the document has one. */
export interface SigningHeader {
  alg: Alg;
  hash: string;
  kid: string;
  kind?: string;
  signedAt: string;
}
