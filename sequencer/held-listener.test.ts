// The sequencer's held listener (held-listener.ts): while no app serves (a policy reload between
// closing one app and opening the next), a new connection is neither refused nor dropped: it waits
// and the next app answers it. Before this, a reload closed the listening socket and clients
// got ECONNREFUSED for the length of the re-open.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, request, type Server } from 'node:http';
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

  it('refuses to listen on a busy port with the listen error', async () => {
    held = createHeldListener();
    const { port } = await held.listen('127.0.0.1', 0);
    const other = createHeldListener();
    await expect(other.listen('127.0.0.1', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await other.close();
  });
});
