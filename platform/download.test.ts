// platform/download.ts against a real HTTP server on 127.0.0.1: a body many times the socket's
// chunks lands byte for byte (rename after close; no .partial left); a connection cut before the
// announced length leaves no file at all; a non-200 answer is DownloadRefused with the body's start;
// the progress line on a non-terminal comes every PROGRESS_EVERY bytes and once at the end.
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { downloadToFile, DownloadRefused, progressLine, PROGRESS_EVERY } from './download.ts';
import { tempDirs } from '../testkit/tmp.ts';

const tmp = tempDirs('cookwala-download-');
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) s.closeAllConnections();
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

describe('downloadToFile', () => {
  const body = randomBytes(3 * 1024 * 1024 + 17);

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
