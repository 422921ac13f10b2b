// monitor/http-get.ts: the monitor's one way to read from a log, a witness or a peer monitor:
// GET with a deadline and a byte cap, because every byte a log serves is hostile
// (docs/design.md §14). A body past the cap or a deadline passed is an error, never a partial read.
// A request that fails before any answer is sent once more (a kept-alive connection the server
// closed while the monitor was busy verifying is the usual cause). Left out: other retries (the
// follow loop tries again next interval), caching, redirects to other hosts.
// Invariant: a returned body is whole and at most `maxBytes` long.

export interface Got {
  status: number;
  body: Uint8Array;
  contentType: string;
}

export type HttpGet = (url: string, opts?: { accept?: string; maxBytes?: number; timeoutMs?: number }) => Promise<Got>;

export const DEFAULT_MAX_BYTES = 64 << 20;
export const DEFAULT_TIMEOUT_MS = 15_000;

export class FetchFailed extends Error {
  override readonly name = 'FetchFailed';
}

/** GET over node's fetch: the body is read chunk by chunk and refused past maxBytes. */
export const httpGet: HttpGet = async (url, opts = {}) => {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  let res: Response | undefined;
  for (let attempt = 0; !res; attempt++) {
    try {
      res = await fetch(url, {
        headers: opts.accept ? { accept: opts.accept } : {},
        redirect: 'error',
        signal: AbortSignal.timeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (e) {
      const timedOut = (e as Error).name === 'TimeoutError';
      if (attempt >= 1 || timedOut) {
        const cause = (e as { cause?: { message?: string } }).cause?.message;
        throw new FetchFailed(`GET ${url}: ${(e as Error).message}${cause ? ` (${cause})` : ''}`);
      }
    }
  }
  const chunks: Uint8Array[] = [];
  let n = 0;
  if (res.body) {
    try {
      for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
        n += c.length;
        if (n > maxBytes) {
          await res.body.cancel().catch(() => undefined);
          throw new FetchFailed(`GET ${url}: the body is longer than ${maxBytes} bytes`);
        }
        chunks.push(c);
      }
    } catch (e) {
      if (e instanceof FetchFailed) throw e;
      throw new FetchFailed(`GET ${url}: ${(e as Error).message}`);
    }
  }
  const body = new Uint8Array(n);
  let off = 0;
  for (const c of chunks) {
    body.set(c, off);
    off += c.length;
  }
  return { status: res.status, body, contentType: res.headers.get('content-type') ?? '' };
};

/** The body as text (UTF-8; a byte sequence that is not UTF-8 becomes U+FFFD, as TextDecoder decodes it). */
export function text(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
}
