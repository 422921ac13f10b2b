// monitor/id-window.ts: the monitor's (source, id) uniqueness check (docs/design.md §5, §8) over a
// bounded window: the salted 64-bit digests (first 8 bytes of SHA-256(salt || u32be(len source) ||
// source || id), the salt secret and kept in the state) of the last `size` entries. A repeat
// inside the window is a duplicate_id; one further back is not seen by the monitor. That bound is
// the choice that keeps the state small at any log size: the sequencer refuses a repeated pair on
// ingest, a repeat that slipped through is almost always a retry within seconds (well inside the
// window), and the full audit (`cookwala verify`, whose spilled set is exact over the whole log)
// remains the complete check. Implements the verifier's IdSet so verifier/bundle/entries.ts uses it unchanged.
// The digests are numbers, never strings, on the way of each entry: a ring of (hi, lo) Uint32 pairs
// in arrival order and an open-addressing table (linear probing, deletion by backward shift) of
// ring positions, twice the window or more, so a lookup ends at an empty slot; the state file keeps
// them as 16 hex digits each. Left out: spilling, exactness beyond 64 bits (a false duplicate needs
// a collision under a secret salt). Invariant: at most `size` digests are held and persisted, newest
// last, no two equal, and the table holds exactly the ring's positions.

import { hash, randomBytes } from 'node:crypto';
import type { IdSet } from '../verifier/bundle/index.ts';

export const DEFAULT_ID_WINDOW = 8192;

export interface IdWindow extends IdSet {
  /** The salt (hex) and the digests in order, for the state file. */
  snapshot(): { salt: string; window: string[] };
}

const HEX16 = /^[0-9a-f]{16}$/;
const hex8 = (x: number) => x.toString(16).padStart(8, '0');

export function createIdWindow(size = DEFAULT_ID_WINDOW, from?: { salt: string; window: string[] }): IdWindow {
  const cap = Math.max(1, Math.floor(size));
  const salt = from ? Buffer.from(from.salt, 'hex') : randomBytes(16);
  // The ring: digest k of the window (oldest first) at position (first + k) % cap.
  const ring = new Uint32Array(2 * cap);
  let first = 0;
  let count = 0;
  let slots = 16;
  while (slots < 2 * cap) slots *= 2;
  const mask = slots - 1;
  // A slot holds ring position + 1; 0 is empty.
  const table = new Int32Array(slots);
  const home = (hi: number, lo: number) => (lo ^ hi) & mask;

  /** The slot holding digest (hi, lo), or -1. */
  function find(hi: number, lo: number): number {
    for (let p = home(hi, lo); ; p = (p + 1) & mask) {
      const t = table[p];
      if (t === 0) return -1;
      if (ring[2 * (t - 1)] === hi && ring[2 * (t - 1) + 1] === lo) return p;
    }
  }

  /** Empties slot `p`, shifting back the entries of its probe run that may take its place. */
  function remove(p: number): void {
    let i = p;
    for (let j = (i + 1) & mask; ; j = (j + 1) & mask) {
      const t = table[j];
      if (t === 0) break;
      const k = home(ring[2 * (t - 1)], ring[2 * (t - 1) + 1]);
      // An entry whose home lies cyclically in (i, j] is reachable as it is; any other moves to i.
      if (i <= j ? i < k && k <= j : i < k || k <= j) continue;
      table[i] = t;
      i = j;
    }
    table[i] = 0;
  }

  /** Adds (hi, lo), absent, as the newest digest, dropping the oldest when the window is full. */
  function push(hi: number, lo: number): void {
    if (count === cap) {
      remove(find(ring[2 * first], ring[2 * first + 1]));
      first = (first + 1) % cap;
      count--;
    }
    const at = (first + count) % cap;
    ring[2 * at] = hi;
    ring[2 * at + 1] = lo;
    let p = home(hi, lo);
    while (table[p] !== 0) p = (p + 1) & mask;
    table[p] = at + 1;
    count++;
  }

  for (const d of from ? from.window.slice(-cap) : []) {
    if (typeof d !== 'string' || !HEX16.test(d)) continue; // never a digest this window makes
    const hi = parseInt(d.slice(0, 8), 16);
    const lo = parseInt(d.slice(8), 16);
    if (find(hi, lo) < 0) push(hi, lo);
  }

  // salt || u32be(byte length of source) || source || id, written into one reused buffer and
  // hashed in one call (no hash object, no buffer per entry).
  let buf = Buffer.alloc(256);
  salt.copy(buf);
  let hi = 0;
  let lo = 0;
  const digest = (source: string, id: string): void => {
    const need = salt.length + 4 + 3 * (source.length + id.length);
    if (buf.length < need) {
      buf = Buffer.alloc(2 * need);
      salt.copy(buf);
    }
    const sLen = buf.write(source, salt.length + 4, 'utf8');
    buf.writeUInt32BE(sLen, salt.length);
    const end = salt.length + 4 + sLen + buf.write(id, salt.length + 4 + sLen, 'utf8');
    const h = hash('sha256', buf.subarray(0, end), 'buffer');
    hi = h.readUInt32BE(0);
    lo = h.readUInt32BE(4);
  };
  return {
    add(source, id) {
      digest(source, id);
      if (find(hi, lo) >= 0) return false;
      push(hi, lo);
      return true;
    },
    wait: () => undefined,
    finish: async () => undefined,
    dispose: async () => undefined,
    get size() {
      return count;
    },
    get bytes() {
      return ring.byteLength + table.byteLength;
    },
    runsWritten: 0,
    spilledAfter: 0,
    snapshot: () => {
      const window = new Array<string>(count);
      for (let k = 0; k < count; k++) {
        const at = (first + k) % cap;
        window[k] = hex8(ring[2 * at]) + hex8(ring[2 * at + 1]);
      }
      return { salt: salt.toString('hex'), window };
    },
  };
}
