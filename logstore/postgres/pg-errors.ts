// logstore/postgres/pg-errors.ts: which failures of the PostgreSQL driver mean "the database cannot
// be reached now" (docs/design.md §6, §12a), so that a read answers 503 store_unavailable (with
// Retry-After) instead of 500: the connection classes of SQLSTATE (08 connection exception, 57
// operator intervention such as 57P01 admin shutdown and 57P03 "the database system is shutting
// down / starting up", 53 insufficient resources such as too many connections), the socket errors
// of a refused or cut connection, and the pg client's own "connection terminated" errors. Leaves
// out: retrying (the client does, after Retry-After). Invariant: only an error that says nothing
// about the data is mapped; anything else is thrown on unchanged.

import { ProtocolError } from '../../verifier/index.ts';

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);
const CLIENT_MESSAGES = /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Client was closed/i;

/** Whether `e` says the database is unreachable, restarting or shutting down (not a fault of the data). */
export function isDatabaseUnavailable(e: unknown): boolean {
  if (e instanceof AggregateError) return e.errors.some(isDatabaseUnavailable);
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (/^(08|57|53)[0-9A-Z]{3}$/.test(code)) return true;
    if (SOCKET_CODES.has(code)) return true;
  }
  return CLIENT_MESSAGES.test(e.message);
}

/** `e` as store_unavailable when the database is unreachable, else `e` itself. */
export function unavailableOr(e: unknown): unknown {
  if (e instanceof ProtocolError || !isDatabaseUnavailable(e)) return e;
  const code = (e as { code?: unknown }).code;
  return new ProtocolError(
    'store_unavailable',
    `the log's database cannot be reached now (${typeof code === 'string' ? `${code}: ` : ''}${(e as Error).message.slice(0, 200)}); retry`,
  );
}
