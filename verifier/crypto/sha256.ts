// verifier/crypto/sha256.ts: SHA-256 (FIPS 180-4 §6.2) in plain TypeScript for the pure-JS backend
// (verifier/crypto/noble.ts), the one the browser pages run. The verifier hashes every document
// of a bundle, most of them a few hundred bytes, so this version is built for many small inputs:
// one preallocated message schedule and scratch block, big-endian words read straight from the
// bytes, no object, DataView or intermediate copy per call, and text encoded with
// TextEncoder.encodeInto into a reused buffer. Left out: streaming (update/digest), HMAC, other
// SHA-2 sizes (@noble/hashes keeps those). Invariant: the same digest as node:crypto for every byte
// string and, for text, of its UTF-8 (lone surrogates as U+FFFD, as TextEncoder and Node encode
// them); sha256.test.ts checks both with FIPS vectors and property tests. Not reentrant, which JS
// never needs: no call yields.

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INIT = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const W = new Int32Array(64);
const H = new Int32Array(8);
const tail = new Uint8Array(128);
let scratch = new Uint8Array(4096);
const encoder = new TextEncoder();

/** One 64-byte block of `b` at offset `o` into H. */
function block(b: Uint8Array, o: number): void {
  for (let i = 0; i < 16; i++, o += 4) W[i] = (b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3];
  for (let i = 16; i < 64; i++) {
    const w15 = W[i - 15];
    const w2 = W[i - 2];
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let a = H[0];
  let bb = H[1];
  let c = H[2];
  let d = H[3];
  let e = H[4];
  let f = H[5];
  let g = H[6];
  let h = H[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & bb) ^ (a & c) ^ (bb & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = bb;
    bb = a;
    a = (t1 + t2) | 0;
  }
  H[0] = (H[0] + a) | 0;
  H[1] = (H[1] + bb) | 0;
  H[2] = (H[2] + c) | 0;
  H[3] = (H[3] + d) | 0;
  H[4] = (H[4] + e) | 0;
  H[5] = (H[5] + f) | 0;
  H[6] = (H[6] + g) | 0;
  H[7] = (H[7] + h) | 0;
}

/** SHA-256 of b[0, n) into H. */
function digestInto(b: Uint8Array, n: number): void {
  for (let i = 0; i < 8; i++) H[i] = INIT[i];
  const full = n - (n % 64);
  for (let o = 0; o < full; o += 64) block(b, o);
  const rest = n - full;
  tail.fill(0);
  tail.set(b.subarray(full, n));
  tail[rest] = 0x80;
  const len = rest < 56 ? 64 : 128;
  // The bit length as a 64-bit big-endian number (n < 2^53 / 8 always holds for a JS array).
  const bits = n * 8;
  const hi = Math.floor(bits / 0x100000000);
  const lo = bits >>> 0;
  tail[len - 8] = hi >>> 24;
  tail[len - 7] = hi >>> 16;
  tail[len - 6] = hi >>> 8;
  tail[len - 5] = hi;
  tail[len - 4] = lo >>> 24;
  tail[len - 3] = lo >>> 16;
  tail[len - 2] = lo >>> 8;
  tail[len - 1] = lo;
  block(tail, 0);
  if (len === 128) block(tail, 64);
}

function out(): Uint8Array {
  const r = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const v = H[i];
    r[i * 4] = v >>> 24;
    r[i * 4 + 1] = v >>> 16;
    r[i * 4 + 2] = v >>> 8;
    r[i * 4 + 3] = v;
  }
  return r;
}

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function outHex(): string {
  let s = '';
  for (let i = 0; i < 8; i++) {
    const v = H[i];
    s += HEX[v >>> 24] + HEX[(v >>> 16) & 0xff] + HEX[(v >>> 8) & 0xff] + HEX[v & 0xff];
  }
  return s;
}

/** UTF-8 of text into the reused scratch buffer; returns its length. */
function encodeText(text: string): number {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit.
  if (scratch.length < text.length * 3) scratch = new Uint8Array(Math.max(text.length * 3, scratch.length * 2));
  return encoder.encodeInto(text, scratch).written;
}

export function sha256Bytes(data: Uint8Array): Uint8Array {
  digestInto(data, data.length);
  return out();
}

/** SHA-256 of the UTF-8 of text. */
export function sha256OfText(text: string): Uint8Array {
  const n = encodeText(text); // first: it may replace scratch
  digestInto(scratch, n);
  return out();
}

/** Lowercase hex of SHA-256 of the UTF-8 of text. */
export function sha256HexOfText(text: string): string {
  const n = encodeText(text); // first: it may replace scratch
  digestInto(scratch, n);
  return outHex();
}
