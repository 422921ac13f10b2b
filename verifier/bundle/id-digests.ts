// verifier/bundle/id-digests.ts: the in-memory half of the (source, id) uniqueness check of
// docs/design.md §8 (id-set.ts): a pair's 64-bit digest, the first 8 bytes of SHA-256(salt || u32be(len
// source) || source || id), built in one reused buffer, and an open-addressing table of such
// digests as Uint32 pairs (linear probing, doubling; (0, 0) marks an empty slot, so a digest of
// (0, 0) is stored as (0, 1)). Left out: the salt's choice, when to grow and when to drop the
// table for the spill files (id-set.ts), the spill files themselves (id-side-file.ts,
// id-spill.ts). Invariant: the table always keeps an empty slot (its load stays below 1), so a
// probe ends, and two pairs share a slot value only when their digests are equal.

import type { CryptoBackend } from '../crypto/default.ts';

/** The digest of the pair last passed to `digest`, as two u32 (hi, lo), and the pair's bytes. */
export interface PairDigester {
  hi: number;
  lo: number;
  digest(source: string, id: string): void;
  /** u32be(len source) || source || id of the last pair (a view into the reused buffer). */
  pairBytes(): Uint8Array;
}

export function createPairDigester(backend: CryptoBackend, salt: Uint8Array): PairDigester {
  const enc = new TextEncoder();
  let buf = new Uint8Array(256);
  let view = new DataView(buf.buffer);
  buf.set(salt, 0);
  let pairEnd = 0; // end of salt || u32be(len) || source || id in buf
  const d: PairDigester = {
    hi: 0,
    lo: 0,
    digest(source, id) {
      // salt || u32be(byte length of source) || source || id, in one reused buffer.
      const need = salt.length + 4 + 3 * (source.length + id.length);
      if (buf.length < need) {
        buf = new Uint8Array(2 * need);
        view = new DataView(buf.buffer);
        buf.set(salt, 0);
      }
      const sLen = enc.encodeInto(source, buf.subarray(salt.length + 4)).written;
      view.setUint32(salt.length, sLen);
      const iLen = enc.encodeInto(id, buf.subarray(salt.length + 4 + sLen)).written;
      pairEnd = salt.length + 4 + sLen + iLen;
      const h = backend.sha256(buf.subarray(0, pairEnd));
      d.hi = ((h[0] << 24) | (h[1] << 16) | (h[2] << 8) | h[3]) >>> 0;
      d.lo = ((h[4] << 24) | (h[5] << 16) | (h[6] << 8) | h[7]) >>> 0;
      if (d.hi === 0 && d.lo === 0) d.lo = 1;
    },
    pairBytes: () => buf.subarray(salt.length, pairEnd),
  };
  return d;
}

// Returns true if inserted, false if present. The table always has an empty slot (load < 1).
function insert(t: Uint32Array, n: number, hi: number, lo: number): boolean {
  const mask = n - 1;
  let p = (lo ^ hi) & mask;
  for (;;) {
    const h = t[2 * p];
    const l = t[2 * p + 1];
    if (h === 0 && l === 0) {
      t[2 * p] = hi;
      t[2 * p + 1] = lo;
      return true;
    }
    if (h === hi && l === lo) return false;
    p = (p + 1) & mask;
  }
}

export interface DigestTable {
  /** True when the digest was inserted, false when the table held it already. */
  insert(hi: number, lo: number): boolean;
  /** Doubles the slots, keeping every digest. */
  grow(): void;
  readonly slots: number;
  readonly byteLength: number;
}

/** A table of `slots` slots (a power of two). */
export function createDigestTable(slots: number): DigestTable {
  let n = slots;
  let table = new Uint32Array(2 * n); // (hi, lo) per slot; (0, 0) is empty
  return {
    insert: (hi, lo) => insert(table, n, hi, lo),
    grow() {
      const old = table;
      const oldSlots = n;
      n *= 2;
      const t = new Uint32Array(2 * n);
      for (let p = 0; p < oldSlots; p++) {
        const h = old[2 * p];
        const l = old[2 * p + 1];
        if (h !== 0 || l !== 0) insert(t, n, h, l);
      }
      table = t;
    },
    get slots() {
      return n;
    },
    get byteLength() {
      return table.byteLength;
    },
  };
}
