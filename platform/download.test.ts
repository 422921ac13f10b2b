// platform/download.ts against real servers on 127.0.0.1: a body many times the read buffer lands
// byte for byte, with Content-Length and chunked (rename after close; no .partial left); a
// connection cut before the announced length, a malformed answer from a raw socket, or a server
// that stalls leave no file at all (DownloadFailed); a non-200 answer is DownloadRefused with the
// body's start; the progress line on a non-terminal comes every PROGRESS_EVERY bytes and once at
// the end.
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { DownloadFailed, downloadToFile, DownloadRefused, progressLine, PROGRESS_EVERY, READ_BYTES } from './download.ts';
import { tempDirs } from '../testkit/tmp.ts';

const tmp = tempDirs('cookwala-download-');
const servers: Server[] = [];
const rawServers: NetServer[] = [];
const rawSockets: Socket[] = [];
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
  for (const s of rawSockets) s.destroy();
  await Promise.all(rawServers.map((s) => new Promise((r) => s.close(r))));
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  await tmp.cleanup();
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  return `http://127.0.0.1:${a && typeof a === 'object' ? a.port : 0}`;
}

/** A TCP server that answers every connection with `answer` (bytes as given), then does `after`. */
async function serveRaw(answer: string | Buffer, after: 'end' | 'stall' = 'end'): Promise<string> {
  const s = createNetServer((sock) => {
    rawSockets.push(sock);
    sock.once('data', () => (after === 'end' ? sock.end(answer) : sock.write(answer)));
    sock.on('error', () => undefined);
  });
  rawServers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const a = s.address();
  return `http://127.0.0.1:${a && typeof a === 'object' ? a.port : 0}`;
}

async function expectNoFile(p: Promise<unknown>, kind: unknown, why: RegExp, out: string): Promise<void> {
  const e = await p.catch((x: unknown) => x);
  expect(e).toBeInstanceOf(kind);
  expect((e as Error).message).toMatch(why);
  expect(existsSync(out)).toBe(false);
  expect(existsSync(`${out}.partial`)).toBe(false);
}

describe('downloadToFile', () => {
  const body = randomBytes(3 * READ_BYTES + 17);

  it('writes the body byte for byte and leaves no .partial', async () => {
    const url = await serve((_q, res) => {
      res.writeHead(200, { 'content-length': body.length });
      res.end(body);
    });
    const out = join(await tmp.make(), 'b.ndjson');
    const seen: boolean[] = [];
    expect(await downloadToFile(`${url}/x`, out, { progress: (_b, _t, done) => seen.push(done) })).toBe(body.length);
    expect((await readFile(out)).equals(body)).toBe(true);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(seen.at(-1)).toBe(true);
  });

  it('a chunked body, written in many small pieces, lands byte for byte', async () => {
    const url = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' }); // no length: chunked
      for (let i = 0; i < body.length; i += 70_001) res.write(body.subarray(i, i + 70_001));
      res.end();
    });
    const out = join(await tmp.make(), 'b.ndjson');
    expect(await downloadToFile(`${url}/x?from=2`, out)).toBe(body.length);
    expect((await readFile(out)).equals(body)).toBe(true);
  });

  it('a malformed answer, a chunked body cut short or a stalled server: DownloadFailed, no file', async () => {
    const dir = await tmp.make();
    const out = join(dir, 'b.ndjson');
    const bad = await serveRaw('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\nzz\r\n');
    await expectNoFile(downloadToFile(`${bad}/x`, out), DownloadFailed, /malformed answer: a malformed chunk-size line/, out);
    const cut = await serveRaw('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n');
    await expectNoFile(downloadToFile(`${cut}/x`, out), DownloadFailed, /ended inside the chunked body/, out);
    const stall = await serveRaw('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc', 'stall');
    await expectNoFile(downloadToFile(`${stall}/x`, out, { idleMs: 300 }), DownloadFailed, /sent nothing for 300 ms/, out);
    const big = await serveRaw(`HTTP/1.1 200 OK\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`, 'stall');
    await expectNoFile(downloadToFile(`${big}/x`, out), DownloadFailed, /head over 16384 bytes/, out);
  });

  it('a connection cut before the announced length leaves no file', async () => {
    const url = await serve((_q, res) => {
      res.writeHead(200, { 'content-length': body.length });
      res.write(body.subarray(0, 1024 * 1024), () => res.socket?.destroy());
    });
    const out = join(await tmp.make(), 'b.ndjson');
    await expect(downloadToFile(`${url}/x`, out)).rejects.toThrow();
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);
  });

  it('a refusal is DownloadRefused with the start of its body', async () => {
    const url = await serve((_q, res) => {
      res.writeHead(503, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ code: 'store_unavailable' }));
    });
    const out = join(await tmp.make(), 'b.ndjson');
    const e = await downloadToFile(`${url}/x`, out).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DownloadRefused);
    expect(e).toMatchObject({ status: 503, body: expect.stringContaining('store_unavailable') });
    expect(existsSync(out)).toBe(false);
    // an endless refusal is read only as far as its start
    const endless = await serveRaw(`HTTP/1.1 404 Not Found\r\n\r\n${'x'.repeat(5000)}`, 'stall');
    const e2 = await downloadToFile(`${endless}/x`, out).catch((x: unknown) => x);
    expect(e2).toMatchObject({ status: 404, body: 'x'.repeat(300) });
  });

  it('progress on a non-terminal: a line every PROGRESS_EVERY bytes and one at the end', () => {
    const lines: string[] = [];
    const stream = { isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream;
    const p = progressLine(stream, 'export', () => 0);
    for (let b = 0; b <= 3 * PROGRESS_EVERY; b += PROGRESS_EVERY / 4) p(b, undefined, false);
    p(3 * PROGRESS_EVERY + 5, undefined, true);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(/^export: 192\.0 MB/);
  });
});
