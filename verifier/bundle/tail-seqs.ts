// verifier/bundle/tail-seqs.ts: the read-ahead of an audit bundle's checkpoint seqs (docs/design.md §8):
// the checkpoints come last in the file (format.ts) and the header names how many there are, so
// reading that many lines back from the end, and no more, finds them. One function for the CLI's
// file (auditor/bundle-file.ts) and the page's Blob (web/src/lib/line-reader.ts), each giving
// only how to read a range of bytes. The read-ahead is a hint that lets the verifier record roots in
// one pass; it is never trusted, since every checkpoint line is read and checked again in order.
// The hint reads I-JSON too (verifier/encoding/strict-json.ts), so a line with a repeated `seq`, or
// a line that is not UTF-8, gives none. Bounded: at most MAX_TAIL_BYTES are read, in slices of 1 MiB.
// Left out: where the bytes come from (the callers), what a checkpoint line proves (checkpoints.ts).

import { decodeUtf8 } from '../encoding/wire.ts';
import { MAX_JSON_DEPTH, parseJson } from '../encoding/strict-json.ts';

/** The most bytes the read-ahead reads from the end of a bundle. */
export const MAX_TAIL_BYTES = 64 << 20;
const SLICE = 1 << 20;

/** Bytes [start, end) of the bundle. */
export type ReadRange = (start: number, end: number) => Promise<Uint8Array>;

/** The seq of a line that is a checkpoint (strict I-JSON, UTF-8), else undefined. */
export function checkpointSeqOf(line: Uint8Array): number | undefined {
  const text = decodeUtf8(line);
  if (!text.ok) return undefined;
  const j = parseJson(text.value, { maxDepth: MAX_JSON_DEPTH + 1 });
  const d = j.ok ? (j.value as { kind?: unknown; seq?: unknown } | null) : undefined;
  return d && d.kind === 'Checkpoint' && Number.isSafeInteger(d.seq) ? (d.seq as number) : undefined;
}

/**
 * The seqs of the last `count` lines of a bundle of `size` bytes if they are checkpoints (stopping
 * at the first line that is not), in file order, read backwards from the end through `read`.
 */
export async function readCheckpointSeqsFromTail(size: number, read: ReadRange, count: number): Promise<number[]> {
  if (count <= 0) return [];
  const seqs: number[] = [];
  let pos = size;
  let tail = new Uint8Array(0);
  let skippedFinalNewline = false;
  while (pos > 0 && seqs.length < count && size - pos < MAX_TAIL_BYTES) {
    const n = Math.min(SLICE, pos);
    pos -= n;
    const chunk = await read(pos, pos + n);
    const joined = new Uint8Array(chunk.length + tail.length);
    joined.set(chunk, 0);
    joined.set(tail, chunk.length);
    tail = joined;
    if (!skippedFinalNewline && tail.length > 0) {
      if (tail[tail.length - 1] === 0x0a) tail = tail.subarray(0, tail.length - 1);
      skippedFinalNewline = true;
    }
    let nl = tail.lastIndexOf(0x0a);
    while (nl >= 0 && seqs.length < count) {
      const seq = checkpointSeqOf(tail.subarray(nl + 1));
      if (seq === undefined) return seqs.reverse();
      seqs.push(seq);
      tail = tail.subarray(0, nl);
      nl = tail.lastIndexOf(0x0a);
    }
  }
  return seqs.reverse();
}
