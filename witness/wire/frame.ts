// witness/wire/frame.ts: the framing of `/cookwala/witness/1.0.0` (DESIGN §7): every message is an
// unsigned LEB128 varint length (the multiformats unsigned-varint, as libp2p's own length-prefixed
// protocols use) followed by that many bytes of UTF-8 JSON. Pure code, no transport types: the
// decoder takes chunks as they arrive and yields whole frames.
// Invariants: a frame larger than MAX_FRAME_BYTES (1 MiB) is never buffered (the decoder stops at
// the length prefix with `message_too_large`); a non-minimal or over-long varint is
// `malformed_frame`; after an error the decoder stays failed (the caller closes the stream).
// Left out: frame compression and multiplexing (yamux does that below us).

import { fail, ok, type Failure, type Result } from '../../verifier/errors.ts';

export const MAX_FRAME_BYTES = 1024 * 1024;
/** 1 MiB needs 3 varint bytes; a fourth byte can only announce a frame over the limit. */
const MAX_VARINT_BYTES = 4;

export function encodeVarint(n: number): Uint8Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`varint of ${n}`);
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** One frame: varint(length) || payload. Throws for a payload over the limit (a programmer error). */
export function encodeFrame(payload: Uint8Array, max = MAX_FRAME_BYTES): Uint8Array {
  if (payload.length > max) throw new RangeError(`frame of ${payload.length} bytes exceeds ${max}`);
  const len = encodeVarint(payload.length);
  const out = new Uint8Array(len.length + payload.length);
  out.set(len, 0);
  out.set(payload, len.length);
  return out;
}

export interface FrameDecoder {
  /** Feed bytes; returns the frames completed so far and, once framing breaks, the error. */
  push(chunk: Uint8Array): { frames: Uint8Array[]; error?: Failure };
  /** Bytes held for an incomplete frame (0 at a frame boundary). */
  readonly buffered: number;
  readonly failed: Failure | undefined;
}

export function createFrameDecoder(max = MAX_FRAME_BYTES): FrameDecoder {
  let chunks: Uint8Array[] = [];
  let size = 0;
  let failed: Failure | undefined;

  const take = (n: number): Uint8Array => {
    const out = new Uint8Array(n);
    let o = 0;
    while (o < n) {
      const c = chunks[0];
      const k = Math.min(c.length, n - o);
      out.set(c.subarray(0, k), o);
      o += k;
      if (k === c.length) chunks.shift();
      else chunks[0] = c.subarray(k);
    }
    size -= n;
    return out;
  };

  const byteAt = (i: number): number => {
    for (const c of chunks) {
      if (i < c.length) return c[i];
      i -= c.length;
    }
    return -1;
  };

  /** The next frame's length and prefix size; undefined while the prefix is incomplete. */
  const readLength = (): Result<{ len: number; prefix: number }> | undefined => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < MAX_VARINT_BYTES; i++) {
      const b = byteAt(i);
      if (b < 0) return undefined;
      value += (b & 0x7f) * scale;
      scale *= 0x80;
      if ((b & 0x80) === 0) {
        if (b === 0 && i > 0) return fail('malformed_frame', 'non-minimal varint length prefix');
        if (value > max) return fail('message_too_large', `frame of ${value} bytes exceeds ${max}`, { limit: max });
        return ok({ len: value, prefix: i + 1 });
      }
    }
    return fail('message_too_large', `length prefix longer than ${MAX_VARINT_BYTES - 1} bytes`, { limit: max });
  };

  return {
    get buffered() {
      return size;
    },
    get failed() {
      return failed;
    },
    push(chunk) {
      if (failed) return { frames: [], error: failed };
      if (chunk.length > 0) {
        chunks.push(chunk);
        size += chunk.length;
      }
      const frames: Uint8Array[] = [];
      for (;;) {
        const l = readLength();
        if (l === undefined) break;
        if (!l.ok) {
          failed = l;
          chunks = [];
          size = 0;
          return { frames, error: l };
        }
        if (size < l.value.prefix + l.value.len) break;
        take(l.value.prefix);
        frames.push(take(l.value.len));
      }
      return { frames };
    },
  };
}
