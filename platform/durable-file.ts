// platform/durable-file.ts: the small files every service keeps beside its LevelDB (keys,
// tokens, configs, policies): written durably (temp file, fsync, rename or link, fsync of the
// directory), so a crash leaves the old file or the new one, never a torn one; `exclusive` never
// replaces an existing file (EEXIST), which is how keys are created once. Read back as JSON with
// a clear reason code. Node only (I/O lives in auditor/, docs/design.md §2); sequencer, witness and
// executor share it; the auditor streams its large side files through it.

import { createReadStream } from 'node:fs';
import { link, open, readdir, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ProtocolError } from '../verifier/index.ts';
import { parseJson } from '../verifier/documents/index.ts';

async function fsyncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Write a file durably; with `exclusive` an existing file is never replaced (throws EEXIST). The
 * data may come as pieces (a large file in bounded memory): each is written before the next is
 * asked for, so a producer may reuse one buffer; an error from the producer leaves no file.
 */
export async function writeFileDurable(
  path: string,
  data: string | Uint8Array | AsyncIterable<Uint8Array>,
  opts: { mode?: number; exclusive?: boolean } = {},
): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const fh = await open(tmp, 'wx', opts.mode ?? 0o644);
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) await fh.writeFile(data);
    else
      for await (const piece of data) {
        let at = 0;
        while (at < piece.length) at += (await fh.write(piece, at, piece.length - at)).bytesWritten;
      }
    await fh.sync();
  } catch (e) {
    // A write that failed (ENOSPC, EIO) leaves no temp file behind and the old file in place.
    await fh.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  await fh.close();
  try {
    if (opts.exclusive) await link(tmp, path);
    else await rename(tmp, path);
  } finally {
    if (opts.exclusive) await unlink(tmp).catch(() => undefined);
  }
  await fsyncDir(dirname(path));
}

/**
 * Remove the temp files writeFileDurable left beside `path` when a process was killed between
 * creating and renaming one (`<name>.tmp-PID-…`). Call only while holding what makes this process
 * the file's one writer (the log store's lock), or a live writer's temp file could go.
 */
export async function removeStaleTemps(path: string): Promise<number> {
  const dir = dirname(path);
  const prefix = `${basename(path)}.tmp-`;
  let removed = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!name.startsWith(prefix)) continue;
    await unlink(join(dir, name)).then(
      () => removed++,
      () => undefined,
    );
  }
  return removed;
}

/** A file's text, undefined when it does not exist. */
/** Create a file durably unless it exists (mode as given): true when this call created it. */
export async function writeFileOnce(path: string, data: string, mode: number): Promise<boolean> {
  try {
    await writeFileDurable(path, data, { mode, exclusive: true });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

/** Longest small file read (keys, tokens, configs, policies, key caches): the strict reader's bound. */
export const MAX_FILE_BYTES = 16 << 20;

/**
 * A file's text, read up to MAX_FILE_BYTES and no further (a larger file is body_too_large before
 * it is held: a 2 GB "config" costs 16 MiB, not 2 GB); works on pipes too.
 */
export async function readBoundedText(path: string, maxBytes = MAX_FILE_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    n += c.length;
    if (n > maxBytes) throw new ProtocolError('body_too_large', `${path} is longer than ${maxBytes} bytes`, { maxBytes });
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readBoundedText(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The parsed JSON of a file, undefined when it does not exist; bad JSON is ProtocolError bad_json. */
export async function readJsonIfExists(path: string): Promise<unknown> {
  const text = await readTextIfExists(path);
  if (text === undefined) return undefined;
  const j = parseJson(text);
  if (!j.ok) throw new ProtocolError(j.code, `${path}: ${j.detail}`);
  return j.value;
}
