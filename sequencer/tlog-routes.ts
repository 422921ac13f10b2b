// sequencer/tlog-routes.ts: the C2SP tlog-tiles read API of each hosted log (docs/design.md §7a; c2sp.org
// tlog-tiles, tlog-checkpoint, signed-note at C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9),
// under the prefix `/tlog/{log}/` ({log} = the origin, URL-encoded as one segment):
//   checkpoint                 the latest published checkpoint as a signed note with every C2SP
//                              signature gathered (the log's note signature, cosignature/v1 lines),
//                              text/plain; charset=utf-8, cached a few seconds at most;
//   tile/<L>/<N>[.p/<W>]       Merkle tile hashes (32 bytes each), read from the stored nodes;
//   tile/entries/<N>[.p/<W>]   entry bundles: per leaf, uint16 big-endian length 32 and the 32 raw
//                              bytes of the entry hash (the leaf data of our tree, docs/design.md §4);
// both application/octet-stream, full tiles immutable for a year, partial tiles a few seconds.
// `<N>` must be spelled canonically (zero-padded 3-digit elements, `x` before all but the last),
// `<W>` 1..255; anything else, or a tile beyond the durable tree, is 404 not_found. Also the
// checkpoint as a note from GET /v1/logs/{log}/checkpoint when the client prefers text/plain
// (wantsNote, used by read-routes.ts). Left out: pruning (the minimum index is 0), gzip.
// Invariant: no tile is recomputed from entries; every byte served is what the store holds.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../verifier/index.ts';
import { parseHash } from '../verifier/encoding/index.ts';
import { checkpointToNote } from '../verifier/documents/index.ts';
import { formatTileIndex } from '../verifier/c2sp/index.ts';
import type { Checkpoint } from '../verifier/documents/index.ts';
import { describe, json } from '../platform/index.ts';
import { errors } from './api-schemas.ts';
import { hostedLog, LOG_PARAMS, type SequencerContext } from './context.ts';
import type { HostedLog } from './log-host.ts';

export const NOTE_TYPE = 'text/plain; charset=utf-8';
export const TILE_TYPE = 'application/octet-stream';
export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const SHORT = 'public, max-age=5';
export const TILE_WIDTH = 256;

export interface TilePath {
  /** A Merkle tile level 0..63, or 'entries' for an entry bundle. */
  level: number | 'entries';
  index: number;
  /** 1..256; 256 is a full tile. */
  width: number;
}

const ELEMENT_RE = /^[0-9]{3}$/;
const X_ELEMENT_RE = /^x[0-9]{3}$/;
const LEVEL_RE = /^(0|[1-9][0-9]?)$/;
const WIDTH_RE = /^[1-9][0-9]{0,2}$/;

/** Parse `<L>/<N>[.p/<W>]` or `entries/<N>[.p/<W>]` (the part after `tile/`); undefined when not canonical. */
export { formatTileIndex };

export function parseTilePath(rest: string): TilePath | undefined {
  if (rest.length > 200) return undefined;
  const parts = rest.split('/');
  const head = parts.shift();
  let level: number | 'entries';
  if (head === 'entries') level = 'entries';
  else if (head !== undefined && LEVEL_RE.test(head) && Number(head) <= 63) level = Number(head);
  else return undefined;
  let width = TILE_WIDTH;
  if (parts.length >= 2 && parts[parts.length - 2].endsWith('.p')) {
    const w = parts.pop()!;
    if (!WIDTH_RE.test(w) || Number(w) > 255) return undefined;
    width = Number(w);
    parts[parts.length - 1] = parts[parts.length - 1].slice(0, -2);
  }
  if (parts.length === 0 || parts.length > 6) return undefined;
  let index = 0;
  for (let i = 0; i < parts.length; i++) {
    const last = i === parts.length - 1;
    const p = parts[i];
    if (last ? !ELEMENT_RE.test(p) : !X_ELEMENT_RE.test(p)) return undefined;
    index = index * 1000 + Number(last ? p : p.slice(1));
  }
  if (!Number.isSafeInteger(index) || formatTileIndex(index) !== parts.join('/')) return undefined; // one spelling per index
  return { level, index, width };
}

/** The published checkpoint with the late cosignatures the store gathered since (same head and root). */
export async function publishedCheckpoint(h: HostedLog): Promise<Checkpoint> {
  const cp = h.checkpoints.latestPublished();
  if (!cp) throw new ProtocolError('not_found', `no checkpoint of ${h.origin} is published yet`);
  const stored = await h.store.checkpoint(cp.seq);
  return stored && stored.head === cp.head && stored.root === cp.root ? stored : cp;
}

/** Whether the Accept header prefers text/plain over JSON (the first of the two listed wins). */
export function wantsNote(request: FastifyRequest): boolean {
  const accept = String(request.headers.accept ?? '').toLowerCase();
  const t = accept.search(/text\/plain/);
  if (t < 0) return false;
  const j = accept.search(/application\/json|\*\/\*/);
  return j < 0 || t < j;
}

/** Send a checkpoint as its signed note (404 not_found when it carries no C2SP signature). */
export function sendCheckpointNote(reply: FastifyReply, cp: Checkpoint): FastifyReply {
  const note = checkpointToNote(cp);
  if (!note.ok) throw new ProtocolError('not_found', `checkpoint ${cp.seq} of ${cp.log} has no signed-note form: ${note.detail}`);
  return reply.type(NOTE_TYPE).header('cache-control', SHORT).send(note.value);
}

const TILE_PARAMS = {
  type: 'object',
  properties: { log: LOG_PARAMS.properties.log, '*': { type: 'string', maxLength: 200 } },
  required: ['log'],
} as const;
const BYTES = { type: 'string', format: 'binary' };

export function registerTlogRoutes(app: FastifyInstance, ctx: SequencerContext): void {
  const checkpointDoc = describe({
    summary: 'The latest published checkpoint as a C2SP signed note (tlog-checkpoint): the log note signature and every cosignature/v1',
    tags: ['c2sp'],
    responses: {
      200: json('origin, size, base64 root, a blank line, signature lines', { type: 'string' }, ['text/plain']),
      ...errors('not_found'),
    },
  });
  app.get('/tlog/:log/checkpoint', { schema: { params: LOG_PARAMS, ...checkpointDoc } }, async (request, reply) => {
    const h = hostedLog(ctx, request.params);
    return sendCheckpointNote(reply, await publishedCheckpoint(h));
  });

  const tileDoc = describe({
    summary:
      'C2SP tlog-tiles: a Merkle tile `<L>/<N>[.p/<W>]` (32-byte hashes) or an entry bundle `entries/<N>[.p/<W>]` (uint16-length-prefixed 32-byte entry hashes)',
    tags: ['c2sp'],
    responses: { 200: json('the tile bytes (full tiles immutable)', BYTES, [TILE_TYPE]), ...errors('not_found') },
  });
  app.get('/tlog/:log/tile/*', { schema: { params: TILE_PARAMS, ...tileDoc } }, async (request, reply) => {
    const h = hostedLog(ctx, request.params);
    const rest = (request.params as { '*'?: string })['*'] ?? '';
    const t = parseTilePath(rest);
    if (!t)
      throw new ProtocolError(
        'not_found',
        `tile/${rest.slice(0, 80)} is not a tile path (tlog-tiles: <L>/<N>[.p/<W>] or entries/<N>[.p/<W>])`,
      );
    const body =
      t.level === 'entries' ? await entryBundle(h, t.index, t.width) : Buffer.from(await h.store.tileHashes(t.level, t.index, t.width));
    return reply
      .type(TILE_TYPE)
      .header('cache-control', t.width === TILE_WIDTH ? IMMUTABLE : SHORT)
      .send(body);
  });
}

async function entryBundle(h: HostedLog, index: number, width: number): Promise<Buffer> {
  const first = index * TILE_WIDTH + 1;
  const last = index * TILE_WIDTH + width;
  if (!Number.isSafeInteger(last) || last > h.store.head().seq)
    throw new ProtocolError(
      'not_found',
      `entry bundle ${index} of width ${width} needs ${last} entries; the log has ${h.store.head().seq}`,
    );
  const out = Buffer.alloc(width * 34);
  let i = 0;
  for await (const e of h.store.entries(first, last)) {
    const b = parseHash(e.hash);
    if (!b.ok) throw new Error(`logstore: entry ${e.seq} has a malformed hash`);
    out.writeUInt16BE(32, i * 34);
    out.set(b.value, i * 34 + 2);
    i++;
  }
  if (i !== width) throw new Error(`logstore: entries ${first}..${last} returned ${i} entries`);
  return out;
}
