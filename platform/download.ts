// platform/download.ts: a large HTTP body to a file, for the CLIs (`cookwala export --url`, docs/design.md
// §8): node:http(s) GET, the response piped to FILE.partial through stream.pipeline (backpressure:
// the socket is read only as fast as the disk takes it; each chunk goes to the file as it came, no
// copy, no string), then renamed into place once the file is closed, so a failed or cut download never
// leaves a file that looks whole (not fsync'd: like curl -o, the page cache holds the tail). Memory stays flat whatever the size. Progress goes to stderr: on a
// terminal one line rewritten at most every 250 ms, otherwise one line every PROGRESS_EVERY bytes,
// and a last line either way. Not undici's fetch: its web-stream body read is the part that slowed
// to a crawl on a large bundle. Leaves out: resuming, redirects (a redirect is an error), TLS
// options beyond the defaults. Invariant: FILE exists only once every byte of a 200 answer that
// ended cleanly is on disk.

import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A progress line every this many bytes when stderr is not a terminal. */
export const PROGRESS_EVERY = 64 * 1024 * 1024;
const TTY_EVERY_MS = 250;

export interface DownloadProgress {
  /** Called with bytes so far; `done` on the last call. */
  (bytes: number, total: number | undefined, done: boolean): void;
}

/** A non-200 answer, with the start of its body. */
export class DownloadRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`answered ${status}: ${body}`);
  }
}

function get(url: string, signal?: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(u, { method: 'GET', signal }, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function head(res: IncomingMessage, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of res as AsyncIterable<Buffer>) {
    if (n < max) chunks.push(c);
    n += c.length;
    if (n >= max) break;
  }
  res.destroy();
  return Buffer.concat(chunks).toString('utf8').slice(0, max);
}

/** GET `url` into `out` (via out.partial, then rename). Resolves with the byte count. */
export async function downloadToFile(
  url: string,
  out: string,
  o: { progress?: DownloadProgress; signal?: AbortSignal } = {},
): Promise<number> {
  const res = await get(url, o.signal);
  if (res.statusCode !== 200) throw new DownloadRefused(res.statusCode ?? 0, await head(res, 300));
  const length = Number(res.headers['content-length']);
  const total = Number.isSafeInteger(length) ? length : undefined;
  let bytes = 0;
  const count = new Transform({
    // The chunk is passed on as it is: counted, never copied.
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      o.progress?.(bytes, total, false);
      cb(null, chunk);
    },
  });
  const partial = `${out}.partial`;
  try {
    await pipeline(res, count, createWriteStream(partial, { highWaterMark: 1024 * 1024 }), { signal: o.signal });
    if (!res.complete) throw new Error(`the connection ended after ${bytes} bytes, before the answer was complete`);
    if (total !== undefined && bytes !== total) throw new Error(`got ${bytes} bytes of the ${total} announced`);
    await rename(partial, out);
    o.progress?.(bytes, total, true);
    return bytes;
  } catch (e) {
    res.destroy();
    await rm(partial, { force: true });
    throw e;
  }
}

/** A progress reporter on `stream` (stderr): rewritten in place on a terminal, else one line every PROGRESS_EVERY bytes. */
export function progressLine(stream: NodeJS.WriteStream, label: string, now: () => number = Date.now): DownloadProgress {
  const t0 = now();
  let lastAt = 0;
  let lastStep = 0;
  const mb = (b: number) => (b / (1024 * 1024)).toFixed(1);
  const line = (bytes: number, total: number | undefined) => {
    const s = Math.max(0.001, (now() - t0) / 1000);
    return `${label}: ${mb(bytes)} MB${total !== undefined ? ` of ${mb(total)} MB` : ''} (${mb(bytes / s)} MB/s)`;
  };
  return (bytes, total, done) => {
    if (stream.isTTY) {
      const t = now();
      if (!done && t - lastAt < TTY_EVERY_MS) return;
      lastAt = t;
      stream.write(`\r${line(bytes, total)}${done ? '\n' : ''}`);
      return;
    }
    const step = Math.floor(bytes / PROGRESS_EVERY);
    if (done || step > lastStep) {
      lastStep = step;
      stream.write(`${line(bytes, total)}\n`);
    }
  };
}
