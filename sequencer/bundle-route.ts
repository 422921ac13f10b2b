// sequencer/bundle-route.ts: GET /v1/logs/{log}/bundle (docs/design.md §8, §10), the audit bundle of a
// hosted log streamed as application/x-ndjson while the sequencer keeps running (export.ts does the
// writing; a LevelDB iterator sees a fixed snapshot, so appends during the export do not mix in).
// The witness policy is read from the data directory on each request, so the exported checkpoints
// are those that meet the policy in force. Lines go to the socket joined into pieces of about 64 KiB
// (export.ts coalesceLines), not one write per line. A failure before the first byte is a problem+json
// answer; one in mid-stream (an erasure racing the export) ends the stream early, which a verifier
// reports as a truncated bundle. Left out: authentication (a bundle holds only what the public read
// routes serve).

import { Readable } from 'node:stream';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { parseJson } from '../verifier/documents/index.ts';
import { readWitnessPolicy, type WitnessPolicy } from '../verifier/documents/index.ts';
import { hostedLog, intParam, LOG_PARAMS, type SequencerContext } from './context.ts';
import { ProtocolError } from '../verifier/index.ts';
import { bundleLines, coalesceLines, type ExportSummary } from './export.ts';
import { describe } from '../platform/index.ts';
import { errors, NDJSON, NDJSON_BODY } from './api-schemas.ts';

const DOC = describe({
  summary: 'The audit bundle (docs/design.md §8), streamed while the sequencer runs',
  responses: {
    200: {
      description:
        'NDJSON: a header line, the Log descriptor, KeyRecords, Event entries, payload CloudEvents and Checkpoints (docs/design.md §8)',
      headers: { 'content-disposition': { type: 'string', description: 'attachment; filename="<origin>-<seq>.ndjson"' } },
      content: { [NDJSON]: { schema: NDJSON_BODY } },
    },
    ...errors('bad_request', 'not_found'),
  },
});

export async function policyOf(ctx: SequencerContext, origin: string): Promise<WitnessPolicy | undefined> {
  let text: string;
  try {
    text = await readFile(join(ctx.dataDir, ctx.config.policy), 'utf8');
  } catch {
    return undefined;
  }
  const j = parseJson(text);
  const p = j.ok ? readWitnessPolicy(j.value) : j;
  return p.ok && p.value.log === origin ? p.value : undefined;
}

export function registerBundleRoute(app: FastifyInstance, ctx: SequencerContext): void {
  app.get('/v1/logs/:log/bundle', { schema: { params: LOG_PARAMS, ...DOC } }, async (request, reply) => {
    const h = hostedLog(ctx, request.params);
    const policy = await policyOf(ctx, h.origin);
    const summary: Partial<ExportSummary> = {};
    const q = (request.query ?? {}) as { from?: unknown };
    const from = q.from === undefined ? undefined : intParam('from', q.from, 1);
    if (from && !from.ok) throw ProtocolError.from(from);
    const lines = bundleLines(
      { store: h.store, sequencerKey: ctx.keyRecord, deviceKeys: h.keys.all(), policy, now: ctx.clock.now, from: from?.value },
      summary,
    );
    // Pull the header first, so that an early failure is still an ordinary error answer.
    const first = await lines.next();
    async function* rest(): AsyncGenerator<string | Buffer> {
      if (!first.done) yield first.value;
      yield* lines;
    }
    const name = `${encodeURIComponent(h.origin)}-${summary.seq}.ndjson`;
    reply.header('content-type', 'application/x-ndjson; charset=utf-8');
    reply.header('content-disposition', `attachment; filename="${name}"`);
    return reply.send(Readable.from(coalesceLines(rest()), { objectMode: false }));
  });
}
