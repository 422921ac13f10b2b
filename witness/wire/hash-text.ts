// witness/wire/hash-text.ts: the C2SP form of a 32-byte hash, a line of strict standard base64
// (a tlog-witness consistency proof line, C2SP tlog-witness), decoded in one pass: exactly the
// lines verifier/c2sp/note/base64.ts fromBase64Std decodes to 32 bytes (44 characters, one `=`, zero
// trailing bits; hash-text.test.ts checks both against each other). The `sha256:` hash strings of
// the libp2p protocol are read by verifier/encoding/wire.ts parseHash. Pure code.

import { B64STD_VALUE } from '../../verifier/encoding/index.ts';

const sextet = (c: number): number => (c < 128 ? B64STD_VALUE[c] : -1);

/**
 * The 32 bytes of a strict, padded standard-base64 line, or undefined when fromBase64Std would
 * refuse it or give another length: 43 alphabet characters whose last carries 4 bits (its low 2
 * bits zero), then one `=`.
 */
export function hashFromBase64Std(s: string): Uint8Array | undefined {
  if (typeof s !== 'string' || s.length !== 44) return undefined;
  return decode44((i) => s.charCodeAt(i));
}

/**
 * hashFromBase64Std of the line b[start, end) (a request body's bytes, not first made a string):
 * the same verdict as for the UTF-8 text of those bytes, since every byte of a non-ASCII
 * character is above 127 and no base64 character.
 */
export function hashFromBase64StdBytes(b: Uint8Array, start: number, end: number): Uint8Array | undefined {
  if (end - start !== 44 || start < 0 || end > b.length) return undefined;
  return decode44((i) => b[start + i]);
}

/** The 44 character codes that `code` gives, decoded as above. */
function decode44(code: (i: number) => number): Uint8Array | undefined {
  if (code(43) !== 61) return undefined;
  const out = new Uint8Array(32);
  let o = 0;
  // 40 characters -> 30 bytes, four at a time.
  for (let i = 0; i < 40; i += 4) {
    const a = sextet(code(i));
    const b = sextet(code(i + 1));
    const c = sextet(code(i + 2));
    const d = sextet(code(i + 3));
    if ((a | b | c | d) < 0) return undefined;
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  // The last 3 characters carry 16 bits: 6 + 6 + 4 (the low 2 bits of the third must be zero).
  const a = sextet(code(40));
  const b = sextet(code(41));
  const c = sextet(code(42));
  if ((a | b | c) < 0 || (c & 3) !== 0) return undefined;
  out[o++] = (a << 2) | (b >> 4);
  out[o] = ((b & 15) << 4) | (c >> 2);
  return out;
}
