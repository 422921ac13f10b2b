// sequencer/body-parsers.ts: request body parsing for the sequencer app (DESIGN §10). Every body is
// read as raw bytes first (kept on request.rawBody for Idempotency-Key fingerprints) under the
// config's bodyLimit (body_too_large). application/json is parsed with verifier/read.ts parseJson
// (bad_json), never rewritten; CloudEvents structured and batch bodies, and any other content type
// (binary mode), stay bytes for the ingest route to read by mode.

import type { FastifyInstance } from 'fastify';
import { fail, ProtocolError, type Result } from '../verifier/errors.ts';
import { fromUtf8 } from '../verifier/encoding.ts';
import { parseJson } from '../verifier/read.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody: Buffer | null;
  }
}

/** UTF-8 JSON text to a value: bad_json when empty, not UTF-8, or not JSON. */
export function jsonBody(raw: Uint8Array | undefined | null): Result<unknown> {
  if (!raw || raw.length === 0) return fail('bad_json', 'the body is empty');
  let text: string;
  try {
    text = fromUtf8(raw);
  } catch {
    return fail('bad_json', 'the body is not UTF-8');
  }
  return parseJson(text);
}

export function registerBodyParsers(app: FastifyInstance): void {
  app.decorateRequest('rawBody', null);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    request.rawBody = body as Buffer;
    const j = jsonBody(body as Buffer);
    if (j.ok) done(null, j.value);
    else done(new ProtocolError(j.code, j.detail), undefined);
  });
  const keep = (request: { rawBody: Buffer | null }, body: string | Buffer, done: (e: Error | null, b?: unknown) => void) => {
    request.rawBody = body as Buffer;
    done(null, body);
  };
  app.addContentTypeParser(['application/cloudevents+json', 'application/cloudevents-batch+json'], { parseAs: 'buffer' }, keep);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, keep);
}
