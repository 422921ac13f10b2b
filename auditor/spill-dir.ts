// auditor/spill-dir.ts: the Node spill sink of the (source, id) set (verifier/bundle/id-set.ts,
// verifier/bundle/id-spill.ts) for `cookwala verify`: a private directory made under the given parent (default
// os.tmpdir()) on the first file, never before (a bundle whose pairs fit the 1 MiB side-write
// buffer, about 15,000 entries, touches no disk), one file per run and one side file, each opened once for appending and reading at
// offsets. dispose() closes every handle and removes the directory recursively; the caller runs it
// in a `finally`, so the files go also when verification fails or throws early.
// Left out: removal after a kill -9 (the directory name starts with cookwala-verify-, for a sweep).
// Invariant: nothing is written outside the directory this sink made.

import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpillFile, SpillSink } from '../verifier/bundle/index.ts';

export interface SpillDir extends SpillSink {
  /** The directory, once a file was made. */
  readonly path: string | undefined;
  dispose(): Promise<void>;
}

export function createSpillDir(parent: string = tmpdir()): SpillDir {
  let dir: Promise<string> | undefined;
  let path: string | undefined;
  const handles = new Set<FileHandle>();
  let disposed = false;
  return {
    get path() {
      return path;
    },
    async create(name) {
      if (disposed) throw new Error('the spill directory was removed');
      dir ??= mkdtemp(join(parent, 'cookwala-verify-')).then((d) => (path = d));
      const file = join(await dir, name);
      const fh = await open(file, 'wx+');
      handles.add(fh);
      let size = 0;
      let gone = false;
      const f: SpillFile = {
        async append(bytes) {
          let at = 0;
          while (at < bytes.length) {
            const { bytesWritten } = await fh.write(bytes, at, bytes.length - at, size + at);
            at += bytesWritten;
          }
          size += bytes.length;
        },
        async read(pos, length, into) {
          const n = Math.max(0, Math.min(length, size - pos));
          const b = into && into.length >= n ? into : Buffer.allocUnsafe(n);
          let at = 0;
          while (at < n) {
            const { bytesRead } = await fh.read(b, at, n - at, pos + at);
            if (bytesRead === 0) break;
            at += bytesRead;
          }
          return b.subarray(0, at);
        },
        async remove() {
          if (gone) return;
          gone = true;
          handles.delete(fh);
          await fh.close();
          await rm(file, { force: true });
        },
      };
      return f;
    },
    async dispose() {
      disposed = true;
      for (const fh of handles) await fh.close().catch(() => undefined);
      handles.clear();
      if (dir) await rm(await dir, { recursive: true, force: true });
    },
  };
}
