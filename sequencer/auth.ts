// sequencer/auth.ts: the operator bearer token (docs/design.md §10). Operator endpoints (erase, register
// keys, create logs) take `Authorization: Bearer <token>`, the token created by `cookwala init`.
// Both sides are hashed to 32 bytes before crypto.timingSafeEqual, so neither the token's content
// nor its length leaks through timing. Left out: scopes, several tokens, rotation (re-run init
// with a new operator.token and restart).

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fail } from '../verifier/errors.ts';
import { sendProblem } from '../platform/http-problem.ts';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export function createOperatorAuth(token: string) {
  if (token.length < 16) throw new TypeError('the operator token is too short');
  const want = digest(token);
  function check(header: string | undefined): boolean {
    const m = /^Bearer ([^\s]+)\s*$/i.exec(header ?? '');
    const given = digest(m ? m[1] : '');
    return timingSafeEqual(given, want) && m !== null;
  }
  /** A fastify preHandler: answers 401 unauthorized unless the bearer token matches. */
  async function requireOperator(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (check(request.headers.authorization)) return undefined;
    return sendProblem(reply, fail('unauthorized', 'operator endpoint: send Authorization: Bearer <operator.token>'));
  }
  return { check, requireOperator };
}
