// verifier/bundle/missing-payloads.ts: the entries whose payload line is absent from a bundle, kept until the
// end so that a later `cookwala.log.erased` entry can explain them (docs/design.md §4, §8: an erasure is an
// entry appended after the one it erases, so a streaming reader meets the gap first). Seqs arrive in
// increasing order, so the store is a sorted array searched by bisection: per missing payload 8 bytes
// of seq, 32 bytes of eventHash and 8 bytes naming the erasure entry (0 while unexplained), 48 bytes
// in all (48 MB if 10^6 payloads were erased). Left out: anything about payloads that are present.

import { bytesEqual } from '../encoding/wire.ts';

export type MarkResult = { ok: true } | { ok: false; why: 'not_missing' | 'already_erased' | 'hash_differs'; erasedBy?: number };

export interface MissingPayloads {
  /** Records entry `seq` (> every seq added before) as having no payload line. */
  add(seq: number, eventHash: Uint8Array): void;
  /** An erasure entry `by` names (seq, eventHash): explains the gap when it matches. */
  markErased(seq: number, eventHash: Uint8Array, by: number): MarkResult;
  readonly count: number;
  /** The greatest seq added so far (0 when none). */
  readonly lastSeq: number;
  /** Visits every missing payload in seq order; erasedBy is 0 for an unexplained one. */
  forEach(f: (seq: number, erasedBy: number, eventHash: Uint8Array) => void): void;
  readonly unexplained: number;
}

export function createMissingPayloads(): MissingPayloads {
  let cap = 64;
  let seqs = new Float64Array(cap);
  let by = new Float64Array(cap);
  let hashes = new Uint8Array(32 * cap);
  let n = 0;
  let explained = 0;

  function find(seq: number): number {
    let lo = 0;
    let hi = n - 1;
    while (lo <= hi) {
      const mid = Math.floor((lo + hi) / 2);
      const v = seqs[mid];
      if (v === seq) return mid;
      if (v < seq) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  return {
    add(seq, eventHash) {
      if (eventHash.length !== 32) throw new TypeError('an eventHash digest is 32 bytes');
      if (n > 0 && seq <= seqs[n - 1]) throw new TypeError('missing payloads are added in increasing seq order');
      if (n === cap) {
        cap *= 2;
        const s = new Float64Array(cap);
        s.set(seqs);
        seqs = s;
        const b = new Float64Array(cap);
        b.set(by);
        by = b;
        const h = new Uint8Array(32 * cap);
        h.set(hashes);
        hashes = h;
      }
      seqs[n] = seq;
      by[n] = 0;
      hashes.set(eventHash, 32 * n);
      n++;
    },
    markErased(seq, eventHash, erasure) {
      const i = find(seq);
      if (i < 0) return { ok: false, why: 'not_missing' };
      if (by[i] !== 0) return { ok: false, why: 'already_erased', erasedBy: by[i] };
      if (!bytesEqual(hashes.subarray(32 * i, 32 * i + 32), eventHash)) return { ok: false, why: 'hash_differs' };
      by[i] = erasure;
      explained++;
      return { ok: true };
    },
    get count() {
      return n;
    },
    get lastSeq() {
      return n > 0 ? seqs[n - 1] : 0;
    },
    get unexplained() {
      return n - explained;
    },
    forEach(f) {
      for (let i = 0; i < n; i++) f(seqs[i], by[i], hashes.subarray(32 * i, 32 * i + 32));
    },
  };
}
