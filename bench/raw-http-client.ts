// bench/raw-http-client.ts: a minimal HTTP/1.1 keep-alive client for the bench's load generators
// (RFC 9112), so that on a 2-core machine the client takes as little CPU as it can from the
// server it measures: node:http's client costs several times as much a request, most of it its
// own parser and agent. Each of SOCKETS connections carries one request at a time (no pipelining, as
// node:http's Agent); every request's bytes (head and body) are built once, before any clock.
// Reads only what the bench needs: the status code and a Content-Length body, which `send` skips
// and `sendForBody` returns.
// A connection the server closed while idle is reopened; a request whose connection closed
// before any byte of its answer arrived is sent once more on a fresh one (the server read none of
// it, as node:http's `reusedSocket` retry assumes). Left out: chunked bodies (refused: the servers
// measured answer with Content-Length), redirects, TLS, anything but 127.0.0.1.

import { connect, type Socket } from 'node:net';

/** A request's bytes: request line, headers (`extra` after the usual ones) and body, ready to write. */
export function postBytes(
  host: string,
  port: number,
  path: string,
  contentType: string,
  text: string | Uint8Array,
  extra: Readonly<Record<string, string>> = {},
): Buffer {
  const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let head = `POST ${path} HTTP/1.1\r\nhost: ${host}:${port}\r\ncontent-type: ${contentType}\r\ncontent-length: ${body.length}\r\n`;
  for (const [k, v] of Object.entries(extra)) {
    if (/[\r\n:]/.test(k) || /[\r\n]/.test(v)) throw new TypeError(`header ${JSON.stringify(k)} would break the request head`);
    head += `${k}: ${v}\r\n`;
  }
  return Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), body]);
}

export interface RawAnswer {
  status: number;
  body: Buffer;
}

interface Pending {
  bytes: Buffer;
  /** Whether the answer's body is kept (sendForBody) or skipped (send). */
  keep: boolean;
  resolve: (a: RawAnswer) => void;
  reject: (e: Error) => void;
  retried: boolean;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const MAX_HEAD = 16 * 1024;
const EMPTY = Buffer.alloc(0);

export interface RawHttpClient {
  /** Send one request's bytes (postBytes); resolves with the answer's status code. */
  send(bytes: Buffer): Promise<number>;
  /** The same, resolving with the status and the answer's body. */
  sendForBody(bytes: Buffer): Promise<RawAnswer>;
  close(): void;
}

export function createRawHttpClient(host: string, port: number, sockets: number): RawHttpClient {
  const queue: Pending[] = [];
  const idle: Conn[] = [];
  let closed = false;

  class Conn {
    sock: Socket | undefined;
    current: Pending | undefined;
    buf: Buffer = Buffer.alloc(0);
    /** Bytes of the current answer's body still to skip, once its head is read. */
    bodyLeft = -1;
    status = 0;
    gotBytes = false;
    closeAfter = false;

    open(): Socket {
      const s = connect({ host, port, noDelay: true });
      s.on('data', (d: Buffer) => this.onData(d));
      s.on('error', () => {}); // 'close' follows and decides
      s.on('close', () => this.onClose(s));
      this.sock = s;
      return s;
    }
    start(p: Pending): void {
      this.current = p;
      this.buf = Buffer.alloc(0);
      this.bodyLeft = -1;
      this.gotBytes = false;
      (this.sock ?? this.open()).write(p.bytes);
    }
    onData(d: Buffer): void {
      this.gotBytes = true;
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      if (this.bodyLeft < 0) {
        const end = this.buf.indexOf(HEAD_END);
        if (end < 0) {
          if (this.buf.length > MAX_HEAD) this.fail(new Error('answer head too long'));
          return;
        }
        const head = this.buf.subarray(0, end).toString('latin1');
        const m = /^HTTP\/1\.1 (\d{3})/.exec(head);
        const len = /\r\ncontent-length: *(\d+)/i.exec(head);
        if (!m || !len) return this.fail(new Error(`unreadable answer head: ${head.slice(0, 200)}`));
        this.status = Number(m[1]);
        this.bodyLeft = Number(len[1]);
        this.closeAfter = /\r\nconnection: *close/i.test(head);
        this.buf = this.buf.subarray(end + 4);
      }
      if (this.buf.length < this.bodyLeft) return;
      if (this.buf.length > this.bodyLeft) return this.fail(new Error('bytes after the answer (nothing was pipelined)'));
      const p = this.current!;
      this.current = undefined;
      if (this.closeAfter) {
        // The server said it closes this connection: the next request opens a fresh one.
        const s = this.sock;
        this.sock = undefined;
        s?.end();
      }
      p.resolve({ status: this.status, body: p.keep ? Buffer.from(this.buf) : EMPTY });
      next(this);
    }
    onClose(s: Socket): void {
      if (this.sock !== s) return;
      this.sock = undefined;
      const p = this.current;
      if (!p) return; // closed while idle: reopened on the next request
      this.current = undefined;
      if (!this.gotBytes && !p.retried && !closed) {
        p.retried = true;
        this.start(p);
      } else p.reject(new Error('connection closed before the answer was complete'));
    }
    fail(e: Error): void {
      const p = this.current;
      const s = this.sock;
      this.current = undefined;
      this.sock = undefined;
      s?.destroy();
      p?.reject(e);
      next(this);
    }
  }

  const conns = Array.from({ length: sockets }, () => new Conn());
  idle.push(...conns);
  function next(c: Conn): void {
    const p = queue.shift();
    if (p && !closed) c.start(p);
    else idle.push(c);
  }
  function enqueue(bytes: Buffer, keep: boolean): Promise<RawAnswer> {
    return new Promise<RawAnswer>((resolve, reject) => {
      if (closed) return reject(new Error('client closed'));
      const p: Pending = { bytes, keep, resolve, reject, retried: false };
      const c = idle.pop();
      if (c) c.start(p);
      else queue.push(p);
    });
  }
  return {
    send: async (bytes) => (await enqueue(bytes, false)).status,
    sendForBody: (bytes) => enqueue(bytes, true),
    close() {
      closed = true;
      for (const c of conns) c.sock?.destroy();
      for (const p of queue.splice(0)) p.reject(new Error('client closed'));
    },
  };
}
