// logstore/json-lines.ts: NDJSON lines written straight from the stored bytes of entries and
// payloads (entry-codec.ts, payload-codec.ts), for the read paths that stream a range of a log:
// the entries route with payloads=1 and the bundle export (docs/design.md §8, §10). A binary entry
// is encoded to its JSON text field by field from the record (strings copied as UTF-8 bytes when
// they need no escape); a stored JSON text (a payload as received, an entry of another shape) is
// copied as it is when canonical-json.ts finds it is already JSON.stringify's spelling, the raw
// data of a binary payload written as base64 into its placeholder. Everything else takes the old
// road: decode, then JSON.stringify. Lines are assembled in Buffers of about 64 KiB. Left out:
// the order of lines and which payloads belong (sequencer/entry-lines.ts). Invariant: the bytes
// are exactly JSON.stringify(decodeEntry(...)) + '\n' and encodeLine(buildPayloadLine(seq,
// decodePayload(...))) (json-lines.test.ts, fast-check against that oracle).

import {
  ALGS,
  BINARY_EVENT_HASH_AT,
  BINARY_HASH_AT,
  BINARY_PREV_AT,
  BINARY_TIMES_AT,
  HAS_COOKWALASEQ,
  HAS_SUBJECT,
  isBinaryEntry,
  decodeEntry,
} from './entry-codec.ts';
import { decodePayload } from './payload-codec.ts';
import { isCanonicalJson, type MemberSpan } from './canonical-json.ts';

const CHUNK = 64 << 10;
const JSON_OPEN = 0x7b;
const RAW_DATA = 0x01;
const TWO32 = 2 ** 32;

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
    this.room(end - start);
    this.buf.set(src.subarray(start, end), this.pos);
    this.pos += end - start;
  }

  /** `sha256:` and the hex of 32 bytes. */
  hash(src: Buffer, at: number): void {
    this.room(71);
    this.pos += this.buf.write('sha256:', this.pos, 'latin1');
    this.pos += this.buf.write(src.toString('hex', at, at + 32), this.pos, 'latin1');
  }
}

/** Whether b[start, end) is ASCII that JSON.stringify writes as it is (no quote, backslash or control character). */
function plainAscii(b: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = b[i];
    if (c < 0x20 || c >= 0x80 || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}

// Entries of one append share sequencedAt, and one device's events often share signedAt.
function timeText(): (ms: number) => string {
  let lastMs = -1;
  let last = '';
  return (ms) => {
    if (ms !== lastMs) {
      last = new Date(ms).toISOString();
      lastMs = ms;
    }
    return last;
  };
}

/** Writers of one stream: `log` is the store's log name (binary entries do not store it). */
export function createLineWriter(log: string) {
  const logJson = JSON.stringify(log);
  const sequencedText = timeText();
  const signedText = timeText();

  /** A string of the record at `o` (u16 length + UTF-8) as a JSON string; returns the next offset. */
  function str(w: LineBuffer, b: Buffer, o: number, end: number): number {
    if (o + 2 > end) throw new Error('short');
    const n = (b[o] << 8) | b[o + 1];
    const s = o + 2;
    const e = s + n;
    if (e > end) throw new Error('short');
    if (plainAscii(b, s, e)) {
      w.ascii('"');
      w.bytes(b, s, e);
      w.ascii('"');
    } else w.utf8(JSON.stringify(b.toString('utf8', s, e)));
    return e;
  }

  function u64(b: Buffer, o: number): number {
    const n = b.readUInt32BE(o) * TWO32 + b.readUInt32BE(o + 4);
    if (!Number.isSafeInteger(n)) throw new Error('u64');
    return n;
  }

  /** The binary entry's JSON, as decodeEntry then JSON.stringify would give it; false if the record does not parse. */
  function binaryEntry(w: LineBuffer, b: Buffer, seq: number): boolean {
    const flags = b[1];
    const alg = ALGS[b[2]] as string | undefined;
    if (!alg) return false;
    let o = BINARY_TIMES_AT;
    const sequencedMs = u64(b, o);
    const signedMs = u64(b, o + 8);
    o += 16;
    let cookwalaseq = -1;
    if (flags & HAS_COOKWALASEQ) {
      cookwalaseq = u64(b, o);
      o += 8;
    }
    const sigLen = b[o++];
    const sigAt = o;
    o += sigLen;
    if (o > b.length) return false;
    w.ascii(`{"kind":"Event","log":`);
    w.utf8(logJson);
    w.ascii(`,"seq":${seq},"prev":"`);
    w.hash(b, BINARY_PREV_AT);
    w.ascii(`","sequencedAt":"${sequencedText(sequencedMs)}","ce":{"source":`);
    o = str(w, b, o, b.length);
    w.ascii(',"id":');
    o = str(w, b, o, b.length);
    w.ascii(',"type":');
    o = str(w, b, o, b.length);
    const kidAt = o;
    o = kidAt + 2 + ((b[kidAt] << 8) | b[kidAt + 1]);
    if (flags & HAS_SUBJECT) {
      w.ascii(',"subject":');
      o = str(w, b, o, b.length);
    }
    if (o !== b.length) return false;
    if (cookwalaseq >= 0) w.ascii(`,"cookwalaseq":${cookwalaseq}`);
    w.ascii('},"eventHash":"');
    w.hash(b, BINARY_EVENT_HASH_AT);
    w.ascii(`","eventSignature":{"alg":"${alg}","kid":`);
    str(w, b, kidAt, b.length);
    w.ascii(`,"signedAt":"${signedText(signedMs)}","sig":"${b.toString('base64url', sigAt, sigAt + sigLen)}"},"hash":"`);
    w.hash(b, BINARY_HASH_AT);
    w.ascii('"}\n');
    return true;
  }

  return {
    /** The entry line of a stored entry record. */
    entry(w: LineBuffer, v: Uint8Array, seq: number): void {
      const b = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      if (isBinaryEntry(b) && b.length >= BINARY_TIMES_AT + 16) {
        // A damaged record leaves no half line: the writer goes back to where the line began.
        const at = w.mark();
        try {
          if (binaryEntry(w, b, seq)) return;
        } catch {
          // falls through to decodeEntry, which says what is damaged
        }
        w.reset(at);
      } else if (b[0] === JSON_OPEN && isCanonicalJson(b)) {
        w.bytes(b, 0, b.length);
        w.ascii('\n');
        return;
      }
      w.utf8(JSON.stringify(decodeEntry(b, log, seq)) + '\n');
    },

    /** The bundle Payload line of a stored payload record. */
    payload(w: LineBuffer, v: Uint8Array, seq: number): void {
      const b = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      if (b[0] === JSON_OPEN) {
        if (isCanonicalJson(b)) {
          w.ascii(`{"kind":"Payload","seq":${seq},"event":`);
          w.bytes(b, 0, b.length);
          w.ascii('}\n');
          return;
        }
      } else if (b[0] === RAW_DATA && b.length >= 5) {
        const n = b.readUInt32BE(1);
        const dataSpan: { span?: MemberSpan } = {};
        const span = 5 + n <= b.length && isCanonicalJson(b, 5, 5 + n, dataSpan) ? dataSpan.span : undefined;
        if (span && span.end - span.start === 2 && b[span.start] === 0x22 && b[span.start + 1] === 0x22) {
          w.ascii(`{"kind":"Payload","seq":${seq},"event":`);
          w.bytes(b, 5, span.start + 1);
          w.ascii(b.toString('base64', 5 + n));
          w.bytes(b, span.start + 1, 5 + n);
          w.ascii('}\n');
          return;
        }
      }
      w.utf8(JSON.stringify({ kind: 'Payload', seq, event: decodePayload(b) }) + '\n');
    },
  };
}

export type LineWriter = ReturnType<typeof createLineWriter>;
