// platform/http1-response.ts: the body comes out byte for byte however the connection splits the
// answer (fast-check over split points, for Content-Length, chunked with extensions and trailers,
// and close-delimited framing), as views of the pushed bytes; every hostile head or framing is a
// named failure that stays failed, and an answer cut short is a failure at end().
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHttp1ResponseParser, MAX_HEAD_BYTES, type ResponseHead } from './http1-response.ts';

function parse(parts: Uint8Array[], opts: { end?: boolean } = {}) {
  const heads: ResponseHead[] = [];
  const body: Buffer[] = [];
  const p = createHttp1ResponseParser({ onHead: (h) => heads.push(h), onBody: (b) => body.push(Buffer.from(b)) });
  let step: { ok: boolean; detail?: string } = { ok: true };
  for (const part of parts) {
    step = p.push(part);
    if (!step.ok) break;
  }
  if (step.ok && opts.end) step = p.end();
  return { step, head: heads[0], body: Buffer.concat(body).toString('latin1'), done: p.done, parser: p };
}

const b = (s: string) => Buffer.from(s, 'latin1');
/** `text` cut at the given offsets. */
function split(text: string, cuts: number[]): Uint8Array[] {
  const buf = b(text);
  const at = [...new Set(cuts.map((c) => c % (buf.length + 1)))].sort((x, y) => x - y);
  const out: Uint8Array[] = [];
  let from = 0;
  for (const c of [...at, buf.length]) {
    if (c > from) out.push(buf.subarray(from, c));
    from = Math.max(from, c);
  }
  return out;
}

const BODY = 'line one\nline two\n{"kind":"entry"}\n';
const LENGTH = `HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`;
const CHUNKED =
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '9\r\nline one\n\r\n' +
  '9;name=value\r\nline two\n\r\n' +
  `${(17).toString(16)} \r\n{"kind":"entry"}\n\r\n` +
  '0\r\nX-Trailer: yes\r\n\r\n';
const CLOSE = `HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n${BODY}`;

describe('createHttp1ResponseParser: framings, split anywhere', () => {
  for (const [name, text, end] of [
    ['Content-Length', LENGTH, false],
    ['chunked, with extensions and a trailer', CHUNKED, false],
    ['close-delimited', CLOSE, true],
  ] as const) {
    it(`${name}: the same body and head at every split`, () => {
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
          const r = parse(split(text, cuts), { end });
          expect(r.step).toEqual({ ok: true });
          expect(r.done).toBe(true);
          expect(r.head.status).toBe(200);
          expect(r.body).toBe(BODY);
          expect(r.parser.bodyBytes).toBe(BODY.length);
        }),
      );
    });
  }

  it('hands on views of the pushed bytes, not copies', () => {
    const buf = b(LENGTH);
    const seen: Uint8Array[] = [];
    const p = createHttp1ResponseParser({ onHead: () => undefined, onBody: (x) => seen.push(x) });
    expect(p.push(buf)).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
    expect(seen[0].buffer).toBe(buf.buffer);
  });

  it('204 and 304 have no body; a repeated equal Content-Length is one length; names are case-blind', () => {
    expect(parse([b('HTTP/1.1 204 No Content\r\n\r\n')]).done).toBe(true);
    expect(parse([b('HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n')]).done).toBe(true);
    const r = parse([b('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nCONTENT-LENGTH: 2\r\n\r\nok')]);
    expect(r).toMatchObject({ step: { ok: true }, done: true, body: 'ok' });
    expect(r.head.headers.get('content-length')).toBe('2, 2');
    expect(parse([b('HTTP/1.0 404\r\nContent-Length: 0\r\n\r\n')]).head.status).toBe(404);
  });
});

describe('createHttp1ResponseParser: hostile answers', () => {
  const bad: Array<[string, string, RegExp]> = [
    ['not HTTP', 'SSH-2.0-OpenSSH_9.2\r\n\r\n', /status line/],
    ['HTTP/2 status line', 'HTTP/2 200 OK\r\n\r\n', /status line/],
    ['a three-digit status below 100', 'HTTP/1.1 099 X\r\n\r\n', /status line/],
    ['an interim answer', 'HTTP/1.1 100 Continue\r\n\r\n', /interim 100/],
    ['a folded header', 'HTTP/1.1 200 OK\r\nX-A: 1\r\n  more\r\n\r\n', /obs-fold/],
    ['a bare LF in the head', 'HTTP/1.1 200 OK\r\nX-A: 1\nX-B: 2\r\n\r\n', /bare CR or LF/],
    ['a header without a colon', 'HTTP/1.1 200 OK\r\nnonsense\r\n\r\n', /name: value/],
    ['a space before the colon', 'HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx', /name: value/],
    ['a control character in a value', 'HTTP/1.1 200 OK\r\nX-A: a\x01b\r\n\r\n', /control character/],
    ['gzip transfer coding', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', /only chunked/],
    ['both framings', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n', /both/],
    ['Content-Lengths that disagree', 'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n', /Content-Length/],
    ['a signed Content-Length', 'HTTP/1.1 200 OK\r\nContent-Length: +3\r\n\r\n', /Content-Length/],
    ['a Content-Length past 2^53', 'HTTP/1.1 200 OK\r\nContent-Length: 9999999999999999\r\n\r\n', /Content-Length/],
    ['a chunk size that is not hex', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /chunk-size/],
    ['a chunk size of 13 hex digits', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000\r\n', /chunk-size/],
    ['a chunk-size line ended by a bare LF', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n', /chunk-size/],
    ['a chunk longer than its size', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n0\r\n\r\n', /CRLF/],
    ['a malformed trailer', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nnot a field\r\n\r\n', /name: value/],
    ['bytes after the end', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokMORE', /after the end/],
  ];
  for (const [name, text, why] of bad)
    it(`${name}: refused, and stays refused`, () => {
      const r = parse([b(text)]);
      expect(r.step.ok).toBe(false);
      expect(r.step.detail).toMatch(why);
      expect(r.parser.push(b('HTTP/1.1 200 OK\r\n\r\n'))).toEqual(r.step);
      expect(r.parser.end()).toEqual(r.step);
    });

  it('a head over the bound is refused before its end arrives, however it is split', () => {
    const p = createHttp1ResponseParser({ onHead: () => undefined, onBody: () => undefined });
    const line = b(`X-Filler: ${'a'.repeat(1000)}\r\n`);
    expect(p.push(b('HTTP/1.1 200 OK\r\n')).ok).toBe(true);
    let step = p.push(line);
    for (let i = 0; step.ok && i < MAX_HEAD_BYTES; i++) step = p.push(line);
    expect(step).toEqual({ ok: false, detail: `an answer head over ${MAX_HEAD_BYTES} bytes` });
  });

  it('more than 100 head lines are refused', () => {
    const text = `HTTP/1.1 200 OK\r\n${'X-A: 1\r\n'.repeat(100)}\r\n`;
    expect(parse([b(text)]).step).toMatchObject({ ok: false, detail: expect.stringMatching(/100 lines/) });
  });

  it('a chunk-size line over its bound is refused without waiting for its LF', () => {
    const text = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;${'x'.repeat(2000)}`;
    expect(parse([b(text)]).step).toMatchObject({ ok: false, detail: expect.stringMatching(/chunk-size line over/) });
  });

  it('trailers over the bound are refused', () => {
    const text = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n${`X-T: ${'t'.repeat(1000)}\r\n`.repeat(20)}\r\n`;
    expect(parse([b(text)]).step).toMatchObject({ ok: false, detail: expect.stringMatching(/trailers over/) });
  });

  it('an answer cut short fails at end(): before the head, short of its length, inside a chunk', () => {
    expect(parse([b('HTTP/1.1 200 OK\r\nContent-')], { end: true }).step.detail).toMatch(/before the answer head/);
    expect(parse([b('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')], { end: true }).step.detail).toMatch(/after 3 bytes, 7 short/);
    expect(parse([b('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab')], { end: true }).step.detail).toMatch(
      /inside the chunked body/,
    );
    expect(parse([b('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n')], { end: true }).step.ok).toBe(false);
  });
});
