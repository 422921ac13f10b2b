// auditor/audit-ids.ts: the (source, id) pairs of an incremental audit across its resume points
// (`cookwala verify --resume STATE`, docs/monitoring.md "Incremental audits", docs/design.md §8),
// so that a pair repeated after the resume point whose first copy was audited before it is a
// duplicate_id exactly as in a full run. Each pair is kept as a salted 64-bit digest, the first
// 8 bytes of SHA-256(salt || u32be(byte length of source) || source || id), the 16-byte salt
// secret to the auditor and kept in the AuditState; the digests of every audited pair sit sorted
// in a side file beside the state (`STATE.ids-SEQ`, 8 bytes a pair, little-endian), read into one
// buffer outside the JS heap and searched by bisection. A run remembers the digests of its new
// pairs (8 bytes each) and, when the audit is valid, writes the merged side file under a new name
// before the state that names it, then removes the old one: a crash leaves the old state with its
// own side file. Left out: confirming a match by its strings (the earlier pairs are gone; a false
// duplicate needs two pairs to share 64 bits under a secret salt, below n^2 / 2^65).
// Invariant: the side file a state names holds exactly the digests of the entries 1..seq it audited.

import { createHash, randomBytes } from 'node:crypto';
import { readFile, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeFileDurable } from '../platform/index.ts';
import type { EarlierIds } from '../verifier/bundle/index.ts';
import { InputError } from './trust-files.ts';

/** What the AuditState says of its pairs: the salt (hex), the side file (beside the state) and its count. */
export interface AuditIdsRef {
  salt: string;
  file: string;
  count: number;
}

export interface AuditIds extends EarlierIds {
  readonly salt: string;
  /** Pairs held: those before the resume point and those added since. */
  readonly count: number;
  /** Write the merged side file for a state at `seq` and return what that state names. */
  save(statePath: string, seq: number): Promise<AuditIdsRef>;
}

function digestOf(salt: Buffer, source: string, id: string): bigint {
  const s = Buffer.from(source, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(s.length);
  const h = createHash('sha256').update(salt).update(len).update(s).update(id, 'utf8').digest();
  return h.readBigUInt64BE(0);
}

function has(sorted: BigUint64Array, d: bigint): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < d) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo] === d;
}

/** The pairs named by `ref` (read from beside `statePath`), or a fresh set for a first audit. */
export async function openAuditIds(statePath: string, ref: AuditIdsRef | undefined): Promise<AuditIds> {
  let earlier = new BigUint64Array(0);
  let salt = randomBytes(16);
  if (ref) {
    if (!/^[0-9a-f]{32}$/.test(ref.salt) || !Number.isSafeInteger(ref.count) || ref.count < 0 || basename(ref.file) !== ref.file)
      throw new InputError(`${statePath}: ids is not {salt, file, count}`);
    salt = Buffer.from(ref.salt, 'hex');
    let bytes: Buffer;
    try {
      bytes = await readFile(join(dirname(statePath), ref.file));
    } catch (e) {
      throw new InputError(`${statePath}: cannot read its (source, id) file ${ref.file}: ${(e as Error).message}`);
    }
    if (bytes.length !== ref.count * 8)
      throw new InputError(`${statePath}: ${ref.file} holds ${bytes.length} bytes, not ${ref.count} digests`);
    earlier = new BigUint64Array(ref.count);
    for (let i = 0; i < ref.count; i++) earlier[i] = bytes.readBigUInt64LE(i * 8);
    for (let i = 1; i < ref.count; i++) if (earlier[i - 1] >= earlier[i]) throw new InputError(`${statePath}: ${ref.file} is not sorted`);
  }
  let added = new BigUint64Array(1024);
  let n = 0;
  return {
    salt: salt.toString('hex'),
    get count() {
      return earlier.length + n;
    },
    add(source, id) {
      const d = digestOf(salt, source, id);
      if (has(earlier, d)) return false;
      if (n === added.length) {
        const next = new BigUint64Array(added.length * 2);
        next.set(added);
        added = next;
      }
      added[n++] = d;
      return true;
    },
    async save(path, seq) {
      const fresh = added.slice(0, n).sort();
      const out = Buffer.alloc((earlier.length + fresh.length) * 8);
      let i = 0;
      let j = 0;
      let k = 0;
      let last = -1n;
      // A pair repeated within the new run was reported by the run's own set; it is held once.
      while (i < earlier.length || j < fresh.length) {
        const d = j >= fresh.length || (i < earlier.length && earlier[i] <= fresh[j]) ? earlier[i++] : fresh[j++];
        if (d === last) continue;
        out.writeBigUInt64LE(d, 8 * k++);
        last = d;
      }
      const file = `${basename(path)}.ids-${seq}`;
      await writeFileDurable(join(dirname(path), file), out.subarray(0, 8 * k));
      return { salt: salt.toString('hex'), file, count: k };
    },
  };
}

/** Remove the side file an older state named, once the new state is written (a leftover is harmless). */
export async function removeOldIds(statePath: string, old: AuditIdsRef | undefined, now: AuditIdsRef): Promise<void> {
  if (old && old.file !== now.file) await unlink(join(dirname(statePath), old.file)).catch(() => undefined);
}
