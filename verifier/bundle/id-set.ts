// verifier/bundle/id-set.ts: the (source, id) uniqueness check of DESIGN §8 in bounded memory. Each
// pair becomes a 64-bit digest, the first 8 bytes of SHA-256(salt || u32be(len source) || source ||
// id) with a fresh random 16-byte salt per run, kept in an open-addressing table of Uint32 pairs
// (linear probing, load <= 0.6, doubling). Memory: at most about 27 bytes per distinct pair (16 MB for
// 10^6 pairs), nothing else. A true duplicate is always found. A false duplicate needs two of n pairs
// to share 64 bits: probability below n^2 / 2^65 (3e-8 at 10^6), and the secret salt keeps a log
// writer from crafting one. Left out: which earlier seq held the pair (that would cost O(n) memory).

import { defaultBackend, type CryptoBackend } from '../crypto/default.ts';

export interface IdSet {
  /** Adds the pair; false when it was already present (a duplicate). */
  add(source: string, id: string): boolean;
  readonly size: number;
  /** Bytes held by the table, for the memory bound in reports and tests. */
  readonly bytes: number;
}

const MAX_LOAD = 0.6;

export function createIdSet(opts: { backend?: CryptoBackend; salt?: Uint8Array; initialSlots?: number } = {}): IdSet {
  const backend = opts.backend ?? defaultBackend();
  const salt = opts.salt ?? backend.randomBytes(16);
  let slots = Math.max(16, 2 ** Math.ceil(Math.log2(opts.initialSlots ?? 1024)));
  let table = new Uint32Array(2 * slots); // (hi, lo) per slot; (0, 0) is empty
  let count = 0;

  const enc = new TextEncoder();
  let buf = new Uint8Array(256);
  buf.set(salt, 0);

  function digest(source: string, id: string): [number, number] {
    // salt || u32be(byte length of source) || source || id, in one reused buffer.
    const need = salt.length + 4 + 3 * (source.length + id.length);
    if (buf.length < need) {
      buf = new Uint8Array(2 * need);
      buf.set(salt, 0);
    }
    const sLen = enc.encodeInto(source, buf.subarray(salt.length + 4)).written;
    new DataView(buf.buffer).setUint32(salt.length, sLen);
    const iLen = enc.encodeInto(id, buf.subarray(salt.length + 4 + sLen)).written;
    const d = backend.sha256(buf.subarray(0, salt.length + 4 + sLen + iLen));
    const hi = ((d[0] << 24) | (d[1] << 16) | (d[2] << 8) | d[3]) >>> 0;
    const lo = ((d[4] << 24) | (d[5] << 16) | (d[6] << 8) | d[7]) >>> 0;
    return hi === 0 && lo === 0 ? [0, 1] : [hi, lo];
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

  function grow(): void {
    const old = table;
    const oldSlots = slots;
    slots *= 2;
    table = new Uint32Array(2 * slots);
    for (let p = 0; p < oldSlots; p++) {
      const h = old[2 * p];
      const l = old[2 * p + 1];
      if (h !== 0 || l !== 0) insert(table, slots, h, l);
    }
  }

  return {
    add(source, id) {
      const [hi, lo] = digest(source, id);
      if (!insert(table, slots, hi, lo)) return false;
      count++;
      if (count > MAX_LOAD * slots) grow();
      return true;
    },
    get size() {
      return count;
    },
    get bytes() {
      return table.byteLength;
    },
  };
}
