// platform/http-limits.ts: the bounds every HTTP server of this project holds (docs/design.md §14:
// "everything from outside is hostile: bounded size, nesting, time"): the sequencer's, the
// witness's status / C2SP server and the executor's Core API take them from here, so one slow or
// greedy client cannot hold a server. Bounds, each answered with a reason code when an answer can
// still be written:
//   - headers: at most 16 KiB (431 headers_too_large), complete within 10 s of the connection's
//     first byte (Node's headersTimeout: 408 request_timeout);
//   - a whole request, body included, within 30 s (requestTimeout: 408 request_timeout): 1 MiB at
//     35 KB/s, far below any real client, far above a byte-a-second drip;
//   - an idle connection is closed after 5 s between requests (keepAliveTimeout) and after 30 s of
//     silence in one (connectionTimeout); at most 1,000 requests a connection (maxRequestsPerSocket);
//     Node checks the timeouts every second (connectionsCheckingInterval), not every 30;
//   - at most 4,096 open connections in all and 512 from one address: the next one from that
//     address gets 503 too_many_connections and is closed (Node's own maxConnections would drop it
//     without a word); at the overall cap the connection held longest without a complete request
//     is shed (503) to make room, so slow connections from many addresses cannot lock others out;
//     capConnections is the sequencer's and the witness's; the executor (loopback only) takes the
//     timeouts but no cap, so a local stop is never answered 503.
// Every error Node's HTTP parser or fastify's router raises before a route runs (clientError:
// malformed request line, chunked with Content-Length, a body cut short; frameworkErrors: a path
// parameter over maxParamLength, a bad URL) leaves as problem+json with a code from
// verifier/errors.ts, through http-problem.ts. A client that half-closes its side after a complete
// request (`nc -N`, `curl` with a shut-down write side) still gets its answer (answerHalfClosed):
// Node's default aborts the request on the client's FIN. Left out: rate limiting per client (a queue, not a
// bound), TLS (a reverse proxy's).

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { fail, type Failure } from '../verifier/index.ts';
import { problemOf, sendProblem, toFailure, PROBLEM_TYPE } from './http-problem.ts';

export interface HttpLimits {
  maxHeaderBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  idleTimeoutMs: number;
  maxRequestsPerSocket: number;
  maxConnections: number;
  maxConnectionsPerClient: number;
  /** At the overall cap, a connection with no complete request this old may be shed for a new one. */
  shedAfterMs: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = Object.freeze({
  maxHeaderBytes: 16 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  maxRequestsPerSocket: 1000,
  maxConnections: 4096,
  maxConnectionsPerClient: 512,
  shedAfterMs: 1000,
});

/** The problem+json of `f` as a whole HTTP/1.1 response, for a socket no reply object owns. */
export function rawProblemResponse(f: Failure): string {
  const p = problemOf(f);
  const body = JSON.stringify(p);
  const reason =
    {
      400: 'Bad Request',
      408: 'Request Timeout',
      413: 'Payload Too Large',
      414: 'URI Too Long',
      431: 'Request Header Fields Too Large',
      503: 'Service Unavailable',
    }[p.status] ?? 'Error';
  return `HTTP/1.1 ${p.status} ${reason}\r\nContent-Type: ${PROBLEM_TYPE}; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** A Node HTTP parser or server error as a Failure (clientError). */
export function clientErrorFailure(err: NodeJS.ErrnoException & { bytesParsed?: number }): Failure {
  const code = String(err.code ?? '');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return fail('request_timeout', 'the request (headers and body) did not arrive in time');
  if (code === 'HPE_HEADER_OVERFLOW') return fail('headers_too_large', 'the request headers exceed the size limit');
  if (code === 'HPE_URI_TOO_LONG' || code === 'HPE_URI_OVERFLOW') return fail('uri_too_long', 'the request target is too long');
  return fail('bad_request', `malformed HTTP request (${code.slice(0, 40) || 'client error'})`);
}

/** fastify's clientErrorHandler: every parser error answered as problem+json, then the socket closed. */
function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable && !(socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent)
    socket.end(rawProblemResponse(clientErrorFailure(err)));
  else socket.destroy();
}

/** fastify's frameworkErrors: the router's own errors (FST_ERR_MAX_PARAM_LENGTH, FST_ERR_BAD_URL, …). */
function onFrameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  void sendProblem(reply, toFailure(err));
}

/** Options for Fastify({...}) that bound time and headers and answer transport errors as problem+json. */
export function boundedServerOptions(limits: Partial<HttpLimits> = {}): Partial<FastifyServerOptions> & { http: Record<string, unknown> } {
  const l = { ...DEFAULT_HTTP_LIMITS, ...limits };
  return {
    connectionTimeout: l.idleTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    requestTimeout: l.requestTimeoutMs,
    maxRequestsPerSocket: l.maxRequestsPerSocket,
    clientErrorHandler: onClientError,
    frameworkErrors: onFrameworkError,
    http: {
      headersTimeout: l.headersTimeoutMs,
      requestTimeout: l.requestTimeoutMs,
      maxHeaderSize: l.maxHeaderBytes,
      connectionsCheckingInterval: 1000,
    },
  };
}

/**
 * Lets `server` answer a request whose client half-closed the connection after sending it: Node's
 * HTTP server by default aborts the in-flight request on the client's FIN and closes the socket, so
 * the request runs (an append may even happen) and its answer is lost. With this the answer is
 * written, then the socket closed.
 */
export function answerHalfClosed(server: Server): void {
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}

export interface ConnectionCaps {
  readonly open: number;
  readonly refused: number;
  /** Connections closed to make room: held open without a complete request for the longest. */
  readonly shed: number;
}

/** Answer 503 too_many_connections on a raw socket and close it. */
function refuseSocket(socket: Socket, detail: string): void {
  socket.on('error', () => undefined);
  socket.end(rawProblemResponse(fail('too_many_connections', detail)));
  socket.destroySoon?.();
  setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * Caps open connections on `server`, in all and per remote address. One over the per-address cap
 * is answered 503 too_many_connections and closed at once, before any byte of it is parsed. At the
 * overall cap the server sheds before it refuses: the connection that has been open longest
 * without completing a request (older than shedAfterMs) is answered 503 and closed, and the new
 * one is taken. So slow connections from many addresses (each under its per-address cap) cannot
 * lock well-behaved clients out until the headers timeout frees them: a client whose request
 * arrives promptly is never the oldest incomplete one. Only when no connection can be shed is the
 * new one refused.
 */
export function capConnections(server: Server, limits: Partial<HttpLimits> = {}): ConnectionCaps {
  const l = { ...DEFAULT_HTTP_LIMITS, ...limits };
  answerHalfClosed(server);
  const perClient = new Map<string, number>();
  /** Connections with no complete request yet, oldest first (a Map keeps insertion order). */
  const incomplete = new Map<Socket, number>();
  let open = 0;
  let refused = 0;
  let shed = 0;
  server.on('request', (req: { socket: Socket }) => void incomplete.delete(req.socket));
  const shedOne = (): boolean => {
    const now = Date.now();
    for (const [s, at] of incomplete) {
      if (now - at < l.shedAfterMs) return false;
      incomplete.delete(s);
      if (s.destroyed) continue;
      shed++;
      refuseSocket(s, `the server holds ${open} connections, its limit; this one sent no complete request in ${now - at} ms`);
      return true;
    }
    return false;
  };
  // prepend: before the HTTP server's own listener attaches a parser to the socket.
  server.prependListener('connection', (socket: Socket) => {
    const who = socket.remoteAddress ?? '?';
    const mine = perClient.get(who) ?? 0;
    if (mine >= l.maxConnectionsPerClient || (open >= l.maxConnections && !shedOne())) {
      refused++;
      refuseSocket(
        socket,
        mine >= l.maxConnectionsPerClient
          ? `this address holds ${mine} connections, the limit per client`
          : `the server holds ${open} connections, its limit`,
      );
      return;
    }
    // A shed connection counts until its close event; the new one is admitted now (at most one
    // over the cap for the second the shed one takes to close).
    open++;
    perClient.set(who, mine + 1);
    incomplete.set(socket, Date.now());
    socket.once('close', () => {
      open--;
      incomplete.delete(socket);
      const n = (perClient.get(who) ?? 1) - 1;
      if (n <= 0) perClient.delete(who);
      else perClient.set(who, n);
    });
  });
  return {
    get open() {
      return open;
    },
    get refused() {
      return refused;
    },
    get shed() {
      return shed;
    },
  };
}
