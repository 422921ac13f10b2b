// witness/wire/hash-text.ts: the `sha256:<64 lowercase hex>` hash strings of the witness protocol
// (Core 0.2 §2, verifier/encoding/wire.ts HASH_RE) read with a character loop instead of a regular
// expression followed by a hex decode: a request carries a dozen or more of them (consistency and
// head proofs, root, head), each read when the request is checked and again when its proofs are.
// Accepts exactly what verifier/encoding/wire.ts isHashString accepts (hash-text.test.ts checks
// both against each other); nothing else (no uppercase hex, no other prefix, no other length).
// Also the C2SP form of a 32-byte hash, a line of strict standard base64 (a tlog-witness
// consistency proof line): exactly the lines verifier/note/base64.ts fromBase64Std decodes to 32
// bytes (44 characters, one `=`, zero trailing bits), decoded in one pass. Pure code.

const PREFIX = 'sha256:';
/** Hex digit values for char codes 0..127; -1 for everything that is not 0-9 or a-f. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = 10 + i;

const digit = (c: number): number => (c < 128 ? HEX[c] : -1);

/** True when `s` is `sha256:` followed by exactly 64 lowercase hex digits (as isHashString). */
export function isHashText(s: unknown): s is string {
  if (typeof s !== 'string' || s.length !== 71 || !s.startsWith(PREFIX)) return false;
  for (let i = 7; i < 71; i++) if (digit(s.charCodeAt(i)) < 0) return false;
  return true;
}

/** The 32 bytes of a hash string, or undefined when it is not one (the same acceptance as isHashText). */
export function hashTextBytes(s: unknown): Uint8Array | undefined {
  if (typeof s !== 'string' || s.length !== 71 || !s.startsWith(PREFIX)) return undefined;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const hi = digit(s.charCodeAt(7 + 2 * i));
    const lo = digit(s.charCodeAt(8 + 2 * i));
    if ((hi | lo) < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** Standard base64 alphabet values for char codes 0..127; -1 elsewhere (`=` included). */
const B64 = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => (B64[c.charCodeAt(0)] = i));
const sextet = (c: number): number => (c < 128 ? B64[c] : -1);

/**
 * The 32 bytes of a strict, padded standard-base64 line, or undefined when fromBase64Std would
 * refuse it or give another length: 43 alphabet characters whose last carries 4 bits (its low 2
 * bits zero), then one `=`.
 */
export function hashFromBase64Std(s: string): Uint8Array | undefined {
  if (typeof s !== 'string' || s.length !== 44 || s.charCodeAt(43) !== 61) return undefined;
  const out = new Uint8Array(32);
  let o = 0;
  // 40 characters -> 30 bytes, four at a time.
  for (let i = 0; i < 40; i += 4) {
    const a = sextet(s.charCodeAt(i));
    const b = sextet(s.charCodeAt(i + 1));
    const c = sextet(s.charCodeAt(i + 2));
    const d = sextet(s.charCodeAt(i + 3));
    if ((a | b | c | d) < 0) return undefined;
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  // The last 3 characters carry 16 bits: 6 + 6 + 4 (the low 2 bits of the third must be zero).
  const a = sextet(s.charCodeAt(40));
  const b = sextet(s.charCodeAt(41));
  const c = sextet(s.charCodeAt(42));
  if ((a | b | c) < 0 || (c & 3) !== 0) return undefined;
  out[o++] = (a << 2) | (b >> 4);
  out[o] = ((b & 15) << 4) | (c >> 2);
  return out;
}
