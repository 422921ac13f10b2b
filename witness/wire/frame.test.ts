// The strict length prefix of `/cookwala/witness/1.0.0` (frame.ts): minimal LEB128 varints, a
// frame over 1 MiB refused at its prefix, over-long and non-minimal prefixes refused; the decoder
// lpStream is given says "incomplete" (RangeError) until the prefix is whole.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeFrame, encodeVarint, frameLengthDecoder, FramingError, MAX_FRAME_BYTES, readFramePrefix } from './frame.ts';

const bytes = (a: Uint8Array) => ({ byteLength: a.length, get: (i: number) => a[i] });

describe('frame prefix', () => {
  it('varints are minimal LEB128', () => {
    expect([...encodeVarint(0)]).toEqual([0]);
    expect([...encodeVarint(127)]).toEqual([127]);
    expect([...encodeVarint(128)]).toEqual([0x80, 1]);
    expect([...encodeVarint(MAX_FRAME_BYTES)]).toEqual([0x80, 0x80, 0x40]);
    expect(() => encodeVarint(-1)).toThrow(RangeError);
  });

  it('reads back every length up to 1 MiB, and is incomplete at every shorter cut', () => {
    fc.assert(
      fc.property(fc.nat(MAX_FRAME_BYTES), (n) => {
        const p = encodeVarint(n);
        for (let i = 0; i < p.length; i++) expect(readFramePrefix(bytes(p.subarray(0, i)))).toEqual({ incomplete: true });
        expect(readFramePrefix(bytes(Uint8Array.from([...p, 0xff, 0xff])))).toEqual({ len: n, prefix: p.length });
        expect(frameLengthDecoder()(bytes(p))).toBe(n);
        if (p.length > 1) expect(() => frameLengthDecoder()(bytes(p.subarray(0, 1)))).toThrow(RangeError);
      }),
      { numRuns: 300 },
    );
  });

  it('takes exactly 1 MiB and refuses one byte more at the length prefix', () => {
    expect(readFramePrefix(bytes(encodeFrame(new Uint8Array(MAX_FRAME_BYTES))))).toEqual({ len: MAX_FRAME_BYTES, prefix: 3 });
    expect(readFramePrefix(bytes(encodeVarint(MAX_FRAME_BYTES + 1)))).toMatchObject({
      ok: false,
      code: 'message_too_large',
      limit: MAX_FRAME_BYTES,
    });
    expect(readFramePrefix(bytes(encodeVarint(101)), 100)).toMatchObject({ ok: false, code: 'message_too_large' });
    expect(() => encodeFrame(new Uint8Array(MAX_FRAME_BYTES + 1))).toThrow(RangeError);
  });

  it('refuses an over-long varint at its 4th byte and a non-minimal one', () => {
    expect(readFramePrefix(bytes(Uint8Array.from([0xff, 0xff, 0xff, 0xff])))).toMatchObject({ code: 'message_too_large' });
    expect(readFramePrefix(bytes(Uint8Array.from([0x85, 0x00])))).toMatchObject({ code: 'malformed_frame' });
    expect(readFramePrefix(bytes(Uint8Array.from([0x80, 0x80, 0x00])))).toMatchObject({ code: 'malformed_frame' });
    const thrown = (() => {
      try {
        frameLengthDecoder()(bytes(Uint8Array.from([0x81, 0x00])));
      } catch (e) {
        return e;
      }
    })();
    expect(thrown).toBeInstanceOf(FramingError);
    expect((thrown as FramingError).failure.code).toBe('malformed_frame');
  });
});
