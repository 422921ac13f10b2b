// sequencer/auth.ts: the operator bearer token (docs/design.md §10). Operator endpoints (erase, register
// keys, create logs) take `Authorization: Bearer <token>`, the token created by `cookwala init`.
// Both sides are hashed to 32 bytes before crypto.timingSafeEqual, so neither the token's content
// nor its length leaks through timing. DATA/operator.token may hold several tokens, one a line,
// each accepted: that is how the token rotates without a gap (docs/operations.md): append the
// new one, reload (SIGHUP), move the clients, delete the old line, reload. Every held token is
// compared on every request, so which one matched does not show in the timing either.
// Left out: scopes.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { fail } from '../verifier/index.ts';
import { sendProblem } from '../platform/index.ts';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** The tokens of an operator.token text: one a line, blank lines ignored. */
export function operatorTokens(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export function createOperatorAuth(token: string) {
  const tokens = operatorTokens(token);
  if (tokens.length === 0 || tokens.some((t) => t.length < 16)) throw new TypeError('the operator token is too short');
  const wants = tokens.map(digest);
  function check(header: string | undefined): boolean {
    const m = /^Bearer ([^\s]+)\s*$/i.exec(header ?? '');
    const given = digest(m ? m[1] : '');
    let match = false;
    for (const want of wants) match = timingSafeEqual(given, want) || match;
    return match && m !== null;
  }
  /** A fastify preHandler: answers 401 unauthorized unless the bearer token matches. */
  async function requireOperator(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    if (check(request.headers.authorization)) return undefined;
    return sendProblem(reply, fail('unauthorized', 'operator endpoint: send Authorization: Bearer <operator.token>'));
  }
  return { check, requireOperator };
}
