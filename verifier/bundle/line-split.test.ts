// verifier/bundle/line-split.ts with a small line limit: the same lines and flags however the bytes
// are cut into chunks, long lines dropped unheld, the last line unterminated, a stop, a slow sink.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createLineSplitter, type LineFlags } from './line-split.ts';

const dec = new TextDecoder();

async function cut(bytes: Uint8Array, sizes: number[], max = 8, stopAt = Infinity): Promise<Array<[string | null, LineFlags]>> {
  const out: Array<[string | null, LineFlags]> = [];
  const s = createLineSplitter(max, (line, flags) => {
    out.push([line === undefined ? null : dec.decode(line), flags]);
    if (out.length >= stopAt) return false;
    return out.length % 2 === 0 ? Promise.resolve() : undefined;
  });
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length] ?? bytes.length);
    if (!(await s.push(bytes.subarray(at, at + n)))) return out;
    at += n;
  }
  await s.end();
  return out;
}

const enc = (t: string) => new TextEncoder().encode(t);

describe('createLineSplitter', () => {
  it('cuts lines, drops a line over the limit unheld and flags it, flags the last line without a newline', async () => {
    const got = await cut(enc('ab\n\n12345678\n123456789\ncd'), [3]);
    expect(got).toEqual([
      ['ab', {}],
      ['', {}],
      ['12345678', {}],
      [null, { tooLong: true }],
      ['cd', { unterminated: true }],
    ]);
    expect(await cut(enc('abc\n1234567890'), [4])).toEqual([
      ['abc', {}],
      [null, { unterminated: true, tooLong: true }],
    ]);
  });

  it('stops when the sink says so', async () => {
    expect((await cut(enc('1\n2\n3\n4\n'), [5], 8, 3)).map(([t]) => t)).toEqual(['1', '2', '3']);
  });

  it('gives the same lines however the bytes are cut into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('a', 'é', '\n', '0123456'), { maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 9 })),
        async (parts, sizes) => {
          const bytes = enc(parts.join(''));
          expect(await cut(bytes, sizes)).toEqual(await cut(bytes, [bytes.length || 1]));
        },
      ),
      { numRuns: 200 },
    );
  });
});
