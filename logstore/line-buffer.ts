// logstore/line-buffer.ts: the byte buffer json-lines.ts writes NDJSON lines into, for the read
// paths that stream a range of a log (docs/design.md §8, §10): lines are assembled in Buffers of
// about 64 KiB, handed over at line boundaries. The pieces of a line are written byte by byte in
// JavaScript (fixed fragments encoded once, decimal integers, the hex of a hash, base64url, strings
// that need no JSON escape) rather than as strings written through Buffer.write, which costs a
// string and a native call per piece. Left out: what the lines say (json-lines.ts). Invariant: a
// write never splits a line across two handed-over Buffers; `plainString` writes nothing when it
// returns false.

const CHUNK = 64 << 10;
const QUOTE = 0x22;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const B64URL = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_', 'latin1');
/** Below this many bytes a JavaScript loop copies faster than a native call. */
const SHORT_COPY = 64;

/** Appends bytes to Buffers of about CHUNK bytes; `take` hands over what a line boundary closed. */
export class LineBuffer {
  private buf = Buffer.allocUnsafe(CHUNK + 4096);
  private pos = 0;

  /** The bytes written so far once they reach a chunk, else undefined (call after a whole line). */
  full(): Buffer | undefined {
    return this.pos >= CHUNK ? this.take() : undefined;
  }

  /** Everything written so far (possibly empty); the next write starts a new Buffer. */
  take(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.buf = Buffer.allocUnsafe(CHUNK + 4096);
    this.pos = 0;
    return out;
  }

  mark(): number {
    return this.pos;
  }

  reset(pos: number): void {
    this.pos = pos;
  }

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** Text of code units below 0x80 (names, digits, hex, base64). */
  ascii(s: string): void {
    this.room(s.length);
    this.pos += this.buf.write(s, this.pos, 'latin1');
  }

  utf8(s: string): void {
    this.room(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(src: Uint8Array, start: number, end: number): void {
    const n = end - start;
    this.room(n);
    const buf = this.buf;
    if (n < SHORT_COPY) {
      let p = this.pos;
      for (let i = start; i < end; i++) buf[p++] = src[i];
    } else buf.set(src.subarray(start, end), this.pos);
    this.pos += n;
  }

  /** All of `src` (a fragment encoded once, e.g. by `fragment`). */
  lit(src: Uint8Array): void {
    this.bytes(src, 0, src.length);
  }

  /** A non-negative safe integer in decimal. */
  uint(n: number): void {
    this.room(16);
    const buf = this.buf;
    let digits = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
    let p = this.pos + digits;
    this.pos = p;
    let x = n;
    do {
      buf[--p] = 0x30 + (x % 10);
      x = Math.floor(x / 10);
    } while (x > 0);
  }

  /** The lowercase hex of src[at, at + n). */
  hex(src: Uint8Array, at: number, n: number): void {
    this.room(2 * n);
    const buf = this.buf;
    let p = this.pos;
    for (let i = at; i < at + n; i++) {
      const c = src[i];
      buf[p++] = HEX[c >> 4];
      buf[p++] = HEX[c & 15];
    }
    this.pos = p;
  }

  /** src[start, end) in base64url without padding, as Buffer's 'base64url' writes it. */
  base64url(src: Uint8Array, start: number, end: number): void {
    this.room(Math.ceil(((end - start) * 4) / 3));
    const buf = this.buf;
    let p = this.pos;
    let i = start;
    for (; i + 3 <= end; i += 3) {
      const v = (src[i] << 16) | (src[i + 1] << 8) | src[i + 2];
      buf[p++] = B64URL[v >> 18];
      buf[p++] = B64URL[(v >> 12) & 63];
      buf[p++] = B64URL[(v >> 6) & 63];
      buf[p++] = B64URL[v & 63];
    }
    if (end - i === 1) {
      const v = src[i];
      buf[p++] = B64URL[v >> 2];
      buf[p++] = B64URL[(v & 3) << 4];
    } else if (end - i === 2) {
      const v = (src[i] << 8) | src[i + 1];
      buf[p++] = B64URL[v >> 10];
      buf[p++] = B64URL[(v >> 4) & 63];
      buf[p++] = B64URL[(v & 15) << 2];
    }
    this.pos = p;
  }

  /**
   * src[start, end) as a JSON string when it is ASCII that JSON.stringify writes as it is (no quote,
   * backslash or control character); else writes nothing and returns false.
   */
  plainString(src: Uint8Array, start: number, end: number): boolean {
    this.room(end - start + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = QUOTE;
    for (let i = start; i < end; i++) {
      const c = src[i];
      if (c < 0x20 || c >= 0x80 || c === QUOTE || c === 0x5c) return false;
      buf[p++] = c;
    }
    buf[p++] = QUOTE;
    this.pos = p;
    return true;
  }
}

/** A fixed piece of a line, encoded once. */
export const fragment = (s: string): Buffer => Buffer.from(s, 'utf8');
