// auditor/audit-ids.ts: the (source, id) pairs of an incremental audit across its resume points
// (`cookwala verify --resume STATE`, docs/monitoring.md "Incremental audits", docs/design.md §8),
// so that a pair repeated after the resume point whose first copy was audited before it is a
// duplicate_id exactly as in a full run. Each pair is kept as a salted 64-bit digest, the first
// 8 bytes of SHA-256(salt || u32be(byte length of source) || source || id), the 16-byte salt
// secret to the auditor and kept in the AuditState; the digests of every audited pair sit sorted
// in a side file beside the state (`STATE.ids-SEQ`, 8 bytes a pair, little-endian). Memory stays
// within the bound of docs/design.md §13 at any count (digest-file.ts): the side file is read
// 1 MiB at a time into its 32-bit prefixes only (4 bytes a pair, 40 MB at 10^7), a new pair is
// looked up by bisection on them and confirmed by a positioned read of the file, held open for the
// run; the run's new digests go into a buffer of RUN_DIGESTS (2 MiB) that spills as a sorted run
// to the verify run's spill directory when full. When the audit is valid, the side file, the runs
// and the last buffer are merged into a new side file, streamed 1 MiB at a time and written durably under
// a new name before the state that names it; then the old one is removed: a crash leaves the old
// state with its own side file. Left out: confirming a match by its strings (the earlier pairs are
// gone; a false duplicate needs two pairs to share 64 bits under a secret salt, below n^2 / 2^65).
// Invariant: the side file a state names holds exactly the digests of the entries 1..seq it audited.

import { createHash, randomBytes } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { writeFileDurable } from '../platform/index.ts';
import type { EarlierIds, SpillFile, SpillSink } from '../verifier/bundle/index.ts';
import { InputError } from './trust-files.ts';
import {
  DIGEST_BYTES,
  fileReadAt,
  hasDigest,
  memoryReadAt,
  mergeDigests,
  readPrefixes,
  spillReadAt,
  type DigestIndex,
} from './digest-file.ts';

/** New digests held in memory before they spill as one sorted run (2 MiB). */
export const RUN_DIGESTS = 1 << 18;

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
  /** Write the merged side file for a state at `seq` and return what that state names (once, at the end of a run). */
  save(statePath: string, seq: number): Promise<AuditIdsRef>;
  /** Close the side file and remove the spilled runs (in a `finally`). */
  close(): Promise<void>;
}

export interface AuditIdsOptions {
  /** Where the new digests spill as sorted runs: the verify run's spill directory (spill-dir.ts). */
  sink: SpillSink;
  /** New digests held before a run spills (default RUN_DIGESTS; tests use tiny ones). */
  runDigests?: number;
}

function digestOf(salt: Buffer, source: string, id: string): Buffer {
  const s = Buffer.from(source, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(s.length);
  return createHash('sha256').update(salt).update(len).update(s).update(id, 'utf8').digest();
}

/** The side file named by `ref`, opened and indexed by its prefixes (InputError when it is not one). */
async function openSideFile(statePath: string, ref: AuditIdsRef): Promise<{ fh: FileHandle; index: DigestIndex }> {
  const path = join(dirname(statePath), ref.file);
  const unreadable = (e: unknown) => new InputError(`${statePath}: cannot read its (source, id) file ${ref.file}: ${(e as Error).message}`);
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw unreadable(e);
  }
  try {
    let size: number;
    try {
      size = (await fh.stat()).size;
    } catch (e) {
      throw unreadable(e);
    }
    // The size is checked before the prefixes are allocated: a count that lies costs nothing.
    if (size !== ref.count * DIGEST_BYTES) throw new InputError(`${statePath}: ${ref.file} holds ${size} bytes, not ${ref.count} digests`);
    const r = await readPrefixes(fileReadAt(fh), ref.count).catch((e: unknown) => {
      throw unreadable(e);
    });
    if (!r.ok) throw new InputError(`${statePath}: ${ref.file} ${r.detail}`);
    return { fh, index: { fd: fh.fd, prefixes: r.prefixes, name: path } };
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw e;
  }
}

/** The pairs named by `ref` (read from beside `statePath`), or a fresh set for a first audit. */
export async function openAuditIds(statePath: string, ref: AuditIdsRef | undefined, o: AuditIdsOptions): Promise<AuditIds> {
  let salt = randomBytes(16);
  let side: { fh: FileHandle; index: DigestIndex } | undefined;
  if (ref) {
    if (!/^[0-9a-f]{32}$/.test(ref.salt) || !Number.isSafeInteger(ref.count) || ref.count < 0 || basename(ref.file) !== ref.file)
      throw new InputError(`${statePath}: ids is not {salt, file, count}`);
    salt = Buffer.from(ref.salt, 'hex');
    side = await openSideFile(statePath, ref);
  }
  const earlier = side?.index.prefixes.length ?? 0;
  const runSize = Math.max(1, o.runDigests ?? RUN_DIGESTS);
  let buf = new BigUint64Array(Math.min(runSize, 1024));
  let n = 0;
  let added = 0;
  const runs: Array<{ file: SpillFile; count: number }> = [];
  // Runs are written one after another while the verifier goes on; save() waits for the last.
  let spilling: Promise<void> = Promise.resolve();
  let names = 0;

  /** The buffer's digests sorted, as the file's bytes (the buffer is given up: the caller starts a new one). */
  function sortedBytes(): Buffer {
    const sorted = buf.subarray(0, n).sort();
    const bytes = Buffer.from(sorted.buffer, sorted.byteOffset, n * DIGEST_BYTES);
    if (endianness() === 'BE') bytes.swap64(); // the file is little-endian
    return bytes;
  }

  function spill(): void {
    const bytes = sortedBytes();
    const count = n;
    const name = `audit-ids-${names++}`;
    spilling = spilling.then(async () => {
      const file = await o.sink.create(name);
      runs.push({ file, count });
      await file.append(bytes);
    });
    spilling.catch(() => undefined); // reported by save(); never an unhandled rejection meanwhile
    buf = new BigUint64Array(Math.min(runSize, 1024));
    n = 0;
  }

  return {
    salt: salt.toString('hex'),
    get count() {
      return earlier + added;
    },
    add(source, id) {
      const d = digestOf(salt, source, id);
      if (side && hasDigest(side.index, d.readUInt32BE(0), d.readUInt32BE(4))) return false;
      if (n === buf.length) {
        if (n >= runSize) spill();
        else {
          const next = new BigUint64Array(Math.min(runSize, buf.length * 2));
          next.set(buf);
          buf = next;
        }
      }
      buf[n++] = d.readBigUInt64BE(0);
      added++;
      return true;
    },
    async save(path, seq) {
      await spilling;
      // The last buffer is merged from memory: a run that never filled one touches no disk but the side file.
      const sources = runs.map((r) => ({ read: spillReadAt(r.file), count: r.count }));
      sources.push({ read: memoryReadAt(sortedBytes()), count: n });
      if (side) sources.unshift({ read: fileReadAt(side.fh), count: earlier });
      // A pair repeated within the new run was reported by the run's own set; it is held once.
      const out = { count: 0 };
      const file = `${basename(path)}.ids-${seq}`;
      await writeFileDurable(join(dirname(path), file), mergeDigests(sources, out));
      return { salt: salt.toString('hex'), file, count: out.count };
    },
    async close() {
      await spilling.catch(() => undefined);
      for (const r of runs.splice(0)) await r.file.remove().catch(() => undefined);
      await side?.fh.close().catch(() => undefined);
    },
  };
}

/** Remove the side file an older state named, once the new state is written (a leftover is harmless). */
export async function removeOldIds(statePath: string, old: AuditIdsRef | undefined, now: AuditIdsRef): Promise<void> {
  if (old && old.file !== now.file) await unlink(join(dirname(statePath), old.file)).catch(() => undefined);
}
