// verifier/c2sp/note/subtree.ts: the ML-DSA-44 cosignature of c2sp.org/tlog-cosignature (signature type
// 0x06, at C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9): the signed message is the binary
// `cosigned_message` struct, "subtree/v1\n\0" || u8-length cosigner name || u64 timestamp ||
// u8-length log origin || u64 start || u64 end || 32-byte hash, all big-endian; the note signature
// is the timestamped_signature u64 timestamp || 2420-byte ML-DSA-44 signature. For a checkpoint,
// start is 0 and end is the tree size, and extension lines are not signed. Logs (Sunlight) sign
// their checkpoints with it too, under the key name = origin. It leaves out sign-subtree and
// subtrees with start > 0 (which carry timestamp 0 and have no checkpoint form). Invariant:
// subtreeMessage is the one encoder of the signed bytes, used by signers and verifiers alike;
// timestamps above 2^53 - 1 are refused as malformed, as for cosignature/v1 (cosignature.ts).

import { utf8 } from '../../encoding/wire.ts';
import { fail, ok, type Result } from '../../errors.ts';
import { MLDSA44_SIGNATURE_BYTES } from '../../crypto/mldsa44.ts';

export const SUBTREE_LABEL = 'subtree/v1\n\0';
export const MLDSA44_COSIGNATURE_BYTES = 8 + MLDSA44_SIGNATURE_BYTES;

export interface SubtreeMessage {
  cosignerName: string;
  /** POSIX seconds (0: no statement that this is the largest tree seen). Numbers are u64; a bigint carries any. */
  timestamp: number | bigint;
  origin: string;
  start: number | bigint;
  end: number | bigint;
  hash: Uint8Array;
}

export interface MldsaCosignature {
  timestamp: number;
  /** The 2420-byte ML-DSA-44 signature over subtreeMessage. */
  signature: Uint8Array;
}

const safe = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const u64 = (n: unknown): boolean => safe(n) || (typeof n === 'bigint' && n >= 0n && n < 1n << 64n);

/**
 * The cosigned_message bytes; a TypeError for a name or origin of 0 or more than 255 bytes, or
 * numbers that are not u64. The rule "start > 0 needs timestamp 0" binds signers of subtrees; a
 * checkpoint's message always has start 0, so the encoder leaves it to them.
 */
export function subtreeMessage(m: SubtreeMessage): Uint8Array {
  const name = utf8(m.cosignerName);
  const origin = utf8(m.origin);
  if (name.length < 1 || name.length > 255 || origin.length < 1 || origin.length > 255)
    throw new TypeError('a subtree/v1 cosigner name and log origin are 1 to 255 bytes');
  if (!u64(m.timestamp) || !u64(m.start) || !u64(m.end) || m.hash.length !== 32)
    throw new TypeError('a subtree/v1 message has u64 timestamp, start and end and a 32-byte hash');
  const out = new Uint8Array(12 + 1 + name.length + 8 + 1 + origin.length + 8 + 8 + 32);
  const dv = new DataView(out.buffer);
  let at = 0;
  out.set(utf8(SUBTREE_LABEL), at);
  at += 12;
  out[at++] = name.length;
  out.set(name, at);
  at += name.length;
  dv.setBigUint64(at, BigInt(m.timestamp));
  at += 8;
  out[at++] = origin.length;
  out.set(origin, at);
  at += origin.length;
  dv.setBigUint64(at, BigInt(m.start));
  dv.setBigUint64(at + 8, BigInt(m.end));
  out.set(m.hash, at + 16);
  return out;
}

/** Whether subtreeMessage can encode this name and origin (each 1 to 255 bytes of UTF-8). */
export function subtreeNamesFit(cosignerName: string, origin: string): boolean {
  const n = utf8(cosignerName).length;
  const o = utf8(origin).length;
  return n >= 1 && n <= 255 && o >= 1 && o <= 255;
}

/** Split the signature bytes of an ML-DSA-44 cosignature line (after the 4-byte key ID). */
export function parseMldsaCosignature(sig: Uint8Array): Result<MldsaCosignature> {
  if (sig.length !== MLDSA44_COSIGNATURE_BYTES)
    return fail('malformed_note', `an ML-DSA-44 cosignature is ${MLDSA44_COSIGNATURE_BYTES} bytes, got ${sig.length}`);
  const t = new DataView(sig.buffer, sig.byteOffset, 8).getBigUint64(0);
  if (t > BigInt(Number.MAX_SAFE_INTEGER)) return fail('malformed_note', `cosignature timestamp ${t} is beyond 2^53 - 1 seconds`);
  return ok({ timestamp: Number(t), signature: sig.slice(8) });
}

export function encodeMldsaCosignature(c: MldsaCosignature): Uint8Array {
  if (!safe(c.timestamp) || c.signature.length !== MLDSA44_SIGNATURE_BYTES)
    throw new TypeError(`an ML-DSA-44 cosignature is a safe timestamp and a ${MLDSA44_SIGNATURE_BYTES}-byte signature`);
  const out = new Uint8Array(MLDSA44_COSIGNATURE_BYTES);
  new DataView(out.buffer).setBigUint64(0, BigInt(c.timestamp));
  out.set(c.signature, 8);
  return out;
}
