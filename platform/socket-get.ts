// platform/socket-get.ts: one GET on a socket of our own, the shared start of the CLIs' large reads
// (platform/download.ts, monitor/raw-get.ts; docs/design.md §8): connects to the URL's host (an
// IPv6 literal without its brackets) and writes the request head once connected. Over http the
// socket reads into the caller's one buffer (net's `onread`), each read handed to `take` as a view
// of it that is only valid until `take` returns; over https the TLS socket's own chunks go to
// `take`. Leaves out: parsing the answer (platform/http1-response.ts), timeouts and errors (the
// caller's, on the returned socket). Invariant: exactly one request per connection
// (`Connection: close`).

import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** The request head of a GET of `u`, with `headers` (each `name: value\r\n`) after Host. */
export function getRequestHead(u: URL, headers = ''): string {
  return `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n${headers}Connection: close\r\n\r\n`;
}

/** Connects to `u` (http: or https:), sends `head` and hands every read to `take`. */
export function connectGet(u: URL, head: string, readBuf: Buffer, take: (bytes: Uint8Array) => void): Socket {
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  if (u.protocol === 'https:') {
    const socket = tlsConnect({ host, port: Number(u.port) || 443, servername: host }, () => socket.write(head, 'latin1'));
    socket.on('data', take);
    return socket;
  }
  const onread = { buffer: readBuf, callback: (n: number, b: Uint8Array) => (take(b.subarray(0, n)), true) };
  const socket = netConnect({ host, port: Number(u.port) || 80, onread }, () => socket.write(head, 'latin1'));
  return socket;
}
