// monitor/id-window.ts: the monitor's (source, id) uniqueness check (docs/design.md §5, §8) over a
// bounded window: the salted 64-bit digests (first 8 bytes of SHA-256(salt || u32be(len source) ||
// source || id), the salt secret and kept in the state) of the last `size` entries. A repeat
// inside the window is a duplicate_id; one further back is not seen by the monitor. That bound is
// the choice that keeps the state small at any log size: the sequencer refuses a repeated pair on
// ingest, a repeat that slipped through is almost always a retry within seconds (well inside the
// window), and the full audit (`cookwala verify`, whose spilled set is exact over the whole log)
// remains the complete check. Implements the verifier's IdSet so verifier/bundle/entries.ts uses it unchanged.
// Left out: spilling, exactness beyond 64 bits (a false duplicate needs a collision under a
// secret salt). Invariant: at most `size` digests are held and persisted, newest last.

import { hash, randomBytes } from 'node:crypto';
import type { IdSet } from '../verifier/bundle/index.ts';

export const DEFAULT_ID_WINDOW = 8192;

export interface IdWindow extends IdSet {
  /** The salt (hex) and the digests in order, for the state file. */
  snapshot(): { salt: string; window: string[] };
}

export function createIdWindow(size = DEFAULT_ID_WINDOW, from?: { salt: string; window: string[] }): IdWindow {
  const salt = from ? Buffer.from(from.salt, 'hex') : randomBytes(16);
  const order: string[] = from ? from.window.slice(-size) : [];
  const held = new Set(order);
  // salt || u32be(byte length of source) || source || id, written into one reused buffer and
  // hashed in one call (no hash object, no buffer per entry).
  let buf = Buffer.alloc(256);
  salt.copy(buf);
  const digest = (source: string, id: string): string => {
    const need = salt.length + 4 + 3 * (source.length + id.length);
    if (buf.length < need) {
      buf = Buffer.alloc(2 * need);
      salt.copy(buf);
    }
    const sLen = buf.write(source, salt.length + 4, 'utf8');
    buf.writeUInt32BE(sLen, salt.length);
    const end = salt.length + 4 + sLen + buf.write(id, salt.length + 4 + sLen, 'utf8');
    return hash('sha256', buf.subarray(0, end), 'hex').slice(0, 16);
  };
  return {
    add(source, id) {
      const d = digest(source, id);
      if (held.has(d)) return false;
      held.add(d);
      order.push(d);
      if (order.length > size) held.delete(order.shift()!);
      return true;
    },
    wait: () => undefined,
    finish: async () => undefined,
    dispose: async () => undefined,
    get size() {
      return order.length;
    },
    get bytes() {
      return order.length * 40;
    },
    runsWritten: 0,
    spilledAfter: 0,
    snapshot: () => ({ salt: salt.toString('hex'), window: [...order] }),
  };
}
