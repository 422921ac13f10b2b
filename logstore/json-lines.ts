// logstore/json-lines.ts: NDJSON lines written straight from the stored bytes of entries and
// payloads (entry-codec.ts, payload-codec.ts), for the read paths that stream a range of a log:
// the entries route with payloads=1 and the bundle export (docs/design.md §8, §10). A binary entry
// is encoded to its JSON text field by field from the record (strings copied as UTF-8 bytes when
// they need no escape); a stored JSON text (a payload as received, an entry of another shape) is
// copied as it is when canonical-json.ts finds it is already JSON.stringify's spelling, the raw
// data of a binary payload written as base64 into its placeholder. Everything else takes the old
// road: decode, then JSON.stringify. Lines are assembled in Buffers of about 64 KiB, their pieces
// written byte by byte (line-buffer.ts). Left out:
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
import { fragment, LineBuffer } from './line-buffer.ts';

export { LineBuffer } from './line-buffer.ts';

const JSON_OPEN = 0x7b;
const RAW_DATA = 0x01;
const TWO32 = 2 ** 32;

// Entries of one append share sequencedAt, and one device's events often share signedAt.
function timeText(): (ms: number) => Buffer {
  let lastMs = -1;
  let last = Buffer.alloc(0);
  return (ms) => {
    if (ms !== lastMs) {
      last = Buffer.from(new Date(ms).toISOString(), 'latin1');
      lastMs = ms;
    }
    return last;
  };
}

const ALG_TEXT = ALGS.map((a) => fragment(a));
const F = {
  prev: fragment(',"prev":"sha256:'),
  sequencedAt: fragment('","sequencedAt":"'),
  source: fragment('","ce":{"source":'),
  id: fragment(',"id":'),
  type: fragment(',"type":'),
  subject: fragment(',"subject":'),
  cookwalaseq: fragment(',"cookwalaseq":'),
  eventHash: fragment('},"eventHash":"sha256:'),
  alg: fragment('","eventSignature":{"alg":"'),
  kid: fragment('","kid":'),
  signedAt: fragment(',"signedAt":"'),
  sig: fragment('","sig":"'),
  hash: fragment('"},"hash":"sha256:'),
  entryEnd: fragment('"}\n'),
  payload: fragment('{"kind":"Payload","seq":'),
  event: fragment(',"event":'),
  payloadEnd: fragment('}\n'),
  newline: fragment('\n'),
};

/** Writers of one stream: `log` is the store's log name (binary entries do not store it). */
export function createLineWriter(log: string) {
  const head = fragment(`{"kind":"Event","log":${JSON.stringify(log)},"seq":`);
  const sequencedText = timeText();
  const signedText = timeText();

  /** A string of the record at `o` (u16 length + UTF-8) as a JSON string; returns the next offset. */
  function str(w: LineBuffer, b: Buffer, o: number, end: number): number {
    if (o + 2 > end) throw new Error('short');
    const n = (b[o] << 8) | b[o + 1];
    const s = o + 2;
    const e = s + n;
    if (e > end) throw new Error('short');
    if (!w.plainString(b, s, e)) w.utf8(JSON.stringify(b.toString('utf8', s, e)));
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
    const alg = ALG_TEXT[b[2]] as Buffer | undefined;
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
    w.lit(head);
    w.uint(seq);
    w.lit(F.prev);
    w.hex(b, BINARY_PREV_AT, 32);
    w.lit(F.sequencedAt);
    w.lit(sequencedText(sequencedMs));
    w.lit(F.source);
    o = str(w, b, o, b.length);
    w.lit(F.id);
    o = str(w, b, o, b.length);
    w.lit(F.type);
    o = str(w, b, o, b.length);
    const kidAt = o;
    o = kidAt + 2 + ((b[kidAt] << 8) | b[kidAt + 1]);
    if (flags & HAS_SUBJECT) {
      w.lit(F.subject);
      o = str(w, b, o, b.length);
    }
    if (o !== b.length) return false;
    if (cookwalaseq >= 0) {
      w.lit(F.cookwalaseq);
      w.uint(cookwalaseq);
    }
    w.lit(F.eventHash);
    w.hex(b, BINARY_EVENT_HASH_AT, 32);
    w.lit(F.alg);
    w.lit(alg);
    w.lit(F.kid);
    str(w, b, kidAt, b.length);
    w.lit(F.signedAt);
    w.lit(signedText(signedMs));
    w.lit(F.sig);
    w.base64url(b, sigAt, sigAt + sigLen);
    w.lit(F.hash);
    w.hex(b, BINARY_HASH_AT, 32);
    w.lit(F.entryEnd);
    return true;
  }

  return {
    /** The entry line of a stored entry record. */
    entry(w: LineBuffer, v: Uint8Array, seq: number): void {
      const b = Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
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
        w.lit(F.newline);
        return;
      }
      w.utf8(JSON.stringify(decodeEntry(b, log, seq)) + '\n');
    },

    /** The bundle Payload line of a stored payload record. */
    payload(w: LineBuffer, v: Uint8Array, seq: number): void {
      const b = Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      if (b[0] === JSON_OPEN) {
        if (isCanonicalJson(b)) {
          w.lit(F.payload);
          w.uint(seq);
          w.lit(F.event);
          w.bytes(b, 0, b.length);
          w.lit(F.payloadEnd);
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
