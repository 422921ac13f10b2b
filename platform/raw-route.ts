// platform/raw-route.ts: one hot POST route answered on fastify's own node:http server before
// fastify routes the request (RFC 9112 framing is still node's: its parser, its header and request
// timeouts, the connection caps of http-limits.ts all apply, as they sit on the server). Every other
// request goes to fastify unchanged. Why: on the hottest routes (the witness's POST /add-checkpoint,
// the sequencer's single-event ingest: sequencer/ingest-raw.ts) fastify's routing, Request/Reply
// objects, per-request child logger, hooks and body parser are a measurable share of the event
// loop a request (docs/design.md §13; the figures are in docs/benchmarks.md). Only a route that answers from one function of the whole body
// belongs here. A route names its exact path, or decides by `accept` from the path and headers
// (before any body byte is read) whether it takes a request; what it declines goes to fastify.
// What the route gets: the complete body, at most maxBodyBytes (a Content-Length above it, or a
// body that grows past it, is answered with tooLarge() and the connection closed; nothing is
// decided). A body cut short never reaches handle(). A rejection of handle() is answered with
// failed(err); once fastify starts closing (preClose), requests are answered with closing() and
// their connections closed, as fastify itself answers 503 while it drains.
// Invariant: fastify's request handler is taken off the server only after it was found (the first
// `request` listener, created by fastify with the server); anything else is refused at startup.
// Left out: other methods on the path (fastify's 404 answers them), streaming bodies, content
// negotiation.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

export interface RawAnswer {
  status: number;
  contentType: string;
  body: string | Uint8Array;
  /** Ask the client to close the connection after this answer (a server that is stopping). */
  close?: boolean;
  /** The Retry-After header (seconds), for a 503. */
  retryAfter?: string;
}

export interface RawPostRoute<T = true> {
  /** The exact path (a query string after it is ignored, as fastify's router ignores it). */
  path?: string;
  /**
   * Or: whether the route takes this POST, from its path (the query string cut off) and headers;
   * undefined leaves it to fastify, anything else is handed to handle() with the body.
   */
  accept?(path: string, req: IncomingMessage): T | undefined;
  maxBodyBytes: number;
  /** Decide one complete body. */
  handle(body: Uint8Array, accepted: T, req: IncomingMessage): Promise<RawAnswer>;
  tooLarge(): RawAnswer;
  failed(err: unknown): RawAnswer;
  closing(): RawAnswer;
}

type RequestListener = (this: unknown, req: IncomingMessage, res: ServerResponse) => void;

function answer(res: ServerResponse, a: RawAnswer, close: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const headers: Record<string, string | number> = {
    'content-type': a.contentType,
    'cache-control': 'no-store',
    'content-length': typeof a.body === 'string' ? Buffer.byteLength(a.body) : a.body.length,
  };
  if (close || a.close === true) headers.connection = 'close';
  if (a.retryAfter !== undefined) headers['retry-after'] = a.retryAfter;
  res.writeHead(a.status, headers);
  res.end(a.body);
}

function serve<T>(route: RawPostRoute<T>, accepted: T, req: IncomingMessage, res: ServerResponse): void {
  req.on('error', () => undefined); // a client gone mid-body: nothing was decided, nothing to say
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > route.maxBodyBytes) {
    answer(res, route.tooLarge(), true);
    req.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > route.maxBodyBytes) {
      refused = true;
      chunks.length = 0;
      answer(res, route.tooLarge(), true);
    } else chunks.push(chunk);
  });
  req.on('end', () => {
    if (refused) return;
    const b = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    route.handle(new Uint8Array(b.buffer, b.byteOffset, b.length), accepted, req).then(
      (a) => answer(res, a, false),
      (err: unknown) => answer(res, route.failed(err), false),
    );
  });
}

/** Answer POST `route.path` on `app`'s server before fastify sees it; call before listen(). */
export function routeRawPost<T = true>(app: FastifyInstance, route: RawPostRoute<T>): void {
  if ((route.path === undefined) === (route.accept === undefined))
    throw new Error('routeRawPost: give a route its path or accept, one of them');
  const server = app.server;
  const fastifyHandler = server.listeners('request')[0] as RequestListener | undefined;
  // fastify 5 creates the server with its router entry point, preRouting, as the first listener.
  if (typeof fastifyHandler !== 'function' || fastifyHandler.name !== 'preRouting')
    throw new Error("routeRawPost: fastify's request handler is not the server's first request listener");
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  const withQuery = `${route.path}?`;
  server.removeListener('request', fastifyHandler);
  server.prependListener('request', function (this: unknown, req: IncomingMessage, res: ServerResponse) {
    const url = req.url ?? '';
    if (req.method !== 'POST') return fastifyHandler.call(this, req, res);
    let accepted: T | undefined;
    if (route.accept) {
      const q = url.indexOf('?');
      accepted = route.accept(q < 0 ? url : url.slice(0, q), req);
    } else if (url === route.path || url.startsWith(withQuery)) accepted = true as T;
    if (accepted === undefined) return fastifyHandler.call(this, req, res);
    if (closing) {
      answer(res, route.closing(), true);
      req.resume();
      return;
    }
    serve(route, accepted, req, res);
  });
}
