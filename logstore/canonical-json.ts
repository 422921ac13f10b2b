// logstore/canonical-json.ts: is a stored JSON text exactly what JSON.stringify(JSON.parse(text))
// gives back? When it is, the read paths that send stored entries and payloads (json-lines.ts,
// docs/design.md §8, §10) copy its bytes into the line instead of parsing and re-encoding them.
// Stored payloads keep the text the sequencer received (payload-codec.ts), in any spelling, so a
// text is copied only when no spelling of it differs from JSON.stringify's: no whitespace, no
// escape but \" \\ \b \f \n \r \t and lowercase \u00XX for the other control characters, numbers
// as JavaScript prints them, valid UTF-8, and no member name that V8 would move to the front of
// its object (an array index: names starting with a digit are refused). Left out: validating the
// text (the store holds JSON it wrote or read strictly at ingest) and duplicate member names
// (ingest refuses them). Invariant: true only for a text that JSON.stringify(JSON.parse(text))
// reproduces byte for byte (json-lines.test.ts checks it against that oracle); anything unsure is
// false, and the caller falls back to parse and stringify.

import { isUtf8 } from 'node:buffer';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_DEPTH = 64;
/** The hex digits JSON.stringify writes in a \u escape (lowercase). */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[0x30 + i] = i;
for (let i = 0; i < 6; i++) HEX[0x61 + i] = 10 + i;
/** After a backslash: the escapes JSON.stringify writes with one letter. */
const SHORT_ESCAPE = new Uint8Array(128);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;
/** The control characters JSON.stringify writes as one-letter escapes, never as \u00XX. */
const LETTER_CONTROLS = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);
const DATA_BASE64 = Buffer.from('data_base64');

/** Whether the member name at b[at, at + 11) is data_base64 (compared in place, no view made). */
function isDataBase64(b: Uint8Array, at: number): boolean {
  for (let k = 0; k < DATA_BASE64.length; k++) if (b[at + k] !== DATA_BASE64[k]) return false;
  return true;
}

/** Where a canonical object's top-level `data_base64` member value starts and ends (end exclusive). */
export interface MemberSpan {
  start: number;
  end: number;
}

class Scan {
  i: number;
  nonAscii = false;
  /** The top-level data_base64 value, when the text has one. */
  data: MemberSpan | undefined;
  constructor(
    readonly b: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.i = start;
  }

  value(depth: number): boolean {
    if (this.i >= this.end) return false;
    const c = this.b[this.i];
    if (c === 0x7b) return this.object(depth + 1);
    if (c === 0x5b) return this.array(depth + 1);
    if (c === QUOTE) return this.string(false);
    if (c === 0x74) return this.literal('true');
    if (c === 0x66) return this.literal('false');
    if (c === 0x6e) return this.literal('null');
    return this.number();
  }

  private object(depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const b = this.b;
    this.i++;
    if (b[this.i] === 0x7d) {
      this.i++;
      return true;
    }
    for (;;) {
      if (b[this.i] !== QUOTE) return false;
      const nameStart = this.i + 1;
      if (!this.string(true)) return false;
      const nameEnd = this.i - 1;
      if (b[this.i++] !== 0x3a) return false;
      const at = this.i;
      if (!this.value(depth)) return false;
      if (depth === 1 && nameEnd - nameStart === DATA_BASE64.length && isDataBase64(b, nameStart)) this.data = { start: at, end: this.i };
      const c = b[this.i++];
      if (c === 0x7d) return true;
      if (c !== 0x2c) return false;
    }
  }

  private array(depth: number): boolean {
    if (depth > MAX_DEPTH) return false;
    const b = this.b;
    this.i++;
    if (b[this.i] === 0x5d) {
      this.i++;
      return true;
    }
    for (;;) {
      if (!this.value(depth)) return false;
      const c = b[this.i++];
      if (c === 0x5d) return true;
      if (c !== 0x2c) return false;
    }
  }

  /** A string from its opening quote; a member name must not start with a digit (V8 orders array indexes first). */
  private string(isName: boolean): boolean {
    const b = this.b;
    const end = this.end;
    let i = this.i + 1;
    if (isName && b[i] >= 0x30 && b[i] <= 0x39) return false;
    while (i < end) {
      const c = b[i];
      if (c === QUOTE) {
        this.i = i + 1;
        return true;
      }
      if (c < 0x20) return false;
      if (c >= 0x80) this.nonAscii = true;
      else if (c === BACKSLASH) {
        const x = b[i + 1];
        if (x === 0x75) {
          // \u00XX with lowercase hex, for a control character without a one-letter escape.
          if (b[i + 2] !== 0x30 || b[i + 3] !== 0x30) return false;
          const hi = HEX[b[i + 4]] ?? -1;
          const lo = HEX[b[i + 5]] ?? -1;
          if (hi < 0 || lo < 0) return false;
          const code = hi * 16 + lo;
          if (code >= 0x20 || LETTER_CONTROLS.has(code)) return false;
          i += 6;
          continue;
        }
        if (x === undefined || x >= 128 || !SHORT_ESCAPE[x]) return false;
        i += 2;
        continue;
      }
      i++;
    }
    return false;
  }

  private literal(word: string): boolean {
    const b = this.b;
    for (let k = 0; k < word.length; k++) if (b[this.i + k] !== word.charCodeAt(k)) return false;
    this.i += word.length;
    return true;
  }

  /** A number spelled as JavaScript prints it: a short integer at once, anything else by round trip. */
  private number(): boolean {
    const b = this.b;
    const start = this.i;
    let i = start;
    let plain = true; // digits only, after an optional minus
    if (b[i] === 0x2d) i++;
    const digits = i;
    for (; i < this.end; i++) {
      const c = b[i];
      if (c >= 0x30 && c <= 0x39) continue;
      if (c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d) plain = false;
      else break;
    }
    if (i === digits) return false;
    this.i = i;
    const n = i - digits;
    if (plain && n <= 15 && (b[digits] !== 0x30 || n === 1) && !(n === 1 && b[digits] === 0x30 && digits > start)) return true;
    let text = '';
    for (let k = start; k < i; k++) text += String.fromCharCode(b[k]);
    const v = Number(text);
    return Number.isFinite(v) && String(v) === text;
  }
}

/**
 * Whether b[start, end) is one JSON value that JSON.stringify(JSON.parse(text)) reproduces byte
 * for byte; with `data`, the span of its top-level data_base64 member's value is put there.
 */
export function isCanonicalJson(b: Uint8Array, start = 0, end = b.length, data?: { span?: MemberSpan }): boolean {
  const s = new Scan(b, start, end);
  if (!s.value(0) || s.i !== end) return false;
  if (s.nonAscii && !isUtf8(b.subarray(start, end))) return false;
  if (data) data.span = s.data;
  return true;
}
