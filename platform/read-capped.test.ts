// platform/read-capped.test.ts: an answer within the bound is read whole; one past it is refused
// without being held, whether it arrives in one piece or in many.
import { describe, expect, it } from 'vitest';
import { readTextCapped } from './read-capped.ts';

function streamed(pieces: string[]): Response {
  const enc = new TextEncoder();
  return new Response(
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of pieces) c.enqueue(enc.encode(p));
        c.close();
      },
    }),
  );
}

describe('readTextCapped', () => {
  it('reads a body at the bound, UTF-8 across pieces', async () => {
    expect(await readTextCapped(streamed(['ab', 'c€']), 6)).toBe('abc€');
    expect(await readTextCapped(new Response(null), 1)).toBe('');
  });
  it('refuses a body one byte past the bound, in one piece or many', async () => {
    await expect(readTextCapped(new Response('x'.repeat(11)), 10)).rejects.toThrow('reply over 10 bytes');
    await expect(readTextCapped(streamed(['xxxxx', 'xxxxx', 'x']), 10)).rejects.toThrow('reply over 10 bytes');
  });
});
