// monitor/http-get.test.ts: the monitor's GET against a real node:http server on 127.0.0.1: a body
// with a Content-Length and a chunked one come back whole, a body past the cap (declared or read)
// and a redirect are refused as FetchFailed, a body read into the caller's buffer grows it, a deadline passed is an error, and a kept-alive
// connection that the server closed is retried once.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpGet, FetchFailed } from './http-get.ts';

let server: Server;
let base = '';
const BIG = Buffer.alloc(300_000, 0x61);
let closeNext = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (closeNext) {
      closeNext = false;
      req.socket.destroy();
      return;
    }
    if (req.url === '/length') {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 5 }).end('hello');
    } else if (req.url === '/chunked') {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for (let i = 0; i < BIG.length; i += 65_536) res.write(BIG.subarray(i, i + 65_536));
      res.end();
    } else if (req.url === '/redirect') {
      res.writeHead(302, { location: '/length' }).end();
    } else if (req.url === '/slow') {
      res.writeHead(200);
      res.write('partial');
    } else if (req.url === '/accept') {
      res.writeHead(404).end(String(req.headers.accept));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('httpGet over node:http', () => {
  const get = createHttpGet();

  it('reads a body with a Content-Length and a chunked one whole', async () => {
    const a = await get(`${base}/length`);
    expect([a.status, Buffer.from(a.body).toString(), a.contentType]).toEqual([200, 'hello', 'text/plain']);
    const b = await get(`${base}/chunked`);
    expect(b.status).toBe(200);
    expect(Buffer.from(b.body).equals(BIG)).toBe(true);
  });

  it('passes the status of an error answer and the accept header', async () => {
    const r = await get(`${base}/accept`, { accept: 'application/json' });
    expect([r.status, Buffer.from(r.body).toString()]).toEqual([404, 'application/json']);
  });

  it('refuses a body past the cap, declared or read', async () => {
    await expect(get(`${base}/length`, { maxBytes: 4 })).rejects.toThrow(FetchFailed);
    await expect(get(`${base}/chunked`, { maxBytes: 100_000 })).rejects.toThrow(/longer than 100000 bytes/);
  });

  it("reads into the caller's buffer, growing it when the body outgrows it", async () => {
    const into = { buf: Buffer.alloc(1000) };
    const small = await get(`${base}/length`, { into });
    expect(Buffer.from(small.body).toString()).toBe('hello');
    expect(small.body.buffer).toBe(into.buf.buffer);
    const big = await get(`${base}/chunked`, { into });
    expect(into.buf.length).toBeGreaterThanOrEqual(BIG.length);
    expect(big.body.buffer).toBe(into.buf.buffer);
    expect(Buffer.from(big.body).equals(BIG)).toBe(true);
    await expect(get(`${base}/chunked`, { maxBytes: 100_000, into: { buf: Buffer.alloc(10) } })).rejects.toThrow(/longer than/);
  });

  it('reads a page on a socket of its own with the same refusals', async () => {
    const into = () => ({ buf: Buffer.alloc(16) });
    await expect(get(`${base}/redirect`, { into: into() })).rejects.toThrow(/redirected \(HTTP 302\)/);
    await expect(get(`${base}/slow`, { timeoutMs: 200, into: into() })).rejects.toThrow(/timed out/);
    await expect(get(`${base}/length`, { maxBytes: 4, into: into() })).rejects.toThrow(FetchFailed);
    const r = await get(`${base}/accept`, { accept: 'application/x-ndjson', into: into() });
    expect([r.status, Buffer.from(r.body).toString()]).toEqual([404, 'application/x-ndjson']);
    closeNext = true;
    expect(Buffer.from((await get(`${base}/length`, { into: into() })).body).toString()).toBe('hello');
  });

  it('refuses a redirect', async () => {
    await expect(get(`${base}/redirect`)).rejects.toThrow(/redirected \(HTTP 302\)/);
  });

  it('fails a read past its deadline', async () => {
    await expect(get(`${base}/slow`, { timeoutMs: 200 })).rejects.toThrow(FetchFailed);
  });

  it('sends a request once more when the connection closed before any answer', async () => {
    closeNext = true;
    const r = await get(`${base}/length`);
    expect(Buffer.from(r.body).toString()).toBe('hello');
    expect(closeNext).toBe(false);
  });

  it('refuses what is not an http URL', async () => {
    await expect(get('file:///etc/passwd')).rejects.toThrow(/not an http/);
  });
});
