// The verifier page's reader (web/src/lib/line-reader.ts, over Blob streams) feeds the pure verifier
// exactly what the CLI's reader (auditor/bundle-file.ts, over a file stream) feeds it: the same
// lines, in order, with the same flags (not UTF-8, cut last line), whatever the bytes and however
// the browser cuts the stream into chunks; and the same header line and checkpoint read-ahead.
// A fast-check property over random byte soups (newlines, multi-byte and broken UTF-8, a BOM,
// checkpoint-like lines), each delivered in random chunk sizes, against the real file reader.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { forEachLine as cliLines, readCheckpointSeqsAhead as cliAhead, readFirstLine as cliFirst } from '../auditor/bundle-file.ts';
import {
  forEachLine as pageLines,
  readCheckpointSeqsAhead as pageAhead,
  readFirstLine as pageFirst,
  type ByteSource,
} from '../web/src/lib/line-reader.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

let dir: string | undefined;
afterAll(async () => {
  if (dir) await removeDir(dir);
});

/** A Blob whose stream() hands out the bytes in the given chunk sizes (as a browser may). */
function chunkedSource(bytes: Uint8Array, sizes: number[]): ByteSource {
  const blob = new Blob([bytes]);
  return {
    size: bytes.length,
    slice: (a, b) => blob.slice(a, b),
    stream() {
      let off = 0;
      let i = 0;
      return new ReadableStream<Uint8Array>({
        pull(c) {
          if (off >= bytes.length) return c.close();
          const n = Math.max(1, sizes[i++ % sizes.length]);
          c.enqueue(bytes.slice(off, off + n));
          off += n;
        },
      });
    },
  };
}

const pieces = fc.oneof(
  fc
    .constantFrom(
      '\n',
      '{"kind":"Event","seq":1}',
      '{"kind":"Checkpoint","seq":7}\n',
      '{"kind":"Checkpoint","seq":9}',
      'é',
      '𝄞',
      '\uFEFF',
      ' ',
      'x'.repeat(50),
    )
    .map((s) => Buffer.from(s)),
  fc.constantFrom([0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf0, 0x9d], [0x0a, 0x0a]).map((b) => Buffer.from(b)),
  fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b)),
);

describe('the page reader and the CLI reader', () => {
  it('give the same lines with the same flags, the same header line and the same checkpoint read-ahead', async () => {
    dir = await makeTempDir('cookwala-line-reader-');
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(pieces, { maxLength: 60 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 4 }),
        async (parts, sizes, count) => {
          const bytes = Buffer.concat(parts);
          const file = join(dir!, `b${n++}.ndjson`);
          await writeFile(file, bytes);
          const a: unknown[] = [];
          const b: unknown[] = [];
          await cliLines(file, (t, f) => void a.push([t, f]));
          await pageLines(chunkedSource(bytes, sizes), (t, f) => void b.push([t, f]));
          expect(b).toEqual(a);
          expect(await pageFirst(chunkedSource(bytes, sizes))).toEqual(await cliFirst(file));
          expect(await pageAhead(chunkedSource(bytes, sizes), count)).toEqual(await cliAhead(file, count));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stop where the consumer says stop, and count every byte', async () => {
    const bytes = Buffer.from('{"a":1}\n{"b":2}\n{"c":3}\n');
    const seen: string[] = [];
    let total = 0;
    await pageLines(
      chunkedSource(bytes, [5]),
      (t) => (seen.push(t), seen.length === 2 ? false : undefined),
      (k) => (total += k),
    );
    expect(seen).toEqual(['{"a":1}', '{"b":2}']);
    expect(total).toBeGreaterThanOrEqual(16);
  });
});
