// problem+json: the code's status and meaning from the one table, extras kept; fastify errors
// and thrown values mapped to codes.
import { expect, it } from 'vitest';
import { fail, ProtocolError, REASONS } from '../verifier/errors.ts';
import { problemOf, toFailure } from './http-problem.ts';

it('builds RFC 9457 problems from failures', () => {
  const p = problemOf(fail('out_of_order', 'gap', { expected: 6 }));
  expect(p).toEqual({
    type: 'urn:cookwala:reason:out_of_order',
    title: REASONS.out_of_order.meaning,
    status: 409,
    detail: 'gap',
    code: 'out_of_order',
    expected: 6,
  });
  // an extra member can never override the standard ones
  expect(problemOf(fail('bad_json', 'x', { status: 200, code: 'nope' }))).toMatchObject({ status: 400, code: 'bad_json' });
});

it('maps thrown values to codes', () => {
  expect(toFailure(new ProtocolError('unknown_key', 'k', { kid: 'k' }))).toMatchObject({ code: 'unknown_key', kid: 'k' });
  expect(toFailure(Object.assign(new Error('big'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 })).code).toBe('body_too_large');
  expect(toFailure(Object.assign(new Error('mt'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 })).code).toBe(
    'unsupported_media_type',
  );
  expect(
    toFailure(
      Object.assign(new Error('v'), {
        validation: [{ keyword: 'additionalProperties', instancePath: '', params: { additionalProperty: 'x' } }],
        validationContext: 'body',
      }),
    ).code,
  ).toBe('unknown_field');
  expect(
    toFailure(Object.assign(new Error('v'), { validation: [{ keyword: 'type', instancePath: '/a' }], validationContext: 'body' })).code,
  ).toBe('invalid_document');
  expect(
    toFailure(
      Object.assign(new Error('v'), {
        validation: [{ keyword: 'additionalProperties', instancePath: '' }],
        validationContext: 'querystring',
      }),
    ).code,
  ).toBe('bad_request');
  expect(toFailure(new SyntaxError('x')).code).toBe('bad_json');
  expect(toFailure(new Error('boom'))).toMatchObject({ code: 'internal_error', detail: 'unexpected server fault' });
});

it('maps an error code by own members only (a code named like Object.prototype is unknown)', () => {
  // Regression: FASTIFY_CODES['toString'] found Object.prototype.toString and became the "code".
  for (const code of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
    expect(toFailure(Object.assign(new Error('x'), { code, statusCode: 500 })).code, code).toBe('internal_error');
  }
});
