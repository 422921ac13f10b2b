// The frame channel (lpStream with our strict prefix) over a pair of libp2p streams from
// @libp2p/utils: frames split anywhere arrive whole and in order; a frame over the limit is
// `message_too_large` before its body is sent, a non-minimal prefix `malformed_frame`, after the
// frames that came before; a frame cut off by a close is the end; a peer that parks more than the
// read buffer unread is aborted (the end), so a peer cannot grow our memory without bound.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { streamPair } from '@libp2p/utils';
import { createFrameChannel, type NextFrame } from './frame-channel.ts';
import { encodeFrame, encodeVarint, MAX_FRAME_BYTES } from './frame.ts';

const concat = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const frameOf = (n: NextFrame) => ('frame' in n ? [...n.frame] : n);

describe('frame channel', () => {
  it('delivers any frames split at any points, then the end', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 6 }),
        fc.array(fc.nat(2000), { maxLength: 5 }),
        async (payloads, cuts) => {
          const [a, b] = await streamPair();
          const ch = createFrameChannel(b);
          const wire = concat(payloads.map((p) => encodeFrame(p)));
          const points = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((x, y) => x - y);
          let prev = 0;
          for (const p of [...points, wire.length]) {
            if (p > prev) a.send(wire.subarray(prev, p));
            prev = p;
          }
          await a.close();
          const got: unknown[] = [];
          for (let i = 0; i < payloads.length; i++) got.push(frameOf(await ch.next()));
          expect(got).toEqual(payloads.map((p) => [...p]));
          expect(await ch.next()).toEqual({ end: true });
          await ch.close();
        },
      ),
      { numRuns: 40 },
    );
  });

  it('takes 1 MiB, refuses a longer frame at its prefix, a non-minimal prefix after the frames before it', async () => {
    const [a, b] = await streamPair();
    const ch = createFrameChannel(b);
    a.send(encodeFrame(new Uint8Array(MAX_FRAME_BYTES)));
    a.send(encodeVarint(MAX_FRAME_BYTES + 1)); // no body follows: refused at the prefix
    const first = await ch.next();
    expect('frame' in first && first.frame.length).toBe(MAX_FRAME_BYTES);
    expect(await ch.next()).toMatchObject({ error: { code: 'message_too_large' } });
    expect(await ch.next()).toMatchObject({ error: { code: 'message_too_large' } }); // stays failed
    expect(ch.open).toBe(false);
    await ch.close();

    const [c, d] = await streamPair();
    const ch2 = createFrameChannel(d, { maxFrame: 100 });
    c.send(concat([encodeFrame(Uint8Array.from([1, 2])), Uint8Array.from([0x81, 0x00])]));
    expect(frameOf(await ch2.next())).toEqual([1, 2]);
    expect(await ch2.next()).toMatchObject({ error: { code: 'malformed_frame' } });
    await expect(ch2.send(new Uint8Array(101))).rejects.toThrow(RangeError);
    await ch2.close();
  });

  it('a frame cut off by a close is the end; a peer parking more than the buffer unread is aborted', async () => {
    const [a, b] = await streamPair();
    const ch = createFrameChannel(b);
    a.send(encodeFrame(new Uint8Array(100)).subarray(0, 50));
    await a.close();
    expect(await ch.next()).toEqual({ end: true });

    const [c, d] = await streamPair();
    const ch2 = createFrameChannel(d, { maxBufferedBytes: 64 * 1024 });
    const aborted = new Promise((r) => d.addEventListener('close', r, { once: true }));
    for (let i = 0; i < 5; i++) c.send(encodeFrame(new Uint8Array(20_000)));
    await aborted;
    expect(d.status).toBe('aborted');
    expect(await ch2.next()).toEqual({ end: true });
  });

  it('close() ends a pending read at once', async () => {
    const [, b] = await streamPair();
    const ch = createFrameChannel(b);
    const pending = ch.next();
    await ch.close();
    expect(await pending).toEqual({ end: true });
  });
});
