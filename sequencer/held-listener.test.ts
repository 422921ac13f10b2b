// The sequencer's held listener (held-listener.ts): while no app serves (a policy reload between
// closing one app and opening the next), a new connection is neither refused nor dropped: it waits
// and the next app answers it. Before this, a reload closed the listening socket and clients
// got ECONNREFUSED for the length of the re-open. A connection goes to the app in service when its
// first bytes arrive: one accepted just before a reload and written to just after is answered by
// the next app, not refused by the closing one.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, request, type Server } from 'node:http';
import { connect } from 'node:net';
import { createHeldListener, type HeldListener } from './held-listener.ts';

let held: HeldListener | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await held?.close();
  for (const s of servers.splice(0)) s.close();
});

const app = (name: string): Server => {
  const s = createServer((_req, res) => res.end(name));
  servers.push(s);
  return s;
};

function get(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => resolve(body));
    });
    r.on('error', reject);
    r.end();
  });
}

describe('held listener', () => {
  it('hands connections to the app in service, holds them while none is, and gives them to the next', async () => {
    held = createHeldListener();
    const { port } = await held.listen('127.0.0.1', 0);
    held.serve(app('first'));
    expect(await get(port)).toBe('first');
    held.serve(undefined); // reloading
    const waiting = get(port); // not refused: it waits
    let answered = false;
    void waiting.then(() => (answered = true));
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    held.serve(app('second'));
    expect(await waiting).toBe('second');
    expect(await get(port)).toBe('second');
  });

  it('hands a connection over when its first bytes arrive, not when it is accepted', async () => {
    held = createHeldListener();
    const { port } = await held.listen('127.0.0.1', 0);
    held.serve(app('first'));
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((r) => socket.once('connect', () => r()));
    let answer = '';
    socket.on('data', (b: Buffer) => (answer += b.toString()));
    const ended = new Promise<void>((r) => socket.once('end', () => r()));
    // Accepted while 'first' served; the request comes after the reload began.
    await new Promise((r) => setImmediate(r));
    held.serve(undefined);
    socket.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    held.serve(app('second'));
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer.endsWith('second')).toBe(true);
  });

  it('a silent connection still reaches the app in service, whose own limits then hold it', async () => {
    held = createHeldListener();
    const { port } = await held.listen('127.0.0.1', 0);
    const s = app('first');
    held.serve(s);
    const reached = new Promise<void>((r) => s.once('connection', () => r()));
    const socket = connect({ host: '127.0.0.1', port });
    await reached; // after FIRST_BYTES_MS of silence
    socket.destroy();
  });

  it('refuses to listen on a busy port with the listen error', async () => {
    held = createHeldListener();
    const { port } = await held.listen('127.0.0.1', 0);
    const other = createHeldListener();
    await expect(other.listen('127.0.0.1', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await other.close();
  });
});
