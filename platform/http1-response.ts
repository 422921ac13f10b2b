// platform/http1-response.ts: a push parser for one HTTP/1.1 response to a GET (RFC 9112 §4-§7),
// for the CLI's large downloads (platform/download.ts, docs/design.md §8): bytes go in as the socket
// delivers them, the body comes out as views of those same bytes (no copy), so a caller can write
// each read straight to a file. Strict and bounded, since the answer comes from outside: the head
// at most maxHeadBytes (16 KiB, as the services' own request headers) and 100 lines, CRLF only,
// no obs-fold, header values without control characters; the framing is chunked, Content-Length
// or the close of the connection (RFC 9112 §6.3), with Transfer-Encoding other than exactly
// `chunked`, both framings at once, or Content-Lengths that disagree refused; a chunk-size line at
// most maxChunkLineBytes (extensions allowed and ignored), trailers bounded like the head and
// ignored. Leaves out: interim 1xx answers (a GET without Expect gets none: refused), keep-alive
// (the caller sends `Connection: close`), and requests. Invariant: a failure is sticky, and a
// body byte is handed on only once the framing before it was read and accepted.

export interface ResponseHead {
  status: number;
  /** Header names lower-cased; a repeated header's values joined with ", ". */
  headers: Map<string, string>;
}

export type ParseStep = { ok: true } | { ok: false; detail: string };

export interface Http1ResponseParser {
  /** Feed the next bytes of the connection. Body bytes reach onBody as views into `bytes`. */
  push(bytes: Uint8Array): ParseStep;
  /** The peer closed the connection: whether the answer was complete. */
  end(): ParseStep;
  /** The whole answer has been read (more bytes would be an error). */
  readonly done: boolean;
  /** Body bytes handed on so far. */
  readonly bodyBytes: number;
}

export interface Http1ParserOptions {
  onHead(head: ResponseHead): void;
  /** A view valid only during the call: write or copy it before returning. */
  onBody(bytes: Uint8Array): void;
  maxHeadBytes?: number;
  maxChunkLineBytes?: number;
}

export const MAX_HEAD_BYTES = 16 * 1024;
export const MAX_CHUNK_LINE_BYTES = 1024;
const MAX_HEAD_LINES = 100;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const STATUS_LINE = /^HTTP\/1\.[01] ([1-9][0-9]{2})(?: [\t\x20-\x7e\x80-\xff]*)?$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,12})[ \t]*(?:;[\t\x20-\x7e\x80-\xff]*)?$/;
const CTL = /[\x00-\x08\x0a-\x1f\x7f]/;

type State = 'head' | 'length' | 'close' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' | 'done' | 'failed';

/** Parses header lines (no status line) into a map, or says what is wrong. */
function readFields(lines: string[], into: Map<string, string>): string | undefined {
  for (const line of lines) {
    if (line.includes('\n') || line.includes('\r')) return 'a bare CR or LF in the head';
    if (line[0] === ' ' || line[0] === '\t') return 'a folded header line (obs-fold)';
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon);
    if (!TOKEN.test(name)) return `a header line that is not name: value (${JSON.stringify(line.slice(0, 40))})`;
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    if (CTL.test(value)) return `a control character in header ${name}`;
    const key = name.toLowerCase();
    const seen = into.get(key);
    into.set(key, seen === undefined ? value : `${seen}, ${value}`);
  }
  return undefined;
}

/** The body's framing from the head (RFC 9112 §6.3), or what is wrong with it. */
function framing(head: ResponseHead): { state: State; length: number } | string {
  if (head.status < 200) return `an interim ${head.status} answer to a GET`;
  if (head.status === 204 || head.status === 304) return { state: 'done', length: 0 };
  const te = head.headers.get('transfer-encoding');
  const cl = head.headers.get('content-length');
  if (te !== undefined) {
    if (te.toLowerCase() !== 'chunked') return `Transfer-Encoding ${JSON.stringify(te.slice(0, 40))} (only chunked is read)`;
    if (cl !== undefined) return 'both Transfer-Encoding and Content-Length';
    return { state: 'chunk-size', length: 0 };
  }
  if (cl !== undefined) {
    const parts = cl.split(',').map((p) => p.trim());
    if (!parts.every((p) => /^[0-9]{1,15}$/.test(p) && p === parts[0])) return `Content-Length ${JSON.stringify(cl.slice(0, 40))}`;
    const length = Number(parts[0]);
    return { state: length === 0 ? 'done' : 'length', length };
  }
  return { state: 'close', length: 0 };
}

export function createHttp1ResponseParser(o: Http1ParserOptions): Http1ResponseParser {
  const maxHead = o.maxHeadBytes ?? MAX_HEAD_BYTES;
  const maxChunkLine = o.maxChunkLineBytes ?? MAX_CHUNK_LINE_BYTES;
  let state: State = 'head';
  let failure = '';
  /** The head, a chunk-size line or the trailers, gathered across pushes (bounded). */
  let pending: Buffer = Buffer.alloc(0);
  let left = 0; // bytes left of the Content-Length body or of the current chunk
  let crlf = 0; // bytes of the CRLF after a chunk's data seen so far
  let body = 0;
  let trailerBytes = 0;

  const fail = (detail: string): ParseStep => {
    state = 'failed';
    failure = detail;
    return { ok: false, detail };
  };
  const emit = (bytes: Uint8Array) => {
    body += bytes.length;
    o.onBody(bytes);
  };

  /** Gathers bytes of `buf` from `i` up to and including the next LF into `pending`; -1 when more are needed. */
  function gatherLine(buf: Uint8Array, i: number, max: number): number {
    const lf = buf.indexOf(0x0a, i);
    const end = lf < 0 ? buf.length : lf + 1;
    if (pending.length + (end - i) > max) return -2;
    pending = pending.length === 0 ? Buffer.from(buf.subarray(i, end)) : Buffer.concat([pending, buf.subarray(i, end)]);
    return lf < 0 ? -1 : end;
  }

  /** One gathered line without its CRLF, or undefined when it does not end in CRLF. */
  function takeLine(): string | undefined {
    const line = pending;
    pending = Buffer.alloc(0);
    if (line.length < 2 || line[line.length - 2] !== 0x0d) return undefined;
    return line.subarray(0, line.length - 2).toString('latin1');
  }

  function readHead(buf: Uint8Array, i: number): number | ParseStep {
    const from = Math.max(0, pending.length - 3);
    const room = maxHead - pending.length;
    const take = buf.subarray(i, i + Math.min(room + 1, buf.length - i));
    pending = Buffer.concat([pending, take]);
    const at = pending.indexOf('\r\n\r\n', from, 'latin1');
    if (at < 0) return pending.length > maxHead ? fail(`an answer head over ${maxHead} bytes`) : buf.length;
    if (at + 4 > maxHead) return fail(`an answer head over ${maxHead} bytes`);
    const consumed = i + (at + 4 - (pending.length - take.length));
    const lines = pending.subarray(0, at).toString('latin1').split('\r\n');
    pending = Buffer.alloc(0);
    if (lines.length > MAX_HEAD_LINES) return fail(`an answer head of more than ${MAX_HEAD_LINES} lines`);
    const status = STATUS_LINE.exec(lines[0]);
    if (!status) return fail(`not an HTTP/1.1 status line (${JSON.stringify(lines[0].slice(0, 40))})`);
    const head: ResponseHead = { status: Number(status[1]), headers: new Map() };
    const bad = readFields(lines.slice(1), head.headers);
    if (bad) return fail(bad);
    const f = framing(head);
    if (typeof f === 'string') return fail(f);
    state = f.state;
    left = f.length;
    o.onHead(head);
    return consumed;
  }

  function push(buf: Uint8Array): ParseStep {
    let i = 0;
    while (i < buf.length) {
      switch (state) {
        case 'failed':
          return { ok: false, detail: failure };
        case 'done':
          return fail('bytes after the end of the answer');
        case 'head': {
          const r = readHead(buf, i);
          if (typeof r !== 'number') return r;
          i = r;
          break;
        }
        case 'close':
          emit(i === 0 ? buf : buf.subarray(i));
          i = buf.length;
          break;
        case 'length':
        case 'chunk-data': {
          const n = Math.min(left, buf.length - i);
          emit(i === 0 && n === buf.length ? buf : buf.subarray(i, i + n));
          i += n;
          left -= n;
          if (left === 0) state = state === 'length' ? 'done' : 'chunk-end';
          break;
        }
        case 'chunk-end':
          if (buf[i] !== (crlf === 0 ? 0x0d : 0x0a)) return fail('a chunk not followed by CRLF');
          i++;
          if (++crlf === 2) {
            crlf = 0;
            state = 'chunk-size';
          }
          break;
        case 'chunk-size': {
          const r = gatherLine(buf, i, maxChunkLine);
          if (r === -2) return fail(`a chunk-size line over ${maxChunkLine} bytes`);
          if (r === -1) return { ok: true };
          i = r;
          const line = takeLine();
          const m = line === undefined ? null : CHUNK_SIZE.exec(line);
          if (!m) return fail(`a malformed chunk-size line (${JSON.stringify((line ?? '').slice(0, 40))})`);
          left = parseInt(m[1], 16);
          state = left === 0 ? 'trailer' : 'chunk-data';
          break;
        }
        case 'trailer': {
          const r = gatherLine(buf, i, maxHead - trailerBytes);
          if (r === -2) return fail(`trailers over ${maxHead} bytes`);
          if (r === -1) return { ok: true };
          trailerBytes += r - i;
          i = r;
          const line = takeLine();
          if (line === undefined) return fail('a trailer line not ended by CRLF');
          if (line === '') state = 'done';
          else {
            const bad = readFields([line], new Map());
            if (bad) return fail(bad);
          }
          break;
        }
      }
    }
    return state === 'failed' ? { ok: false, detail: failure } : { ok: true };
  }

  function end(): ParseStep {
    switch (state) {
      case 'done':
      case 'close':
        state = 'done';
        return { ok: true };
      case 'failed':
        return { ok: false, detail: failure };
      case 'head':
        return fail('the connection ended before the answer head was complete');
      case 'length':
        return fail(`the connection ended after ${body} bytes, ${left} short of the announced length`);
      default:
        return fail(`the connection ended inside the chunked body, after ${body} bytes`);
    }
  }

  return {
    push,
    end,
    get done() {
      return state === 'done';
    },
    get bodyBytes() {
      return body;
    },
  };
}
