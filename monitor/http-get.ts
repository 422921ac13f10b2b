// monitor/http-get.ts: the monitor's one way to read from a log, a witness or a peer monitor:
// GET with a deadline and a byte cap, because every byte a log serves is hostile
// (docs/design.md §14). A body past the cap or a deadline passed is an error, never a partial read.
// A request that fails before any answer is sent once more (a kept-alive connection the server
// closed while the monitor was busy verifying is the usual cause). It reads over node:http with a
// kept-alive agent rather than fetch: a page of entries is megabytes in 64 KiB chunks, which fetch
// passes through a web stream (a promise and a wrapper per chunk); a body read into the caller's
// buffer over plain http (the pages) goes on a socket of its own through raw-get.ts, which
// allocates nothing per read. Left out: other retries (the follow loop tries again next
// interval), caching, redirects (refused).
// Invariant: a returned body is whole and at most `maxBytes` long.

import http from 'node:http';
import https from 'node:https';
import { rawGet, RawGetFailed, RAW_READ_BYTES } from './raw-get.ts';

export interface Got {
  status: number;
  body: Uint8Array;
  contentType: string;
}

export interface GetOptions {
  accept?: string;
  maxBytes?: number;
  timeoutMs?: number;
  /**
   * A buffer the body is read into (replaced by a larger one when the body outgrows it), so that
   * a reader of many large bodies allocates none per body; the body returned is then a view of it,
   * valid until the holder is passed to another GET. A reader may ignore it.
   */
  into?: { buf: Buffer };
}

export type HttpGet = (url: string, opts?: GetOptions) => Promise<Got>;

export const DEFAULT_MAX_BYTES = 64 << 20;
export const DEFAULT_TIMEOUT_MS = 15_000;

export class FetchFailed extends Error {
  override readonly name = 'FetchFailed';
}

/**
 * GET over node:http (node:https for an https: URL) with a kept-alive agent per factory: the body
 * is read chunk by chunk and refused past maxBytes, and copied once: into the caller's buffer
 * (`into`), into one of the Content-Length's size, or joined at the end. A redirect is
 * refused as an error, as fetch with redirect 'error' refuses it.
 */
export function createHttpGet(): HttpGet {
  const agents = {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };
  const once = (url: URL, opts: GetOptions) =>
    new Promise<Got>((resolve, reject) => {
      const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
      const mod = url.protocol === 'https:' ? https : http;
      let answered = false;
      const req = mod.get(
        url,
        {
          agent: agents[url.protocol as 'http:' | 'https:'],
          headers: opts.accept ? { accept: opts.accept } : {},
          signal: AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
        },
        (res) => {
          answered = true;
          const status = res.statusCode ?? 0;
          if (status >= 300 && status < 400) {
            res.destroy();
            reject(new FetchFailed(`GET ${url.href}: redirected (HTTP ${status}), which the monitor does not follow`));
            return;
          }
          const declared = Number(res.headers['content-length']);
          if (Number.isSafeInteger(declared) && declared > maxBytes) {
            res.destroy();
            reject(new FetchFailed(`GET ${url.href}: the body is longer than ${maxBytes} bytes`));
            return;
          }
          // The holder's buffer, one of the declared length, or the chunks joined at the end.
          const sized = Number.isSafeInteger(declared) && declared >= 0;
          let buf = opts.into?.buf ?? (sized ? Buffer.allocUnsafe(declared) : undefined);
          if (opts.into && sized && buf!.length < declared) buf = opts.into.buf = Buffer.allocUnsafe(declared);
          const chunks: Buffer[] = [];
          let n = 0;
          res.on('data', (c: Buffer) => {
            if (n + c.length > maxBytes || (sized && n + c.length > declared)) {
              res.destroy();
              reject(new FetchFailed(`GET ${url.href}: the body is longer than ${sized ? declared : maxBytes} bytes`));
              return;
            }
            if (!buf) chunks.push(c);
            else {
              if (n + c.length > buf.length) {
                const grown = Buffer.allocUnsafe(Math.min(maxBytes, Math.max(2 * buf.length, n + c.length)));
                buf.copy(grown, 0, 0, n);
                buf = grown;
                if (opts.into) opts.into.buf = grown;
              }
              c.copy(buf, n);
            }
            n += c.length;
          });
          res.on('end', () => {
            if (sized && n !== declared) {
              reject(new FetchFailed(`GET ${url.href}: the body ended after ${n} of ${declared} bytes`));
              return;
            }
            const body = buf ? buf.subarray(0, n) : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, n);
            resolve({ status, body, contentType: String(res.headers['content-type'] ?? '') });
          });
          res.on('error', (e) => reject(new FetchFailed(`GET ${url.href}: ${e.message}`)));
          res.on('close', () => {
            if (!res.complete) reject(new FetchFailed(`GET ${url.href}: the answer was cut off`));
          });
        },
      );
      req.on('error', (e) => {
        const timedOut = e.name === 'AbortError' || e.name === 'TimeoutError';
        const err = new FetchFailed(`GET ${url.href}: ${timedOut ? 'timed out' : e.message}`);
        // Sent once more only when nothing was answered and no deadline passed.
        reject(Object.assign(err, { retry: !answered && !timedOut }));
      });
    });
  // The read buffer of the page reads (raw-get.ts), made at the first; each read is copied out of it at once.
  let readBuf: Buffer | undefined;
  return async (url, opts = {}) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new FetchFailed(`GET ${url}: not a URL`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new FetchFailed(`GET ${url}: not an http(s) URL`);
    if (opts.into && u.protocol === 'http:') {
      const raw = {
        accept: opts.accept,
        maxBytes: opts.maxBytes ?? DEFAULT_MAX_BYTES,
        timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        into: opts.into,
        readBuf: (readBuf ??= Buffer.allocUnsafe(RAW_READ_BYTES)),
      };
      for (let attempt = 0; ; attempt++) {
        try {
          return await rawGet(u, raw);
        } catch (e) {
          if (!(e instanceof RawGetFailed)) throw e;
          if (attempt >= 1 || !e.unanswered) throw new FetchFailed(e.message);
        }
      }
    }
    try {
      return await once(u, opts);
    } catch (e) {
      if (!(e as { retry?: boolean }).retry) throw e;
      return once(u, opts);
    }
  };
}

/** The one reader of the `cookwala monitor` and `cookwala tiles` commands. */
export const httpGet: HttpGet = createHttpGet();

/** The body as text (UTF-8; a byte sequence that is not UTF-8 becomes U+FFFD, as TextDecoder decodes it). */
export function text(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
}
