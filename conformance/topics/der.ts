// conformance/topics/der.ts: a strict DER reader for ECDSA-Sig-Value (SEQUENCE { r INTEGER,
// s INTEGER }, X.690 §10 / RFC 3279 §2.2.3), used only to run Wycheproof's DER-encoded P-256 files
// against the project's raw r||s verifiers. The project itself never accepts DER (docs/design.md §3: ES256 is
// raw r||s, DER rejected); this converts a test input. Strict means: definite minimal lengths, no
// trailing bytes, minimal non-negative INTEGERs, nothing else in the SEQUENCE. Any deviation is
// malformed (null), which the runner scores as an invalid signature.

interface Tlv {
  tag: number;
  value: Uint8Array;
  end: number;
}

/** One TLV at `at` with a minimal definite length, or null. */
function readTlv(b: Uint8Array, at: number): Tlv | null {
  if (at + 2 > b.length) return null;
  const tag = b[at];
  let len = b[at + 1];
  let p = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    // 0x80 is the indefinite form (BER only); more than 4 length bytes cannot fit any input here.
    if (n === 0 || n > 4 || p + n > b.length) return null;
    if (b[p] === 0) return null; // leading zero length byte: not minimal
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[p + i];
    p += n;
    if (len < 0x80) return null; // long form for a short length: not minimal
  }
  if (p + len > b.length) return null;
  return { tag, value: b.subarray(p, p + len), end: p + len };
}

/** A DER INTEGER's contents as an unsigned big-endian value of `size` bytes, or null. */
function readUnsigned(v: Uint8Array, size: number): Uint8Array | null {
  if (v.length === 0) return null;
  if (v[0] & 0x80) return null; // negative
  if (v.length > 1 && v[0] === 0 && !(v[1] & 0x80)) return null; // superfluous leading zero
  const digits = v[0] === 0 && v.length > 1 ? v.subarray(1) : v;
  if (digits.length > size) return null; // too large for the field: cannot be a valid scalar
  const out = new Uint8Array(size);
  out.set(digits, size - digits.length);
  return out;
}

/** Strict DER ECDSA-Sig-Value -> raw r||s of 2*size bytes (size 32 for P-256), or null if malformed. */
export function derToRawSignature(der: Uint8Array, size = 32): Uint8Array | null {
  const seq = readTlv(der, 0);
  if (!seq || seq.tag !== 0x30 || seq.end !== der.length) return null;
  const r = readTlv(seq.value, 0);
  if (!r || r.tag !== 0x02) return null;
  const s = readTlv(seq.value, r.end);
  if (!s || s.tag !== 0x02 || s.end !== seq.value.length) return null;
  const rb = readUnsigned(r.value, size);
  const sb = readUnsigned(s.value, size);
  if (!rb || !sb) return null;
  const out = new Uint8Array(2 * size);
  out.set(rb, 0);
  out.set(sb, size);
  return out;
}

/** The DER encoding of raw r||s (minimal), for building test inputs. */
export function rawSignatureToDer(raw: Uint8Array): Uint8Array {
  if (raw.length % 2 !== 0) throw new TypeError('raw r||s has even length');
  const half = raw.length / 2;
  const int = (x: Uint8Array): number[] => {
    let i = 0;
    while (i < x.length - 1 && x[i] === 0) i++;
    const d = [...x.subarray(i)];
    if (d[0] & 0x80) d.unshift(0);
    return [0x02, d.length, ...d];
  };
  const body = [...int(raw.subarray(0, half)), ...int(raw.subarray(half))];
  if (body.length > 0x7f) throw new TypeError('signature too long for this helper');
  return Uint8Array.from([0x30, body.length, ...body]);
}
