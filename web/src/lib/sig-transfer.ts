// web/src/lib/sig-transfer.ts: one batch of raw signature checks (verifier/bundle/signature-batches.ts
// RawCheck) packed into one ArrayBuffer, so a batch crosses from the verifier page's worker to a
// signature worker (docs/design.md §12b) as one transferred buffer rather than a structured clone of
// hundreds of small objects. Layout: per check one algorithm byte (0 EdDSA, 1 ES256), then the three
// lengths (u32 little-endian) of publicKey, msg and sig, then their bytes. Left out: any judgement of
// the bytes (the receiving batch applies the project's rules). Invariant: unpack(pack(x)) gives the
// same checks in the same order; an algorithm outside the two decodes to one no backend accepts.

import type { RawCheck } from '../../../verifier/bundle/index.ts';

const ALGS = ['EdDSA', 'ES256'] as const;
const UNKNOWN = 0xff;

export function packChecks(items: readonly RawCheck[]): ArrayBuffer {
  let size = 0;
  for (const it of items) size += 13 + it.publicKey.length + it.msg.length + it.sig.length;
  const buf = new ArrayBuffer(size);
  const bytes = new Uint8Array(buf);
  const view = new DataView(buf);
  let o = 0;
  for (const it of items) {
    const a = ALGS.indexOf(it.alg);
    bytes[o] = a < 0 ? UNKNOWN : a;
    view.setUint32(o + 1, it.publicKey.length, true);
    view.setUint32(o + 5, it.msg.length, true);
    view.setUint32(o + 9, it.sig.length, true);
    o += 13;
    for (const part of [it.publicKey, it.msg, it.sig]) {
      bytes.set(part, o);
      o += part.length;
    }
  }
  return buf;
}

export function unpackChecks(buf: ArrayBuffer): RawCheck[] {
  const bytes = new Uint8Array(buf);
  const view = new DataView(buf);
  const out: RawCheck[] = [];
  let o = 0;
  while (o + 13 <= bytes.length) {
    const alg = (ALGS[bytes[o]] ?? 'unknown') as RawCheck['alg'];
    const lens = [view.getUint32(o + 1, true), view.getUint32(o + 5, true), view.getUint32(o + 9, true)];
    o += 13;
    const parts = lens.map((n) => {
      const p = bytes.subarray(o, o + n);
      o += n;
      return p;
    });
    out.push({ alg, publicKey: parts[0], msg: parts[1], sig: parts[2] });
  }
  return out;
}
