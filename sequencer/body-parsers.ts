// sequencer/body-parsers.ts: request body parsing for the sequencer app (docs/design.md §10). Every body is
// read as raw bytes first (kept on request.rawBody for Idempotency-Key fingerprints) under the
// config's bodyLimit (body_too_large). application/json is parsed with verifier/encoding/strict-json.ts
// parseJson (bad_json; duplicate_member for a name twice in one object, I-JSON; too_deep), never
// rewritten, except in binary content mode (ce-* headers), where application/json is the event's
// data and stays bytes for binary-event.ts; CloudEvents structured and batch bodies, and any other
// content type (binary mode), stay bytes for the ingest route to read by mode, through the same jsonBody. Depth: a document
// (an event, a KeyRecord) may nest MAX_JSON_DEPTH (64) levels; a body whose top level is an array
// (a batch) one more, so each of its documents has the same bound as when sent alone, and the
// bundle reader, which wraps an event once in its payload line, allows the same one more.

import type { FastifyInstance } from 'fastify';
import { fail, ok, ProtocolError, type Result } from '../verifier/index.ts';
import { fromUtf8 } from '../verifier/encoding/index.ts';
import { MAX_JSON_DEPTH, parseJson, parseJsonArrayElements } from '../verifier/encoding/index.ts';
import { isBinaryMode } from './binary-event.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: Buffer | null;
  }
}

/** True when the first byte that is not JSON whitespace opens an array. */
function opensArray(raw: Uint8Array): boolean {
  for (const c of raw) if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c === 0x5b;
  return false;
}

/**
 * UTF-8 JSON text to a value: bad_json when empty, not UTF-8, or not JSON; duplicate_member and
 * too_deep as verifier/encoding/strict-json.ts (a top-level array may nest one level more: a batch).
 */
export function jsonBody(raw: Uint8Array | undefined | null): Result<unknown> {
  const t = bodyText(raw);
  return t.ok ? parseJson(t.value.text, t.value.limits) : t;
}

/** The body as text and the JSON limits it is read under: bad_json when empty or not UTF-8. */
function bodyText(raw: Uint8Array | undefined | null): Result<{ text: string; limits: { maxDepth: number } }> {
  if (!raw || raw.length === 0) return fail('bad_json', 'the body is empty');
  try {
    return ok({ text: fromUtf8(raw), limits: { maxDepth: MAX_JSON_DEPTH + (opensArray(raw) ? 1 : 0) } });
  } catch {
    return fail('bad_json', 'the body is not UTF-8');
  }
}

/**
 * jsonBody, and for an array of objects (a batch) each element's own bytes, which JSON.parse reads
 * as that element again (the sequencer stores them as the event's payload instead of writing the
 * event again; logstore/types.ts AppendItem.payloadText). Views into `raw` when the body is ASCII,
 * else each element's text encoded again.
 */
export function jsonBodyElements(raw: Uint8Array | undefined | null): Result<{ value: unknown; elements: Uint8Array[] | undefined }> {
  const t = bodyText(raw);
  if (!t.ok) return t;
  const text = t.value.text;
  const r = parseJsonArrayElements(text, t.value.limits);
  if (!r.ok) return r;
  const spans = r.value.spans;
  if (!spans) return ok({ value: r.value.value, elements: undefined });
  // Every byte ASCII exactly when the text has as many code units as the body has bytes.
  const ascii = raw!.length === text.length;
  const b = Buffer.from(raw!.buffer, raw!.byteOffset, raw!.byteLength);
  const elements = spans.map(([s, e]) => (ascii ? b.subarray(s, e) : Buffer.from(text.slice(s, e), 'utf8')));
  return ok({ value: r.value.value, elements });
}

export function registerBodyParsers(app: FastifyInstance): void {
  app.decorateRequest('rawBody', null);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    request.rawBody = body as Buffer;
    // Binary content mode: Content-Type is the event's datacontenttype and the body its data,
    // which binary-event.ts reads (an empty body: no data). Parsing here would refuse an empty
    // body before the ingest route sees the event.
    if (isBinaryMode(request.headers) && request.routeOptions.url?.endsWith('/events')) return done(null, body);
    const j = jsonBody(body as Buffer);
    if (j.ok) done(null, j.value);
    else done(ProtocolError.from(j), undefined); // with its path, for a duplicate_member
  });
  const keep = (request: { rawBody: Buffer | null }, body: string | Buffer, done: (e: Error | null, b?: unknown) => void) => {
    request.rawBody = body as Buffer;
    done(null, body);
  };
  app.addContentTypeParser(['application/cloudevents+json', 'application/cloudevents-batch+json'], { parseAs: 'buffer' }, keep);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, keep);
}
