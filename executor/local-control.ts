// executor/local-control.ts: the device's own stop control when it runs as a process (Cookwala Core
// 0.2 §6.2: "a stop control on the device stops motion and cuts heat, with or without a network").
// Two ways in, neither through HTTP: the signal SIGUSR2 (stop everything: the panel's stop button,
// wired by the device maker to `kill -USR2 <pid>`), and a Unix socket DATA/control.sock (mode 0600,
// so only the device's own user reaches it) that reads one short line, `stop` or `stop <id>`, and
// answers one JSON line `{"stopped":[{"id","status"}…]}`. Both call the executor's service directly,
// so a saturated, stalled or crashed HTTP server (full connection table, slow bodies, a stuck
// handler) never delays them. Left out: pause and resume (those need a person looking, on the API).
// Invariant: a line longer than 256 bytes or anything but the two commands is answered with an
// error line and changes nothing; the socket never reads more than that.

import { chmod, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';

export interface LocalControlTarget {
  stopAll(): Promise<Array<{ id: string; status: string }>>;
  stopOne(id: string): Promise<{ id: string; status: string } | undefined>;
}

export interface LocalControl {
  /** undefined when the socket could not be made (e.g. a path over the ~107-byte limit); SIGUSR2 still works. */
  readonly socketPath: string | undefined;
  readonly socketError?: string;
  close(): Promise<void>;
}

const MAX_LINE = 256;

export async function startLocalControl(
  socketPath: string,
  target: LocalControlTarget,
  onStop?: (what: string, res: Array<{ id: string; status: string }>) => void,
): Promise<LocalControl> {
  const signal = () => {
    target.stopAll().then(
      (r) => onStop?.('SIGUSR2', r),
      () => undefined,
    );
  };
  process.on('SIGUSR2', signal);

  await rm(socketPath, { force: true }); // a socket file left by a killed run
  const server: Server = createServer((sock) => {
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('error', () => undefined);
    sock.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl < 0 && buf.length <= MAX_LINE) return;
      sock.pause();
      const line = (nl < 0 ? '' : buf.slice(0, nl)).trim();
      const m = nl < 0 || nl > MAX_LINE ? null : /^stop(?: ([A-Za-z0-9._:-]{1,200}))?$/.exec(line);
      if (!m) return void sock.end(JSON.stringify({ error: 'commands: "stop" or "stop <execution id>", one line' }) + '\n');
      const run = m[1] === undefined ? target.stopAll() : target.stopOne(m[1]).then((x) => (x ? [x] : []));
      run.then(
        (res) => {
          onStop?.(m[1] === undefined ? 'control.sock stop' : `control.sock stop ${m[1]}`, res);
          sock.end(JSON.stringify({ stopped: res }) + '\n');
        },
        (e: Error) => sock.end(JSON.stringify({ error: e.message }) + '\n'),
      );
    });
  });
  let socketError: string | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(socketPath, 0o600);
  } catch (e) {
    socketError = (e as Error).message;
  }
  return {
    socketPath: socketError ? undefined : socketPath,
    socketError,
    async close() {
      process.off('SIGUSR2', signal);
      if (socketError) return;
      await new Promise<void>((r) => server.close(() => r()));
      await rm(socketPath, { force: true });
    },
  };
}
