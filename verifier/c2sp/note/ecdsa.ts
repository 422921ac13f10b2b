// verifier/c2sp/note/ecdsa.ts: the pieces of signed-note signature type 0x02 (ECDSA as implemented by
// transparency-dev/witness and Sigstore Rekor): the public key is a DER SubjectPublicKeyInfo, the
// signature an ASN.1 DER Ecdsa-Sig-Value over SHA-256 of the note text. Only NIST P-256 with an
// uncompressed point is read (the curve C2SP says SHOULD be used); P-384, P-521 and compressed
// points are reported as unsupported. It leaves out the verify call (CryptoBackend.p256Verify).
// Invariant: DER is read strictly (minimal lengths and integers, no trailing bytes), so one
// signature has one encoding; high S is accepted, as in Go's ecdsa.VerifyASN1 and docs/design.md §3.

const P256_SPKI_PREFIX = Uint8Array.from([
  0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
  0x03, 0x42, 0x00,
]);

/** The 65-byte uncompressed point of a P-256 SPKI, or undefined for anything else. */
export function p256PointFromSpki(der: Uint8Array): Uint8Array | undefined {
  if (der.length !== P256_SPKI_PREFIX.length + 65) return undefined;
  for (let i = 0; i < P256_SPKI_PREFIX.length; i++) if (der[i] !== P256_SPKI_PREFIX[i]) return undefined;
  const point = der.slice(P256_SPKI_PREFIX.length);
  return point[0] === 0x04 ? point : undefined;
}

export function p256Spki(point: Uint8Array): Uint8Array {
  if (point.length !== 65 || point[0] !== 0x04) throw new TypeError('an uncompressed P-256 point is 65 bytes starting 0x04');
  const out = new Uint8Array(P256_SPKI_PREFIX.length + 65);
  out.set(P256_SPKI_PREFIX);
  out.set(point, P256_SPKI_PREFIX.length);
  return out;
}

/** Strict DER Ecdsa-Sig-Value to raw r||s (64 bytes), or undefined. */
export function ecdsaDerToRaw(der: Uint8Array): Uint8Array | undefined {
  if (der.length < 8 || der[0] !== 0x30 || der[1] >= 0x80 || der[1] + 2 !== der.length) return undefined;
  const out = new Uint8Array(64);
  let pos = 2;
  for (const at of [0, 32]) {
    if (der[pos] !== 0x02) return undefined;
    const len = der[pos + 1];
    if (len < 1 || len > 33 || pos + 2 + len > der.length) return undefined;
    let v = der.subarray(pos + 2, pos + 2 + len);
    if (v[0] & 0x80) return undefined; // negative
    if (len > 1 && v[0] === 0 && !(v[1] & 0x80)) return undefined; // non-minimal
    if (len === 33) v = v.subarray(1);
    out.set(v, at + 32 - v.length);
    pos += 2 + len;
  }
  return pos === der.length ? out : undefined;
}

/** Raw r||s to DER (for signers and tests). */
export function ecdsaRawToDer(raw: Uint8Array): Uint8Array {
  if (raw.length !== 64) throw new TypeError('a raw P-256 signature is 64 bytes');
  const int = (x: Uint8Array): number[] => {
    let i = 0;
    while (i < x.length - 1 && x[i] === 0) i++;
    const v = Array.from(x.subarray(i));
    return v[0] & 0x80 ? [0x02, v.length + 1, 0, ...v] : [0x02, v.length, ...v];
  };
  const body = [...int(raw.subarray(0, 32)), ...int(raw.subarray(32))];
  return Uint8Array.from([0x30, body.length, ...body]);
}
