// auditor/bundle-file.ts: reading an audit bundle file for the streaming verifier (docs/design.md §8):
// lines cut from a file stream (READ_BYTES reads) by verifier/bundle/line-split.ts, as the page
// cuts them (on the byte 0x0A, before decoding), each checked to be UTF-8 and decoded once here
// (node:buffer's own), the last line flagged when it has no newline (a cut file); and the
// read-ahead of the checkpoint seqs from the file's end (verifier/bundle/tail-seqs.ts reads them,
// this gives it the file's bytes). A pipe, a FIFO or a terminal (`verify /dev/stdin`, `verify <(…)`)
// cannot be read twice nor from its end: `canReadAhead` says so, and the caller then streams it
// once without the hint (checkpoints below the last are then reported as skipped for head and
// root). Memory: one read buffer plus the longest line, which is never held whole
// when it is over MAX_LINE_BYTES (its bytes are counted and dropped as they stream by).

import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { readCheckpointSeqsFromTail } from '../verifier/bundle/index.ts';
import { createLineSplitter, type LineFlags } from '../verifier/bundle/index.ts';

export type { LineFlags };

/** No valid line comes near this (an event is at most the sequencer's 1 MiB body limit). */
export const MAX_LINE_BYTES = 16 << 20;

/**
 * Bytes per read of the stream. 256 KiB, not 1 MiB: every read is a fresh buffer that the GC frees
 * late, and at 1 MiB they held 35-44 MB of the verify child's resident memory against 15-20 MB
 * (bench/id-set-memory.ts notes), for no measurable speed.
 */
export const READ_BYTES = 256 << 10;

/**
 * Calls `onLine` for each line in order (verifier/bundle/line-split.ts), awaiting it when it
 * returns a promise; returning `false` stops the reading. Memory: one read buffer and at most
 * MAX_LINE_BYTES of a pending line.
 */
export async function forEachLine(
  path: string,
  onLine: (text: string, flags: LineFlags) => Promise<void> | undefined | false,
  onBytes?: (n: number) => void,
): Promise<void> {
  const stream = createReadStream(path, { highWaterMark: READ_BYTES });
  const lines = createLineSplitter(MAX_LINE_BYTES, (line, flags) => {
    if (line === undefined) return onLine('', flags);
    // The stream's chunks are Buffers and so are their lines; a line joined from two chunks is not.
    const b = Buffer.isBuffer(line) ? line : Buffer.from(line.buffer, line.byteOffset, line.length);
    return onLine(b.toString('utf8'), isUtf8(b) ? flags : { ...flags, notUtf8: true });
  });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      onBytes?.(chunk.length);
      if (!(await lines.push(chunk))) return;
    }
    await lines.end();
  } finally {
    stream.destroy();
  }
}

/** True for a regular file (seekable, readable twice); false for a pipe, FIFO, socket or device. */
export async function canReadAhead(path: string): Promise<boolean> {
  return (await stat(path)).isFile();
}

/**
 * The seqs of the last `count` lines if they are checkpoints (stopping at the first line that is
 * not), read backwards from the end of the file (verifier/bundle/tail-seqs.ts; at most 64 MiB).
 */
export async function readCheckpointSeqsAhead(path: string, count: number): Promise<number[]> {
  if (count <= 0) return [];
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    return await readCheckpointSeqsFromTail(
      size,
      async (start, end) => {
        const chunk = Buffer.alloc(end - start);
        const { bytesRead } = await fh.read(chunk, 0, chunk.length, start);
        return chunk.subarray(0, bytesRead);
      },
      count,
    );
  } finally {
    await fh.close();
  }
}

/** The first line (the header), read alone; undefined when the file has none within 1 MiB. */
export async function readFirstLine(path: string): Promise<string | undefined> {
  return (await readLeadingLines(path, 1))[0];
}

/** Up to n whole lines from the start of the file, found within its first 1 MiB. */
export async function readLeadingLines(path: string, n: number): Promise<string[]> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const out: string[] = [];
    let at = 0;
    while (out.length < n) {
      const nl = buf.subarray(0, bytesRead).indexOf(0x0a, at);
      if (nl < 0) break;
      out.push(buf.subarray(at, nl).toString('utf8'));
      at = nl + 1;
    }
    return out;
  } finally {
    await fh.close();
  }
}
