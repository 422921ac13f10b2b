// verifier/c2sp/note/base64.ts: standard base64 (RFC 4648 §4, alphabet with + and /, `=` padding), the
// encoding of C2SP signed notes, vkeys and checkpoint root hashes (and of Go's JSON []byte, as in
// the transparency-dev Merkle probes). It leaves out base64url, which the Cookwala documents use
// (verifier/encoding/wire.ts). Invariant: decoding is strict, so each byte string has exactly one
// accepted spelling: padding is required, and non-zero trailing bits, whitespace or stray `=` are
// refused. The encoder is toBase64Std of verifier/encoding/wire.ts (native under Node, a portable
// loop in browsers).

import { B64STD_VALUE, decodeCheckedBase64Std } from '../../encoding/wire.ts';
import { fail, ok, type Result } from '../../errors.ts';

const STD_RE = /^[A-Za-z0-9+/]*={0,2}$/;

export { toBase64Std } from '../../encoding/wire.ts';

/**
 * Strict standard base64; the failure code is 'bad_request' and callers re-code it in context.
 * Shape (alphabet, length a multiple of 4, at most two `=` at the end) and canonical bits (the
 * unused low bits of the last character before the padding are zero) are checked on the text,
 * then it is decoded in one pass.
 */
export function fromBase64Std(s: string): Result<Uint8Array> {
  if (typeof s !== 'string' || s.length % 4 !== 0 || !STD_RE.test(s)) return fail('bad_request', 'not padded standard base64');
  const pad = s.charCodeAt(s.length - 1) !== 61 ? 0 : s.charCodeAt(s.length - 2) === 61 ? 2 : 1;
  if (pad > 0 && (B64STD_VALUE[s.charCodeAt(s.length - pad - 1)] & (pad === 2 ? 0x0f : 0x03)) !== 0)
    return fail('bad_request', 'non-canonical standard base64');
  return ok(decodeCheckedBase64Std(s));
}
