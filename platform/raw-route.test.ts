// platform/raw-route.ts over real HTTP on 127.0.0.1: a fastify app with one raw POST route. The
// route gets exactly the bytes sent (whole, chunked or in pieces), everything else still reaches
// fastify (its routes, its 404, the same path with another method), a body above the bound is
// refused with the connection closed (declared or grown past it), a body cut short is never
// decided, a rejected handler and a closing server answer 503, and a server whose first request
// listener is not fastify's is refused at startup. A route that decides by `accept` gets what it
// accepted with the body, answers bytes as well as text, can ask for Connection: close, and leaves
// what it declines to fastify.

import { afterEach, describe, expect, it } from 'vitest';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { routeRawPost, type RawAnswer } from './raw-route.ts';

const MAX = 1024;
const apps: FastifyInstance[] = [];

afterEach(async () => {
  for (const a of apps.splice(0)) await a.close();
});

interface Seen {
  bodies: Buffer[];
}

async function start(
  handle?: (b: Uint8Array) => Promise<RawAnswer>,
  on: { preClose?: () => void; closingAnswered?: () => void } = {},
): Promise<{ port: number; seen: Seen; app: FastifyInstance }> {
  const app = Fastify({ logger: false });
  apps.push(app);
  const seen: Seen = { bodies: [] };
  app.get('/other', async () => ({ fastify: true }));
  routeRawPost(app, {
    path: '/raw',
    maxBodyBytes: MAX,
    handle:
      handle ??
      (async (b) => {
        seen.bodies.push(Buffer.from(b));
        return { status: 200, contentType: 'text/plain; charset=utf-8', body: `got ${b.length}\n` };
      }),
    tooLarge: () => ({ status: 413, contentType: 'text/plain', body: 'too large\n' }),
    failed: (e) => ({ status: 503, contentType: 'text/plain', body: `failed: ${(e as Error).message}\n` }),
    closing: () => {
      on.closingAnswered?.();
      return { status: 503, contentType: 'text/plain', body: 'closing\n' };
    },
  });
  // Registered after the route's own preClose hook, so it runs once the route knows.
  if (on.preClose) app.addHook('preClose', async () => on.preClose?.());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as { port: number }).port, seen, app };
}

interface Got {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
}

function send(port: number, method: string, path: string, body?: Buffer | Buffer[], headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    if (Array.isArray(body)) {
      for (const b of body) req.write(b);
      req.end();
    } else req.end(body);
  });
}

describe('routeRawPost', () => {
  it('hands the route exactly the bytes sent, in one piece or many, and answers its text', async () => {
    const { port, seen } = await start();
    const one = Buffer.from('old 0\n\nhello\u2014\n', 'utf8');
    const a = await send(port, 'POST', '/raw', one, { 'content-type': 'text/plain' });
    expect(a).toMatchObject({ status: 200, body: `got ${one.length}\n` });
    expect(a.headers['cache-control']).toBe('no-store');
    expect(a.headers['content-length']).toBe(String(`got ${one.length}\n`.length));
    // Chunked, in three writes, no content type; then with a query string.
    const parts = [Buffer.from('abc'), Buffer.alloc(500, 0x7a), Buffer.from([0, 0xff, 0x0a])];
    expect((await send(port, 'POST', '/raw', parts)).status).toBe(200);
    expect((await send(port, 'POST', '/raw?x=1', Buffer.from('q'))).status).toBe(200);
    // An empty body is a body too.
    expect((await send(port, 'POST', '/raw', Buffer.alloc(0))).body).toBe('got 0\n');
    expect(seen.bodies.map((b) => b.toString('hex'))).toEqual([
      one.toString('hex'),
      Buffer.concat(parts).toString('hex'),
      Buffer.from('q').toString('hex'),
      '',
    ]);
  });

  it('leaves every other request to fastify', async () => {
    const { port, seen } = await start();
    const other = await send(port, 'GET', '/other');
    expect(other.status).toBe(200);
    expect(JSON.parse(other.body)).toEqual({ fastify: true });
    expect((await send(port, 'GET', '/raw')).status).toBe(404);
    expect((await send(port, 'POST', '/raw/', Buffer.from('x'))).status).toBe(404);
    expect((await send(port, 'POST', '/rawer', Buffer.from('x'))).status).toBe(404);
    expect(seen.bodies).toHaveLength(0);
  });

  it('refuses a body above the bound, declared or grown past it, and closes the connection', async () => {
    const { port, seen } = await start();
    const declared = await send(port, 'POST', '/raw', Buffer.alloc(MAX + 1, 0x41));
    expect(declared).toMatchObject({ status: 413, body: 'too large\n' });
    expect(declared.headers.connection).toBe('close');
    const grown = await send(port, 'POST', '/raw', [Buffer.alloc(MAX, 0x41), Buffer.alloc(10, 0x42)]);
    expect(grown).toMatchObject({ status: 413, body: 'too large\n' });
    expect(grown.headers.connection).toBe('close');
    expect((await send(port, 'POST', '/raw', Buffer.alloc(MAX, 0x41))).status).toBe(200); // at the bound
    expect(seen.bodies.map((b) => b.length)).toEqual([MAX]);
  });

  it('never decides a body cut short, and keeps serving', async () => {
    const { port, seen } = await start();
    await new Promise<void>((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => {
        s.write('POST /raw HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\nonly part of it');
        s.destroy();
      });
      s.on('close', () => resolve());
      s.on('error', reject);
    });
    expect((await send(port, 'POST', '/raw', Buffer.from('whole'))).body).toBe('got 5\n');
    expect(seen.bodies.map((b) => b.toString())).toEqual(['whole']);
  });

  it('answers a rejected handler with failed()', async () => {
    const { port } = await start(async () => {
      throw new Error('store down');
    });
    expect(await send(port, 'POST', '/raw', Buffer.from('x'))).toMatchObject({ status: 503, body: 'failed: store down\n' });
    expect(await send(port, 'POST', '/raw', Buffer.from('y'))).toMatchObject({ status: 503, body: 'failed: store down\n' });
  });

  it('answers closing() to a request that arrives once the app began to close', async () => {
    const signal = () => {
      let done!: () => void;
      const p = new Promise<void>((r) => (done = r));
      return { p, done };
    };
    const entered = signal();
    const gate = signal();
    const preClosed = signal();
    const refused = signal();
    const { port, app } = await start(
      async () => {
        entered.done();
        await gate.p;
        return { status: 200, contentType: 'text/plain', body: 'first\n' };
      },
      { preClose: preClosed.done, closingAnswered: refused.done },
    );
    // One connection: request a is held in the handler (so the connection is not idle when the
    // server closes), and b is sent once closing began; it is answered after a, in order.
    const s = connect(port, '127.0.0.1');
    let text = '';
    s.setEncoding('utf8');
    const both = new Promise<string>((resolve, reject) => {
      s.on('data', (d: string) => {
        text += d;
        if (text.endsWith('closing\n')) resolve(text);
      });
      s.on('error', reject);
      s.on('close', () => resolve(text));
    });
    const req = (b: string) => `POST /raw HTTP/1.1\r\nhost: x\r\ncontent-length: ${b.length}\r\n\r\n${b}`;
    s.write(req('a'));
    await entered.p;
    apps.splice(apps.indexOf(app), 1);
    const closed = app.close();
    await preClosed.p;
    s.write(req('b'));
    await refused.p;
    gate.done();
    const got = await both;
    s.destroy();
    await closed;
    const answers = got.split('HTTP/1.1 ').slice(1);
    expect(answers).toHaveLength(2);
    expect(answers[0].startsWith('200')).toBe(true);
    expect(answers[0].endsWith('first\n')).toBe(true);
    expect(answers[1].startsWith('503')).toBe(true);
    expect(answers[1].toLowerCase()).toContain('connection: close');
    expect(answers[1].endsWith('closing\n')).toBe(true);
  });

  it('with accept: takes what it accepts (path without the query, headers), hands on its value, leaves the rest to fastify', async () => {
    const app = Fastify({ logger: false });
    apps.push(app);
    app.post('/items/:n', async () => ({ fastify: true }));
    const taken: Array<{ n: string; body: string; tag: unknown }> = [];
    routeRawPost<string>(app, {
      accept: (path, req) => {
        const m = /^\/items\/([0-9]+)$/.exec(path);
        return m && req.headers['x-raw'] === 'yes' ? m[1] : undefined;
      },
      maxBodyBytes: MAX,
      handle: async (body, n, req) => {
        taken.push({ n, body: Buffer.from(body).toString(), tag: req.headers['x-tag'] });
        return { status: 201, contentType: 'application/json', body: Buffer.from(`{"n":${n}}`), close: n === '9' };
      },
      tooLarge: () => ({ status: 413, contentType: 'text/plain', body: 'too large\n' }),
      failed: () => ({ status: 503, contentType: 'text/plain', body: 'failed\n' }),
      closing: () => ({ status: 503, contentType: 'text/plain', body: 'closing\n' }),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const raw = { 'x-raw': 'yes', 'x-tag': 't', connection: 'keep-alive' };
    // Bytes as the answer body, with their own length; the query string is not part of the path.
    const a = await send(port, 'POST', '/items/7?q=1', Buffer.from('seven'), raw);
    expect(a).toMatchObject({ status: 201, body: '{"n":7}' });
    expect(a.headers['content-length']).toBe('7');
    expect(a.headers.connection).not.toBe('close');
    // close: true asks the client to close its connection.
    expect((await send(port, 'POST', '/items/9', Buffer.from('nine'), raw)).headers.connection).toBe('close');
    // Declined by the path or by the headers: fastify's route answers.
    for (const [path, headers] of [
      ['/items/7', {}],
      ['/items/x', raw],
    ] as const) {
      const r = await send(port, 'POST', path, Buffer.from('{}'), { 'content-type': 'application/json', ...headers });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toEqual({ fastify: true });
      expect(r.headers['cache-control']).toBeUndefined();
    }
    expect(taken).toEqual([
      { n: '7', body: 'seven', tag: 't' },
      { n: '9', body: 'nine', tag: 't' },
    ]);
  });

  it('a route names its path or its accept, exactly one of them', () => {
    const app = Fastify({ logger: false });
    apps.push(app);
    const rest = {
      maxBodyBytes: MAX,
      handle: async () => ({ status: 200, contentType: 'text/plain', body: '' }),
      tooLarge: () => ({ status: 413, contentType: 'text/plain', body: '' }),
      failed: () => ({ status: 503, contentType: 'text/plain', body: '' }),
      closing: () => ({ status: 503, contentType: 'text/plain', body: '' }),
    };
    expect(() => routeRawPost(app, rest)).toThrow(/one of them/);
    expect(() => routeRawPost(app, { ...rest, path: '/raw', accept: () => true as const })).toThrow(/one of them/);
  });

  it('refuses to start when the first request listener is not fastify’s', () => {
    const app = Fastify({ serverFactory: (handler) => createServer((req, res) => handler(req, res)) });
    apps.push(app);
    expect(() =>
      routeRawPost(app, {
        path: '/raw',
        maxBodyBytes: MAX,
        handle: async () => ({ status: 200, contentType: 'text/plain', body: '' }),
        tooLarge: () => ({ status: 413, contentType: 'text/plain', body: '' }),
        failed: () => ({ status: 503, contentType: 'text/plain', body: '' }),
        closing: () => ({ status: 503, contentType: 'text/plain', body: '' }),
      }),
    ).toThrow(/first request listener/);
  });
});
