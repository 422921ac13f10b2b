// bench/raw-http-client.ts against a real node:http server on 127.0.0.1: status codes and
// Content-Length bodies read across keep-alive requests, a connection the server closes after
// each answer reopened, a request whose connection died unanswered sent once more, a chunked
// answer refused with a clear error; extra headers sent as given, answer bodies returned whole.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRawHttpClient, postBytes } from './raw-http-client.ts';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<number> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

describe('raw HTTP/1.1 bench client', () => {
  it('reads each status and skips its body, over a few keep-alive connections', async () => {
    const bodies: string[] = [];
    const sockets = new Set<unknown>();
    const port = await serve((req, res) => {
      sockets.add(req.socket);
      let b = '';
      req.on('data', (d) => (b += d));
      req.on('end', () => {
        bodies.push(b);
        const status = b.startsWith('conflict') ? 409 : 200;
        const answer = status === 409 ? '5\n' : 'x'.repeat(3000);
        res.writeHead(status, { 'content-type': 'text/plain', 'content-length': answer.length }).end(answer);
      });
    });
    const c = createRawHttpClient('127.0.0.1', port, 2);
    const texts = Array.from({ length: 20 }, (_, i) => (i % 5 === 4 ? `conflict ${i}` : `note ${i} é`));
    const statuses = await Promise.all(texts.map((t) => c.send(postBytes('127.0.0.1', port, '/add-checkpoint', 'text/plain', t))));
    c.close();
    expect(statuses).toEqual(texts.map((t) => (t.startsWith('conflict') ? 409 : 200)));
    expect([...bodies].sort()).toEqual([...texts].sort());
    expect(sockets.size).toBe(2);
  });

  it('sends extra headers and returns each answer body whole (sendForBody)', async () => {
    const port = await serve((req, res) => {
      let b = '';
      req.on('data', (d) => (b += d));
      req.on('end', () => {
        const answer = JSON.stringify({ key: req.headers['idempotency-key'], body: b, pad: 'y'.repeat(20_000) });
        res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer);
      });
    });
    const c = createRawHttpClient('127.0.0.1', port, 2);
    const answers = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        c.sendForBody(postBytes('127.0.0.1', port, '/events', 'application/json', `e${i}`, { 'idempotency-key': `k-${i}` })),
      ),
    );
    c.close();
    answers.forEach((a, i) => {
      expect(a.status).toBe(201);
      const j = JSON.parse(a.body.toString('utf8')) as { key: string; body: string; pad: string };
      expect([j.key, j.body, j.pad.length]).toEqual([`k-${i}`, `e${i}`, 20_000]);
    });
    expect(() => postBytes('127.0.0.1', port, '/', 'text/plain', 'a', { 'x-a': 'b\r\nx-evil: 1' })).toThrow(/break the request head/);
  });

  it('reopens a connection the server closed after its answer', async () => {
    const port = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { connection: 'close', 'content-length': '2' }).end('ok'));
    });
    const c = createRawHttpClient('127.0.0.1', port, 1);
    const req = postBytes('127.0.0.1', port, '/', 'text/plain', 'a');
    for (let i = 0; i < 3; i++) expect(await c.send(req)).toBe(200);
    c.close();
  });

  it('sends a request once more when its connection closed before any answer', async () => {
    let seen = 0;
    const port = await serve((req, res) => {
      seen++;
      if (seen === 1) return req.socket.destroy();
      req.resume();
      req.on('end', () => res.writeHead(201, { 'content-length': '0' }).end());
    });
    const c = createRawHttpClient('127.0.0.1', port, 1);
    expect(await c.send(postBytes('127.0.0.1', port, '/', 'text/plain', 'a'))).toBe(201);
    expect(seen).toBe(2);
    c.close();
  });

  it('refuses an answer without Content-Length (chunked)', async () => {
    const port = await serve((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200);
        res.write('part');
        res.end();
      });
    });
    const c = createRawHttpClient('127.0.0.1', port, 1);
    await expect(c.send(postBytes('127.0.0.1', port, '/', 'text/plain', 'a'))).rejects.toThrow(/unreadable answer head/);
    c.close();
  });
});
