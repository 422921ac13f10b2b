// web/src/lib/http.ts: the explorer's and the witness page's reads of their own server (docs/design.md
// §10, §12b): JSON with problem+json failures turned into an HttpError that keeps the status, the
// reason code and the body (a 410 carries the erasure record), and NDJSON read as a stream, each
// line handed over as it arrives (the page shows rows while the answer is still coming). Every
// answer is bounded (MAX_BYTES) and parsed strictly; nothing is trusted because the server said it.

import { parseJson } from '../../../verifier/documents/index.ts';

const MAX_BYTES = 32 << 20;

export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly body: unknown,
    message: string,
  ) {
    super(message);
  }
}

async function failure(r: Response): Promise<HttpError> {
  let body: unknown;
  try {
    body = await r.json();
  } catch {
    body = undefined;
  }
  const b = body as { code?: string; detail?: string } | undefined;
  return new HttpError(r.status, b?.code, body, `${r.status} ${b?.code ?? r.statusText}${b?.detail ? `: ${b.detail}` : ''}`);
}

export async function getJson<T>(url: string): Promise<T> {
  const r = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
  if (!r.ok) throw await failure(r);
  const text = await r.text();
  if (text.length > MAX_BYTES) throw new HttpError(r.status, undefined, undefined, `${url}: answer too large`);
  const j = parseJson(text);
  if (!j.ok) throw new HttpError(r.status, j.code, undefined, `${url}: ${j.detail}`);
  return j.value as T;
}

/** GET an NDJSON answer; `onItem` sees each parsed line as it arrives. Resolves with the headers. */
export async function getNdjson(url: string, onItem: (item: unknown) => void): Promise<Headers> {
  const r = await fetch(url, { headers: { accept: 'application/x-ndjson' }, cache: 'no-store' });
  if (!r.ok) throw await failure(r);
  if (!r.body) return r.headers;
  const reader = r.body.getReader();
  const dec = new TextDecoder('utf-8', { fatal: true });
  let carry = '';
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > MAX_BYTES) {
      await reader.cancel();
      throw new HttpError(r.status, undefined, undefined, `${url}: answer too large`);
    }
    carry += dec.decode(value, { stream: true });
    let nl = carry.indexOf('\n');
    while (nl >= 0) {
      const line = carry.slice(0, nl);
      carry = carry.slice(nl + 1);
      if (line.length > 0) {
        const j = parseJson(line);
        if (!j.ok) throw new HttpError(r.status, j.code, undefined, `${url}: ${j.detail}`);
        onItem(j.value);
      }
      nl = carry.indexOf('\n');
    }
  }
  carry += dec.decode();
  if (carry.trim().length > 0) {
    const j = parseJson(carry);
    if (!j.ok) throw new HttpError(r.status, j.code, undefined, `${url}: ${j.detail}`);
    onItem(j.value);
  }
  return r.headers;
}

export const logPath = (log: string, rest = '') => `/v1/logs/${encodeURIComponent(log)}${rest}`;
