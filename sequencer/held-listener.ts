// sequencer/held-listener.ts: the sequencer's one listening socket, held across re-opens
// (docs/design.md §12: a policy change re-opens the sequencer with the new files). The TCP
// listener belongs to the process, not to one fastify app: each accepted connection is handed to
// the HTTP server of the app in service now (`server.emit('connection')`, the pattern Node's
// cluster hand-off uses); while none is (between closing one app and opening the next) new
// connections wait, paused, and go to the next app once it is ready. So a reload refuses no
// connection: a client only waits for the re-open. Connections an old app still serves finish
// there (its close lets in-flight requests end and closes the connections after them).
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

export function createHeldListener(): HeldListener {
  let target: Server | undefined;
  const waiting: Socket[] = [];
  const give = (socket: Socket, to: Server) => {
    to.emit('connection', socket);
    socket.resume();
  };
  const listener = createServer({ pauseOnConnect: true }, (socket) => {
    if (target) return give(socket, target);
    if (waiting.length >= MAX_WAITING) return void socket.destroy();
    socket.once('close', () => {
      const i = waiting.indexOf(socket);
      if (i >= 0) waiting.splice(i, 1);
    });
    waiting.push(socket);
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
        if (!listener.listening) return resolve();
        listener.close(() => resolve());
      }),
  };
}
