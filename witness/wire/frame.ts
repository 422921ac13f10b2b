// witness/wire/frame.ts: the framing of `/cookwala/witness/1.0.0` (docs/design.md §7): every message is an
// unsigned LEB128 varint length (the multiformats unsigned-varint, as libp2p's own length-prefixed
// protocols use) followed by that many bytes of UTF-8 JSON. The stream side is @libp2p/utils
// `lpStream` (frame-channel.ts); what is ours here is the strict reading of the length prefix that
// lpStream is given as its `lengthDecoder`, since lpStream's own varint decoder accepts
// non-minimal encodings (0x81 0x00 for 1) and only checks the length after the whole prefix.
// Pure code, no transport types.
// Invariants: a frame larger than MAX_FRAME_BYTES (1 MiB) is refused at its length prefix, before
// any of its body is read (`message_too_large`); a prefix longer than the limit needs (3 bytes for
// 1 MiB) is `message_too_large` at its 4th byte; a non-minimal varint is `malformed_frame`.

import { fail, type Failure } from '../../verifier/index.ts';

export const MAX_FRAME_BYTES = 1024 * 1024;
/** 1 MiB needs 3 varint bytes; a fourth byte can only announce a frame over the limit. */
export const MAX_VARINT_BYTES = 4;

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

/** A broken length prefix: the stream cannot be resynchronised, the caller answers and closes. */
export class FramingError extends Error {
  constructor(readonly failure: Failure) {
    super(failure.detail);
    this.name = 'FramingError';
  }
}

/** The bytes read so far (a Uint8Array, or lpStream's Uint8ArrayList). */
export interface PrefixBytes {
  readonly byteLength: number;
  get(i: number): number;
}

export type PrefixRead = { len: number; prefix: number } | { incomplete: true } | Failure;

/** Read a frame's length prefix strictly: the length and the prefix size, incomplete, or why not. */
export function readFramePrefix(bytes: PrefixBytes, max = MAX_FRAME_BYTES): PrefixRead {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < MAX_VARINT_BYTES; i++) {
    if (i >= bytes.byteLength) return { incomplete: true };
    const b = bytes.get(i);
    value += (b & 0x7f) * scale;
    scale *= 0x80;
    if ((b & 0x80) === 0) {
      if (b === 0 && i > 0) return fail('malformed_frame', 'non-minimal varint length prefix');
      if (value > max) return fail('message_too_large', `frame of ${value} bytes exceeds ${max}`, { limit: max });
      return { len: value, prefix: i + 1 };
    }
  }
  return fail('message_too_large', `length prefix longer than ${MAX_VARINT_BYTES - 1} bytes`, { limit: max });
}

/**
 * lpStream's `lengthDecoder`: the length, or RangeError while the prefix is incomplete (lpStream
 * then reads one more byte), or FramingError for a prefix that can never be valid.
 */
/** Thrown for every incomplete prefix (lpStream only tests instanceof): one made once, no stack captured per frame. */
const INCOMPLETE_PREFIX = new RangeError('incomplete length prefix');

export function frameLengthDecoder(max = MAX_FRAME_BYTES): (bytes: PrefixBytes) => number {
  return (bytes) => {
    const r = readFramePrefix(bytes, max);
    if ('incomplete' in r) throw INCOMPLETE_PREFIX;
    if ('ok' in r) throw new FramingError(r);
    return r.len;
  };
}
