// platform/download.ts: a large HTTP body to a file, for the CLIs (`cookwala export --url`, full or
// incremental, docs/design.md §8): one GET on a socket of our own, the answer read by
// platform/http1-response.ts, each read written to FILE.partial before the next read is taken
// (backpressure without streams: the socket is read only as fast as the disk takes it), then renamed
// into place once the file is closed, so a failed or cut download never leaves a file that looks
// whole (not fsync'd: like curl -o, the page cache holds the tail). Over http the socket reads into
// one READ_BYTES buffer that is reused (net's `onread`), and the body views are written from it
// synchronously: no allocation, copy or stream stage per read, which is what held node:http, fetch
// and a piped WriteStream to a fraction of curl's speed; memory stays flat whatever the size. Over
// https the TLS socket's own chunks go the same way. Progress goes to stderr: on a terminal one line
// rewritten at most every 250 ms, otherwise one line every PROGRESS_EVERY bytes, and a last line
// either way. A malformed or cut answer, or IDLE_MS without a byte, is DownloadFailed. Leaves out:
// resuming, redirects (a 3xx is DownloadRefused), proxies, TLS options beyond the defaults.
// Invariant: FILE exists only once every byte of a 200 answer that ended cleanly is on disk.

import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { createHttp1ResponseParser, type ResponseHead } from './http1-response.ts';
import { connectGet, getRequestHead } from './socket-get.ts';

/** A progress line every this many bytes when stderr is not a terminal. */
export const PROGRESS_EVERY = 64 * 1024 * 1024;
const TTY_EVERY_MS = 250;
/** The one buffer an http socket reads into. */
export const READ_BYTES = 1024 * 1024;
/** No byte for this long: the download fails (a stalled server never hangs the CLI). */
export const IDLE_MS = 60_000;
const REFUSAL_BYTES = 300;

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

/** An answer that is not well-formed HTTP/1.1, or one that stopped (cut, short, stalled) before its end. */
export class DownloadFailed extends Error {
  override readonly name = 'DownloadFailed';
}

/** GET `url` into `out` (via out.partial, then rename). Resolves with the byte count. */
export function downloadToFile(
  url: string,
  out: string,
  o: { progress?: DownloadProgress; signal?: AbortSignal; idleMs?: number } = {},
): Promise<number> {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return Promise.reject(new TypeError(`not an http(s) URL: ${url}`));
  const partial = `${out}.partial`;
  return new Promise<number>((resolve, reject) => {
    let fd: number | undefined;
    let total: number | undefined;
    let status = 0;
    const refusal: Buffer[] = [];
    let refusalBytes = 0;
    let settled = false;

    const finish = (e?: unknown) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      o.signal?.removeEventListener('abort', onAbort);
      try {
        if (e === undefined && status === 200 && fd !== undefined) {
          closeSync(fd);
          fd = undefined;
          renameSync(partial, out);
          o.progress?.(parser.bodyBytes, total, true);
          return resolve(parser.bodyBytes);
        }
        if (e === undefined) e = new DownloadRefused(status, Buffer.concat(refusal).toString('utf8').slice(0, REFUSAL_BYTES));
      } catch (x) {
        e = x;
      }
      if (fd !== undefined) closeSync(fd);
      rmSync(partial, { force: true });
      reject(e);
    };
    const parser = createHttp1ResponseParser({
      onHead(head: ResponseHead) {
        status = head.status;
        if (status !== 200) return;
        const length = Number(head.headers.get('content-length'));
        total = head.headers.has('content-length') && Number.isSafeInteger(length) ? length : undefined;
        fd = openSync(partial, 'w');
      },
      onBody(bytes) {
        if (status !== 200) {
          if (refusalBytes < REFUSAL_BYTES) refusal.push(Buffer.from(bytes.subarray(0, REFUSAL_BYTES - refusalBytes)));
          refusalBytes += bytes.length;
          return;
        }
        for (let off = 0; off < bytes.length;) off += writeSync(fd!, bytes, off, bytes.length - off);
        o.progress?.(parser.bodyBytes, total, false);
      },
    });
    /** One read of the socket: parsed and (for a 200) on disk before the next is taken. */
    const take = (bytes: Uint8Array) => {
      if (settled) return;
      try {
        const step = parser.push(bytes);
        if (!step.ok) return finish(new DownloadFailed(`${u.origin} sent a malformed answer: ${step.detail}`));
        if (parser.done || (status !== 0 && status !== 200 && refusalBytes >= REFUSAL_BYTES)) finish();
      } catch (e) {
        finish(e); // the disk refused a write (ENOSPC, EIO)
      }
    };
    const onAbort = () => finish(o.signal?.reason ?? new DownloadFailed('aborted'));
    // Each read is parsed and (for a 200) on disk before the next is taken, so the buffer is free again.
    const readBuf = u.protocol === 'https:' ? Buffer.alloc(0) : Buffer.allocUnsafe(READ_BYTES);
    const socket = connectGet(u, getRequestHead(u, 'User-Agent: cookwala\r\nAccept: */*\r\n'), readBuf, take);
    socket.setTimeout(o.idleMs ?? IDLE_MS, () => finish(new DownloadFailed(`${u.origin} sent nothing for ${o.idleMs ?? IDLE_MS} ms`)));
    socket.on('error', (e) => finish(e));
    socket.on('end', () => {
      if (settled) return;
      const step = parser.end();
      finish(step.ok ? undefined : new DownloadFailed(`${u.origin}: ${step.detail}`));
    });
    socket.on('close', () => finish(new DownloadFailed(`${u.origin} closed the connection before the answer ended`)));
    if (o.signal?.aborted) return onAbort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
  });
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
