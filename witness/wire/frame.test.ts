import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createFrameDecoder, encodeFrame, encodeVarint, MAX_FRAME_BYTES } from './frame.ts';

const concat = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

describe('frame', () => {
  it('varints are minimal LEB128', () => {
    expect([...encodeVarint(0)]).toEqual([0]);
    expect([...encodeVarint(127)]).toEqual([127]);
    expect([...encodeVarint(128)]).toEqual([0x80, 1]);
    expect([...encodeVarint(MAX_FRAME_BYTES)]).toEqual([0x80, 0x80, 0x40]);
    expect(() => encodeVarint(-1)).toThrow(RangeError);
  });

  it('round-trips any frames split at any points', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }), fc.array(fc.nat(2000), { maxLength: 6 }), (payloads, cuts) => {
        const wire = concat(payloads.map((p) => encodeFrame(p)));
        const points = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b);
        const d = createFrameDecoder();
        const got: Uint8Array[] = [];
        let prev = 0;
        for (const p of [...points, wire.length]) {
          const r = d.push(wire.subarray(prev, p));
          expect(r.error).toBeUndefined();
          got.push(...r.frames);
          prev = p;
        }
        expect(got.map((g) => [...g])).toEqual(payloads.map((p) => [...p]));
        expect(d.buffered).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it('takes a frame of exactly 1 MiB and refuses one byte more at the length prefix', () => {
    const d = createFrameDecoder();
    const r = d.push(encodeFrame(new Uint8Array(MAX_FRAME_BYTES)));
    expect(r.frames).toHaveLength(1);
    const d2 = createFrameDecoder();
    // Only the prefix is sent: the decoder must refuse before any body arrives.
    const r2 = d2.push(encodeVarint(MAX_FRAME_BYTES + 1));
    expect(r2.error?.code).toBe('message_too_large');
    expect(d2.buffered).toBe(0);
    expect(() => encodeFrame(new Uint8Array(MAX_FRAME_BYTES + 1))).toThrow(RangeError);
  });

  it('refuses an over-long varint and a non-minimal one', () => {
    expect(createFrameDecoder().push(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x01])).error?.code).toBe('message_too_large');
    expect(createFrameDecoder().push(Uint8Array.from([0x85, 0x00])).error?.code).toBe('malformed_frame');
  });

  it('delivers the frames before a framing error, then stays failed', () => {
    const d = createFrameDecoder(100);
    const r = d.push(concat([encodeFrame(Uint8Array.from([1, 2])), encodeVarint(101)]));
    expect(r.frames.map((f) => [...f])).toEqual([[1, 2]]);
    expect(r.error?.code).toBe('message_too_large');
    const again = d.push(encodeFrame(Uint8Array.from([3])));
    expect(again.frames).toEqual([]);
    expect(again.error?.code).toBe('message_too_large');
    expect(d.failed?.code).toBe('message_too_large');
  });
});
