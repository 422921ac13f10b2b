// sequencer/logs-list-route.ts: GET /v1/logs (docs/design.md §12a): every log this sequencer hosts, in
// config order, with its head and latest signed checkpoint, paged (`from` = the index of the first
// log, `limit` 1-1000, default 100; `next` when more follow). An open log answers from its store;
// a log whose store is closed answers from its summary file (log-summary.ts, `open: false`,
// `summaryAt`), so listing 10,000 logs never opens 10,000 stores. Leaves out: filtering.
// Invariant: a page reads at most `limit` small files and opens no store.

import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '../verifier/index.ts';
import { optionalIntParam, type SequencerContext } from './context.ts';
import { describe, json } from '../platform/index.ts';
import { errors } from './api-schemas.ts';

export const MAX_LIST_LIMIT = 1000;

const HASH = { type: 'string' };
const SUMMARY = {
  type: 'object',
  required: ['log', 'mode', 'open'],
  properties: {
    log: { type: 'string' },
    mode: { type: 'string', enum: ['full', 'hash_only'] },
    open: {
      type: 'boolean',
      description: 'the store is open now; false: head and checkpoint are from the summary written when it was last closed',
    },
    head: { type: 'object', properties: { seq: { type: 'integer' }, hash: HASH, root: HASH } },
    checkpoint: { type: 'object', properties: { seq: { type: 'integer' }, hash: HASH } },
    summaryAt: { type: 'string' },
  },
};
const LIST = describe({
  summary: 'Every hosted log with its head and latest signed checkpoint (paged)',
  responses: {
    200: json('a page of logs', {
      type: 'object',
      required: ['logs', 'total'],
      properties: { logs: { type: 'array', items: SUMMARY }, total: { type: 'integer' }, next: { type: 'integer' } },
    }),
    ...errors('bad_request'),
  },
});

export function registerLogsListRoute(app: FastifyInstance, ctx: SequencerContext): void {
  const querystring = { type: 'object', properties: { from: { type: 'string' }, limit: { type: 'string' } }, additionalProperties: false };
  app.get('/v1/logs', { schema: { querystring, ...LIST } }, async (request) => {
    const q = request.query as { from?: string; limit?: string };
    const from = optionalIntParam('from', q.from, 0);
    if (!from.ok) throw ProtocolError.from(from);
    const limit = optionalIntParam('limit', q.limit, 100, 1);
    if (!limit.ok) throw ProtocolError.from(limit);
    if (limit.value > MAX_LIST_LIMIT) throw new ProtocolError('bad_request', `limit is at most ${MAX_LIST_LIMIT}`);
    const origins = ctx.logs.origins();
    const page = origins.slice(from.value, from.value + limit.value);
    const logs = (await Promise.all(page.map((o) => ctx.logs.summary(o)))).filter((s) => s !== undefined);
    const next = from.value + page.length;
    return { logs, total: origins.length, ...(next < origins.length ? { next } : {}) };
  });
}
