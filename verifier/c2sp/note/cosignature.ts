// verifier/c2sp/note/cosignature.ts: C2SP tlog-cosignature, the Ed25519 cosignature/v1 type (signature
// type 0x04): the timestamped_signature structure (u64 big-endian POSIX seconds || 64-byte Ed25519
// signature) and the signed message, "cosignature/v1\n" + "time <decimal>\n" + the checkpoint body.
// It leaves out ML-DSA-44 (type 0x06, subtree/v1), which subtree.ts encodes.
// Invariant: cosignatureMessage is the one encoder of the signed bytes, used by signer and
// verifier alike. Timestamps above 2^53 - 1 are refused as malformed (the spec lets verifiers
// reject future timestamps, and a JS number could not carry them exactly).

import { concatBytes, utf8 } from '../../encoding/wire.ts';
import { fail, ok, type Result } from '../../errors.ts';

export const COSIGNATURE_V1_BYTES = 72;

export interface Cosignature {
  /** POSIX seconds. */
  timestamp: number;
  /** The 64-byte Ed25519 signature over cosignatureMessage(body, timestamp). */
  signature: Uint8Array;
}

function isTimestamp(t: unknown): t is number {
  return typeof t === 'number' && Number.isSafeInteger(t) && t >= 0;
}

/** The bytes a cosignature/v1 signs for a checkpoint body (text ending in newline). */
export function cosignatureMessage(body: string | Uint8Array, timestamp: number): Uint8Array {
  if (!isTimestamp(timestamp)) throw new TypeError('a cosignature timestamp is an integer number of seconds in [0, 2^53 - 1]');
  return concatBytes(utf8(`cosignature/v1\ntime ${timestamp}\n`), typeof body === 'string' ? utf8(body) : body);
}

/** Split the signature bytes of a cosignature line (after the 4-byte key ID). */
export function parseCosignature(sig: Uint8Array): Result<Cosignature> {
  if (sig.length !== COSIGNATURE_V1_BYTES)
    return fail('malformed_note', `a cosignature/v1 signature is ${COSIGNATURE_V1_BYTES} bytes, got ${sig.length}`);
  const t = new DataView(sig.buffer, sig.byteOffset, 8).getBigUint64(0);
  if (t > BigInt(Number.MAX_SAFE_INTEGER)) return fail('malformed_note', `cosignature timestamp ${t} is beyond 2^53 - 1 seconds`);
  return ok({ timestamp: Number(t), signature: sig.slice(8) });
}

export function encodeCosignature(c: Cosignature): Uint8Array {
  if (!isTimestamp(c.timestamp) || c.signature.length !== 64)
    throw new TypeError('a cosignature is a safe timestamp and a 64-byte signature');
  const out = new Uint8Array(COSIGNATURE_V1_BYTES);
  new DataView(out.buffer).setBigUint64(0, BigInt(c.timestamp));
  out.set(c.signature, 8);
  return out;
}
