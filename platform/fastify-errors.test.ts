// Every error fastify can raise (its exported errorCodes, walked one by one) maps to a code of
// verifier/errors.ts with a status of the same class (4xx stays 4xx, 5xx stays 5xx); the router's
// own (FST_ERR_MAX_PARAM_LENGTH, FST_ERR_BAD_URL) and Node's parser errors (clientError) map to the
// codes docs/reference.md names; and the raw response written on a socket no reply owns is a complete
// problem+json HTTP/1.1 answer.
import { describe, expect, it } from 'vitest';
import { errorCodes } from 'fastify';
import { REASONS, fail } from '../verifier/errors.ts';
import { toFailure } from './http-problem.ts';
import { clientErrorFailure, rawProblemResponse } from './http-limits.ts';

describe('fastify errors', () => {
  const codes = Object.entries(errorCodes).filter(([k]) => k.startsWith('FST_'));
  it('fastify exports its error codes (the walk below is not empty)', () => {
    expect(codes.length).toBeGreaterThan(50);
  });
  it.each(codes)('%s maps to a code of ours with a status of the same class', (name, Ctor) => {
    const e = new (Ctor as new (...a: string[]) => Error & { statusCode?: number; code?: string })('a', 'b', 'c');
    expect(e.code).toBe(name);
    const f = toFailure(e);
    expect(Object.keys(REASONS)).toContain(f.code);
    const status = e.statusCode ?? 500;
    expect(Math.floor(REASONS[f.code].status / 100), `${name} ${status} -> ${f.code}`).toBe(Math.floor(status / 100));
  });
  it('names the router and parser errors precisely', () => {
    expect(toFailure(new errorCodes.FST_ERR_MAX_PARAM_LENGTH('/x')).code).toBe('uri_too_long');
    expect(toFailure(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()).code).toBe('body_too_large');
    expect(toFailure(new errorCodes.FST_ERR_NOT_FOUND()).code).toBe('not_found');
    expect(clientErrorFailure(Object.assign(new Error('x'), { code: 'HPE_HEADER_OVERFLOW' })).code).toBe('headers_too_large');
    expect(clientErrorFailure(Object.assign(new Error('x'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })).code).toBe('request_timeout');
    expect(clientErrorFailure(Object.assign(new Error('x'), { code: 'HPE_UNEXPECTED_CONTENT_LENGTH' })).code).toBe('bad_request');
    expect(clientErrorFailure(Object.assign(new Error('x'), { code: 'HPE_INVALID_METHOD' })).code).toBe('bad_request');
  });
  it('writes a whole HTTP/1.1 problem+json response for a socket', () => {
    const r = rawProblemResponse(fail('too_many_connections', 'full'));
    const [head, body] = r.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(head).toContain('Content-Type: application/problem+json');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
    expect(JSON.parse(body)).toMatchObject({ code: 'too_many_connections', status: 503 });
  });
});
