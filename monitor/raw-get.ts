// monitor/raw-get.ts: the monitor's read of a large body over plain http (a page of entries,
// docs/design.md §8, §13), on a socket of its own: the answer is read by the platform's strict
// HTTP/1.1 parser (platform/http1-response.ts) from one reused read buffer (net's `onread`), and the
// body copied once into the caller's buffer (grown when the body outgrows it). No buffer is
// allocated per socket read: node:http allocates one for every 64 KiB, which for megabytes of pages
// is external memory enough to set off a full garbage collection every page or two (the collector's
// marking then runs on the other threads), where `cookwala verify` reading its file sets off one in
// all. One request per connection (`Connection: close`), a deadline for the whole answer, and the
// body refused past maxBytes. Left out: https (the caller uses node:http for it), redirects
// (refused), keep-alive. Invariant: a returned body is whole, framed as the head said, and at most
// maxBytes long.

import { connectGet, createHttp1ResponseParser, getRequestHead, type ResponseHead } from '../platform/index.ts';

/** The one buffer each read of the socket lands in. */
export const RAW_READ_BYTES = 256 * 1024;

export class RawGetFailed extends Error {
  override readonly name = 'RawGetFailed';
  constructor(
    message: string,
    /** Nothing was answered (a refused or reset connection): sending again is safe. */
    readonly unanswered: boolean,
  ) {
    super(message);
  }
}

export interface RawGot {
  status: number;
  body: Buffer;
  contentType: string;
}

/** GET `u` (http:) with the body read into `into.buf`; rejects with RawGetFailed. */
export function rawGet(
  u: URL,
  o: { accept?: string; maxBytes: number; timeoutMs: number; into: { buf: Buffer }; readBuf: Buffer },
): Promise<RawGot> {
  return new Promise<RawGot>((resolve, reject) => {
    let head: ResponseHead | undefined;
    let n = 0;
    let got = false;
    let settled = false;
    const finish = (e?: RawGetFailed) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (e) return reject(e);
      resolve({ status: head!.status, body: o.into.buf.subarray(0, n), contentType: head!.headers.get('content-type') ?? '' });
    };
    const failed = (why: string) => finish(new RawGetFailed(`GET ${u.href}: ${why}`, !got));
    const parser = createHttp1ResponseParser({
      onHead(h) {
        head = h;
        if (h.status >= 300 && h.status < 400) return failed(`redirected (HTTP ${h.status}), which the monitor does not follow`);
        const declared = Number(h.headers.get('content-length'));
        if (Number.isSafeInteger(declared) && declared > o.maxBytes) failed(`the body is longer than ${o.maxBytes} bytes`);
      },
      onBody(bytes) {
        if (settled) return;
        if (n + bytes.length > o.maxBytes) return failed(`the body is longer than ${o.maxBytes} bytes`);
        let buf = o.into.buf;
        if (n + bytes.length > buf.length) {
          const grown = Buffer.allocUnsafe(Math.min(o.maxBytes, Math.max(2 * buf.length, n + bytes.length)));
          buf.copy(grown, 0, 0, n);
          buf = o.into.buf = grown;
        }
        buf.set(bytes, n);
        n += bytes.length;
      },
    });
    const take = (bytes: Uint8Array) => {
      got = true;
      if (settled) return;
      const step = parser.push(bytes);
      if (!step.ok) return failed(`a malformed answer: ${step.detail}`);
      if (parser.done) finish();
    };
    const timer = setTimeout(() => finish(new RawGetFailed(`GET ${u.href}: timed out`, false)), o.timeoutMs);
    const socket = connectGet(u, getRequestHead(u, o.accept ? `Accept: ${o.accept}\r\n` : ''), o.readBuf, take);
    socket.on('error', (e) => failed(e.message));
    socket.on('end', () => {
      if (settled) return;
      const step = parser.end();
      if (step.ok) finish();
      else failed(step.detail);
    });
    socket.on('close', () => failed('the connection closed before the answer ended'));
  });
}
