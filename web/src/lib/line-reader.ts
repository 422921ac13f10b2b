// web/src/lib/line-reader.ts: an audit bundle read line by line from a Blob or File in a browser
// (docs/design.md §8, §12b), with the same rules as the CLI's reader (auditor/bundle-file.ts), so the
// page and `cookwala verify` feed the pure verifier the same lines with the same flags: lines cut
// by verifier/bundle/line-split.ts (on the byte 0x0A, before decoding; a line over MAX_LINE_BYTES
// skipped unread and flagged tooLong, a last line without a newline flagged unterminated), each
// checked to be UTF-8 and decoded once here (TextDecoder; a BOM is kept, as Node keeps it). The file is read through Blob.stream(), so memory is one chunk plus the longest
// line, never the file. Also the read-ahead of the checkpoint seqs from the tail (slices from the
// end through verifier/bundle/tail-seqs.ts, as the CLI's) and the first line (the header) alone.
// Left out: what a line means.

import { readCheckpointSeqsFromTail } from '../../../verifier/bundle/index.ts';
import { createLineSplitter, type LineFlags } from '../../../verifier/bundle/index.ts';

export type { LineFlags };

/** As auditor/bundle-file.ts: no valid line comes near this. */
export const MAX_LINE_BYTES = 16 << 20;
const SLICE = 1 << 20;

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

function decode(b: Uint8Array): { text: string; notUtf8: boolean } {
  try {
    return { text: strict.decode(b), notUtf8: false };
  } catch {
    return { text: lenient.decode(b), notUtf8: true };
  }
}

/** The part of Blob that is read here (a File is one). */
export interface ByteSource {
  readonly size: number;
  slice(start?: number, end?: number): { arrayBuffer(): Promise<ArrayBuffer> };
  stream(): ReadableStream<Uint8Array>;
}

/**
 * Calls `onLine` for each line in order (verifier/bundle/line-split.ts), awaiting it when it
 * returns a promise; returning `false` stops the reading. `onBytes` is told each chunk's size as
 * it is read.
 */
export async function forEachLine(
  src: ByteSource,
  onLine: (text: string, flags: LineFlags) => Promise<void> | undefined | false,
  onBytes?: (n: number) => void,
): Promise<void> {
  const reader = src.stream().getReader();
  const lines = createLineSplitter(MAX_LINE_BYTES, (line, flags) => {
    if (line === undefined) return onLine('', flags);
    const d = decode(line);
    return onLine(d.text, d.notUtf8 ? { ...flags, notUtf8: true } : flags);
  });
  try {
    for (;;) {
      const { done, value: chunk } = await reader.read();
      if (done) break;
      onBytes?.(chunk.length);
      if (!(await lines.push(chunk))) return;
    }
    await lines.end();
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function bytesOf(src: ByteSource, start: number, end: number): Promise<Uint8Array> {
  return new Uint8Array(await src.slice(start, end).arrayBuffer());
}

/**
 * The seqs of the last `count` lines if they are checkpoints (stopping at the first line that is
 * not), read backwards from the end in slices (verifier/bundle/tail-seqs.ts, as the CLI reads them);
 * a hint only (every line is checked again).
 */
export async function readCheckpointSeqsAhead(src: ByteSource, count: number): Promise<number[]> {
  return readCheckpointSeqsFromTail(src.size, (start, end) => bytesOf(src, start, end), count);
}

/** The first line (the header), read alone; undefined when none ends within 1 MiB. */
export async function readFirstLine(src: ByteSource): Promise<string | undefined> {
  const b = await bytesOf(src, 0, Math.min(SLICE, src.size));
  const nl = b.indexOf(0x0a);
  return nl < 0 ? undefined : lenient.decode(b.subarray(0, nl));
}
