// sequencer/held-listener.ts: the sequencer's one listening socket, held across re-opens
// (docs/design.md §12: a policy change re-opens the sequencer with the new files). The TCP
// listener belongs to the process, not to one fastify app: each accepted connection is handed to
// the HTTP server of the app in service (`server.emit('connection')`, the pattern Node's cluster
// hand-off uses); while none is (between closing one app and opening the next) connections wait,
// paused, and go to the next app once it is ready. So a reload refuses no connection: a client
// only waits for the re-open. A connection is handed over when its first bytes arrive, not when
// it is accepted: a client writes its request a moment after connecting, and a connection handed
// to an app that began closing in that moment would be answered 503 shutting_down (or closed as
// idle) although the next app was about to serve it. The bytes read are put back (`unshift`) for
// the app's parser. A connection silent for FIRST_BYTES_MS, or arriving while FIRST_BYTES_MAX
// others wait for their first bytes, is handed over at once, so the app's own connection limits
// and timeouts (platform/http-limits.ts) still hold every connection. Connections an old app
// still serves finish there (its close lets in-flight requests end and closes their connections).
// Left out: TLS and HTTP/2 (the sequencer speaks HTTP/1.1; a proxy in front terminates TLS).
// Invariant: every accepted socket goes to exactly one app, or is destroyed when the listener closes.

import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface HeldListener {
  /** Listen on host:port (0 picks a free port); rejects as server.listen does (EADDRINUSE…). */
  listen(host: string, port: number): Promise<AddressInfo>;
  /** Hand new connections to this HTTP server from now on (undefined: hold them until one is set). */
  serve(server: Server | undefined): void;
  /** Stop listening and destroy connections still waiting. */
  close(): Promise<void>;
}

/** How many connections may wait for the next app before new ones are dropped (a reload takes well under a second). */
const MAX_WAITING = 1024;
/** How long a new connection may stay silent before it goes to the app in service anyway. */
export const FIRST_BYTES_MS = 1000;
/** How many new connections may wait for their first bytes here; past it they go to the app at once. */
const FIRST_BYTES_MAX = 1024;

export function createHeldListener(): HeldListener {
  let target: Server | undefined;
  const waiting: Socket[] = [];
  /** Accepted, no byte yet: each with the function that stops waiting for its first bytes. */
  const silent = new Map<Socket, () => void>();
  const give = (socket: Socket, to: Server) => {
    to.emit('connection', socket);
    socket.resume();
  };
  const route = (socket: Socket) => {
    if (socket.destroyed) return;
    if (target) return give(socket, target);
    if (waiting.length >= MAX_WAITING) return void socket.destroy();
    socket.once('close', () => {
      const i = waiting.indexOf(socket);
      if (i >= 0) waiting.splice(i, 1);
    });
    waiting.push(socket);
  };
  const listener = createServer({ pauseOnConnect: true }, (socket) => {
    if (silent.size >= FIRST_BYTES_MAX) return route(socket);
    const stop = () => {
      silent.delete(socket);
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      socket.pause();
      stop();
      socket.unshift(chunk);
      route(socket);
    };
    // Closed or half-closed before a byte: the app (or the listener's close) deals with what is left.
    const onEnd = () => (stop(), route(socket));
    const onClose = () => stop();
    const timer = setTimeout(() => (stop(), socket.pause(), route(socket)), FIRST_BYTES_MS);
    silent.set(socket, stop);
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('close', onClose);
    socket.resume();
  });
  return {
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        listener.once('error', reject);
        listener.listen({ host, port }, () => {
          listener.off('error', reject);
          resolve(listener.address() as AddressInfo);
        });
      }),
    serve(server) {
      target = server;
      if (!server) return;
      for (const s of waiting.splice(0)) if (!s.destroyed) give(s, server);
    },
    close: () =>
      new Promise((resolve) => {
        target = undefined;
        for (const s of waiting.splice(0)) s.destroy();
        for (const [s, stop] of [...silent]) {
          stop();
          s.destroy();
        }
        if (!listener.listening) return resolve();
        listener.close(() => resolve());
      }),
  };
}
