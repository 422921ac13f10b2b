// sequencer/read-routes.ts: the read side of a log (docs/design.md §10): GET /v1/logs/{log} (the signed
// descriptor), …/checkpoint (the latest PUBLISHED checkpoint; 404 until one), …/entries?from=&to=
// (NDJSON stream, at most MAX_ENTRIES per call: a longer range is clamped and the headers say so),
// …/events/{seq} (the payload CloudEvent; 410 payload_erased with the erasure record), and the
// RFC 6962 proofs …/proof/inclusion?seq=&size= and …/proof/consistency?from=&to=, built by the
// store from O(log n) stored nodes. Sizes default to the durable head; a size beyond it is
// bad_request, since the tree does not exist there yet. Ranges: `cookwala-range: from-to`
// (inclusive, empty when from > to), `cookwala-head`, and `cookwala-clamped: true` when cut.
// With payloads=1 each entry's payload follows it as a bundle Payload line (none when erased);
// the lines are written from the stored bytes (entry-lines.ts).
// With order=desc, limit= or a match (subject=, source=, type=, id=, eventHash=, subjectPrefix=,
// sourcePrefix=) the entries route answers from entries-query.ts (newest first, filtered, at most
// 10,000 examined; `cookwala-next` says where to continue, `cookwala-erased` which listed entries
// lost their payload and to which erasure entry).

import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { fail, ProtocolError, type Result } from '../verifier/index.ts';
import { hostedLog, intParam, LOG_PARAMS, optionalIntParam, type SequencerContext } from './context.ts';
import { publishedCheckpoint, sendCheckpointNote, wantsNote } from './tlog-routes.ts';
import { isFilteredQuery, MATCH_PARAMS, queryEntries, readEntriesQuery } from './entries-query.ts';
import { sequencerSource } from './system-events.ts';
import { entryLines } from './entry-lines.ts';
import { describe, json, ref } from '../platform/index.ts';
import { CE_JSON, errors, NDJSON, NDJSON_BODY } from './api-schemas.ts';

export const MAX_ENTRIES = 10_000;

function need<T>(r: Result<T>): T {
  if (!r.ok) throw ProtocolError.from(r);
  return r.value;
}

const SEQ_PARAMS = {
  type: 'object',
  properties: { log: LOG_PARAMS.properties.log, seq: { type: 'string' } },
  required: ['log', 'seq'],
} as const;
const query = (...names: string[]) => ({
  type: 'object',
  properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])),
  additionalProperties: false,
});

const RANGE_HEADERS = {
  'cookwala-head': { type: 'string', description: 'the durable head seq' },
  'cookwala-range': { type: 'string', description: 'from-to, inclusive, of what was examined (empty when from > to)' },
  'cookwala-clamped': { type: 'string', description: 'true when the range was cut (at most 10000 per call, or beyond the head)' },
  'cookwala-next': { type: 'string', description: 'filtered or newest-first queries: where to continue' },
  'cookwala-erased': {
    type: 'string',
    description: 'filtered or newest-first queries: seq:erasureSeq, comma-separated, for the entries listed whose payload was erased',
  },
};
const DOCS = {
  descriptor: describe({
    summary: 'The signed log descriptor',
    responses: { 200: json('the Log document', ref('Log')), ...errors('bad_request', 'not_found') },
  }),
  checkpoint: describe({
    summary: 'The latest published checkpoint, with every cosignature gathered since',
    description: 'With `Accept: text/plain` (preferred over JSON) the C2SP signed note, as GET /tlog/{log}/checkpoint serves it.',
    responses: {
      200: {
        description: 'the Checkpoint document, or its C2SP signed note for Accept: text/plain',
        content: { 'application/json': { schema: ref('Checkpoint') }, 'text/plain': { schema: { type: 'string' } } },
      },
      ...errors('bad_request', 'not_found'),
    },
  }),
  entries: describe({
    summary:
      'Entries as NDJSON, at most 10000 per call; with order=desc, limit or a match (subject, source, type, id, eventHash exact; subjectPrefix, sourcePrefix): newest first and/or filtered, at most 10000 examined',
    responses: {
      200: {
        description: 'one Event document (components/schemas/Event) per line',
        headers: RANGE_HEADERS,
        content: { [NDJSON]: { schema: NDJSON_BODY } },
      },
      ...errors('bad_request', 'not_found'),
    },
  }),
  event: describe({
    summary: 'The payload CloudEvent of an entry, as it was ingested',
    responses: { 200: json('the event', ref('CloudEvent'), [CE_JSON]), ...errors('bad_request', 'not_found', 'payload_erased') },
  }),
  inclusion: describe({
    summary: 'RFC 6962 inclusion proof of entry seq in the tree of size (default: the durable head)',
    responses: { 200: json('the proof', ref('InclusionProof')), ...errors('bad_request', 'not_found') },
  }),
  consistency: describe({
    summary: 'RFC 6962 consistency proof between the trees of size from and to (default: the durable head)',
    responses: { 200: json('the proof (no root1 when from is 0)', ref('ConsistencyProof')), ...errors('bad_request', 'not_found') },
  }),
};

export function registerReadRoutes(app: FastifyInstance, ctx: SequencerContext): void {
  app.get(
    '/v1/logs/:log',
    { schema: { params: LOG_PARAMS, ...DOCS.descriptor } },
    async (request) => hostedLog(ctx, request.params).descriptor,
  );

  app.get('/v1/logs/:log/checkpoint', { schema: { params: LOG_PARAMS, ...DOCS.checkpoint } }, async (request, reply) => {
    const h = hostedLog(ctx, request.params);
    // The stored copy gathers cosignatures that came after publication (late witnesses, periodic
    // re-submission); the store merges only into the same head and root (logstore putCheckpoint).
    const cp = await publishedCheckpoint(h);
    // Accept: text/plain -> the C2SP signed note (tlog-routes.ts), as /tlog/{log}/checkpoint serves it.
    return wantsNote(request) ? sendCheckpointNote(reply, cp) : cp;
  });

  app.get(
    '/v1/logs/:log/entries',
    { schema: { params: LOG_PARAMS, querystring: query('from', 'to', 'order', 'limit', 'payloads', ...MATCH_PARAMS), ...DOCS.entries } },
    async (request, reply) => {
      const h = hostedLog(ctx, request.params);
      const q = request.query as { from?: string; to?: string; payloads?: string };
      if (q.payloads !== undefined && q.payloads !== '1') throw new ProtocolError('bad_request', 'payloads is 1 or absent');
      const head = h.store.head().seq;
      if (isFilteredQuery(q)) {
        // Newest first and/or filtered (entries-query.ts): bounded work, the range examined in the headers.
        const eq = need(readEntriesQuery(q, head));
        const page = await queryEntries(h.store, eq);
        reply.header('cookwala-head', String(head)).header('cookwala-range', `${page.scanned.first}-${page.scanned.last}`);
        if (page.next !== undefined) reply.header('cookwala-next', String(page.next));
        // Which of these entries lost their payload, and to which erasure entry (at most one
        // index read an entry; the erasure entry's id is erased-{seq}, from the sequencer's source).
        const src = sequencerSource(h.origin);
        const erased: string[] = [];
        for (const e of page.entries) {
          const x = await h.store.lookupId(src, `erased-${e.seq}`);
          if (x) erased.push(`${e.seq}:${x.seq}`);
        }
        if (erased.length) reply.header('cookwala-erased', erased.join(','));
        reply.type('application/x-ndjson');
        return reply.send(page.entries.map((e) => JSON.stringify(e) + '\n').join(''));
      }
      const from = need(optionalIntParam('from', q.from, 1, 1));
      const to = need(optionalIntParam('to', q.to, head, 1));
      if (q.to !== undefined && to < from) throw new ProtocolError('bad_request', `to ${to} is before from ${from}`);
      let last = Math.min(to, head);
      const clamped = last - from + 1 > MAX_ENTRIES || to > head;
      if (last - from + 1 > MAX_ENTRIES) last = from + MAX_ENTRIES - 1;
      reply.header('cookwala-head', String(head)).header('cookwala-range', `${from}-${last}`);
      if (clamped) reply.header('cookwala-clamped', 'true');
      // payloads=1 (the monitor's catch-up): each entry's payload follows it as a bundle Payload line
      // (docs/design.md §8), none for an erased one, so one request reads what a page of GET events would.
      const withPayloads = q.payloads === '1';
      if (withPayloads) reply.header('cookwala-payloads', 'inline');
      reply.type('application/x-ndjson');
      // Lines written from the stored bytes, about 64 KiB per write (entry-lines.ts).
      return reply.send(Readable.from(entryLines(h.store, h.store.descriptor()?.log ?? '', from, last, withPayloads)));
    },
  );

  app.get('/v1/logs/:log/events/:seq', { schema: { params: SEQ_PARAMS, ...DOCS.event } }, async (request, reply) => {
    const h = hostedLog(ctx, request.params);
    const seq = need(intParam('seq', (request.params as { seq: string }).seq, 1));
    if (seq > h.store.head().seq) throw new ProtocolError('not_found', `${h.origin} has no entry ${seq} yet`);
    const p = await h.store.getPayload(seq);
    if (!p) throw new ProtocolError('not_found', `entry ${seq} has no payload`);
    if ('erased' in p)
      throw ProtocolError.from(fail('payload_erased', `the payload of entry ${seq} was erased; the entry remains`, { erasure: p.erased }));
    reply.type('application/cloudevents+json');
    return p.event;
  });

  app.get(
    '/v1/logs/:log/proof/inclusion',
    { schema: { params: LOG_PARAMS, querystring: query('seq', 'size'), ...DOCS.inclusion } },
    async (request) => {
      const h = hostedLog(ctx, request.params);
      const q = request.query as { seq?: string; size?: string };
      const head = h.store.head().seq;
      const seq = need(intParam('seq', q.seq, 1));
      const size = need(optionalIntParam('size', q.size, head, 1));
      if (seq > size) throw new ProtocolError('bad_request', `seq ${seq} is not in a tree of size ${size}`);
      if (size > head) throw new ProtocolError('bad_request', `size ${size} is beyond the head ${head}`);
      const [proof, root] = await Promise.all([h.store.inclusionProof(seq, size), h.store.rootAt(size)]);
      return { seq, size, leafIndex: seq - 1, proof, root };
    },
  );

  app.get(
    '/v1/logs/:log/proof/consistency',
    { schema: { params: LOG_PARAMS, querystring: query('from', 'to'), ...DOCS.consistency } },
    async (request) => {
      const h = hostedLog(ctx, request.params);
      const q = request.query as { from?: string; to?: string };
      const head = h.store.head().seq;
      const from = need(intParam('from', q.from, 0));
      const to = need(optionalIntParam('to', q.to, head, 0));
      if (from > to) throw new ProtocolError('bad_request', `from ${from} is after to ${to}`);
      if (to > head) throw new ProtocolError('bad_request', `to ${to} is beyond the head ${head}`);
      const root2 = await h.store.rootAt(to);
      // Every tree extends the empty one (no proof, no root1); a tree is consistent with itself.
      if (from === 0) return { from, to, proof: [], root2 };
      if (from === to) return { from, to, proof: [], root1: root2, root2 };
      const [proof, root1] = await Promise.all([h.store.consistencyProof(from, to), h.store.rootAt(from)]);
      return { from, to, proof, root1, root2 };
    },
  );
}
