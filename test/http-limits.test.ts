// Connection bounds at the sequencer (platform/http-limits.ts), over real loopback
// sockets with short limits: headers sent too slowly and a body dripped a byte at a time are each
// answered 408 request_timeout (problem+json) and closed; connections beyond the per-client cap
// are answered 503 too_many_connections and closed at once, while a well-behaved request on a
// free slot is still served. Waits are on socket events (the server's timers close them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { startSequencer, logPath, type TestSequencer } from '../testkit/sequencer.ts';

let t: TestSequencer;
let port: number;
beforeAll(async () => {
  t = await startSequencer({
    listen: true,
    deps: {
      httpLimits: { headersTimeoutMs: 600, requestTimeoutMs: 1200, maxConnectionsPerClient: 12, maxConnections: 100, shedAfterMs: 0 },
    },
  });
  port = Number(new URL(t.url!).port);
});
afterAll(async () => {
  await t.close();
});

async function open(from?: string, to = port): Promise<Socket> {
  const s = connect({ port: to, host: '127.0.0.1', ...(from ? { localAddress: from } : {}) });
  s.on('error', () => undefined);
  await once(s, 'connect');
  return s;
}

/** Everything the server writes until it closes the socket. */
function answer(s: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  s.on('data', (d: Buffer) => chunks.push(d));
  return once(s, 'close').then(() => Buffer.concat(chunks).toString('latin1'));
}

const codeOf = (text: string) => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).code as string;

describe('HTTP connection bounds', () => {
  it('headers that never finish: 408 request_timeout, connection closed', async () => {
    const s = await open();
    const got = answer(s);
    s.write('GET /v1/logs HTTP/1.1\r\nHost: x\r\nX-Slow: a');
    const text = await got;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('application/problem+json');
    expect(codeOf(text)).toBe('request_timeout');
  });
  it('a body dripped one byte at a time: 408 request_timeout once the request time is up', async () => {
    const s = await open();
    const got = answer(s);
    s.write(
      `POST ${logPath(t.log, '/events')} HTTP/1.1\r\nHost: x\r\nContent-Type: application/cloudevents+json\r\nIdempotency-Key: drip\r\nContent-Length: 100000\r\n\r\n`,
    );
    const drip = setInterval(() => s.writable && s.write('x'), 50);
    try {
      const text = await got;
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      expect(codeOf(text)).toBe('request_timeout');
    } finally {
      clearInterval(drip);
    }
  });
  it('connections beyond the per-client cap: 503 too_many_connections; a request on a held one is still served', async () => {
    const held: Socket[] = [];
    for (let i = 0; i < 12; i++) held.push(await open());
    const extra = await open();
    const text = await answer(extra);
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(codeOf(text)).toBe('too_many_connections');
    // one of the held connections makes a normal request and gets its answer
    const s = held[0];
    const chunks: Buffer[] = [];
    s.on('data', (d: Buffer) => chunks.push(d));
    s.write('GET /.well-known/cookwala.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await once(s, 'close');
    expect(Buffer.concat(chunks).toString()).toMatch(/^HTTP\/1\.1 200 /);
    const closed = held.slice(1).map((h) => once(h, 'close'));
    for (const h of held.slice(1)) h.destroy();
    await Promise.all(closed);
  });

  it('at the overall cap, the connection held longest without a request is shed (503) for a new one, and a prompt client is served', async () => {
    // Its own sequencer: a cap of 24 in all, 12 per address, shedding at once (shedAfterMs 0).
    const t2 = await startSequencer({
      listen: true,
      deps: {
        httpLimits: { headersTimeoutMs: 60_000, requestTimeoutMs: 60_000, maxConnectionsPerClient: 12, maxConnections: 24, shedAfterMs: 0 },
      },
    });
    try {
      const p2 = Number(new URL(t2.url!).port);
      // 24 slow connections from two addresses, each sending half a request line and then nothing.
      const slow: Socket[] = [];
      for (const from of ['127.0.0.3', '127.0.0.4'])
        for (let i = 0; i < 12; i++) {
          const s = await open(from, p2);
          s.write('GET /.well-known/cookwala.json HTTP/1.1\r\nHo');
          slow.push(s);
        }
      const firstAnswer = answer(slow[0]);
      // A well-behaved client from a third address: taken, the oldest slow one shed.
      const good = await open('127.0.0.5', p2);
      const goodAnswer = answer(good);
      good.write('GET /.well-known/cookwala.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(await goodAnswer).toMatch(/^HTTP\/1\.1 200 /);
      const shedText = await firstAnswer;
      expect(shedText).toMatch(/^HTTP\/1\.1 503 /);
      expect(codeOf(shedText)).toBe('too_many_connections');
      expect(shedText).toMatch(/sent no complete request/);
      const closed = slow.slice(1).map((h) => once(h, 'close'));
      for (const h of slow.slice(1)) h.destroy();
      await Promise.all(closed);
    } finally {
      await t2.close();
    }
  });
});
