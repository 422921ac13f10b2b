// witness/server/c2sp-http.ts: the C2SP tlog-witness HTTP interface of our witness (c2sp.org/
// tlog-witness at C2SP/C2SP commit 5ba5ee830903e91240fc6f9f3a7a9293d49e69c9; docs/design.md §7a), on the
// witness's HTTP port, submission and monitoring prefix both the server root:
//   POST /add-checkpoint              c2sp-add-checkpoint.ts decides; any request content type;
//                                     answered before fastify routes (platform/raw-route.ts)
//   GET  /<sha256 hex(origin)>/checkpoint   the signed checkpoint we last cosigned for the log
//                                     (its text, the log's signature lines we verified, our
//                                     cosignature/v1 line), text/plain; 404 if we never did
// The body is read as raw bytes (the note is verified over exactly what arrived), at most
// MAX_C2SP_BODY_BYTES (413). Answers are the spec's plain-text forms, not problem+json (a C2SP
// client reads the status, and for 409 the `text/x.tlog.size` body). Left out: sign-subtree, and
// rate limits (the shared HTTP limits of the witness server apply).
// Invariant: routes only adapt; every decision is made by processC2spAddCheckpoint.

import type { FastifyInstance, FastifyReply } from 'fastify';
import { routeRawPost } from '../../platform/index.ts';
import { sha256 } from '../../verifier/crypto/index.ts';
import { toHex, utf8 } from '../../verifier/encoding/index.ts';
import {
  c2spAnswer,
  MAX_C2SP_BODY_BYTES,
  processC2spAddCheckpoint,
  type C2spCosigned,
  type C2spWitnessDeps,
} from './c2sp-add-checkpoint.ts';
import type { Result } from '../../verifier/index.ts';

export interface C2spHttpDeps {
  witness: C2spWitnessDeps;
  /** Every origin this witness follows (for the origin-hash lookup of the monitoring read). */
  origins: () => Iterable<string>;
  /** Told of every decided request (metrics, logs). */
  onResult?: (r: Result<C2spCosigned>, ms: number) => void;
}

export const originHash = (origin: string): string => toHex(sha256(utf8(origin)));

const ORIGIN_HASH_RE = /^[0-9a-f]{64}$/;

function send(reply: FastifyReply, status: number, contentType: string, body: string): FastifyReply {
  return reply.status(status).header('content-type', contentType).header('cache-control', 'no-store').send(body);
}

/** Register the C2SP routes on `app` (before it listens). */
export function registerC2spRoutes(app: FastifyInstance, deps: C2spHttpDeps): void {
  const byHash = new Map<string, string>();
  const lookup = (h: string): string | undefined => {
    const hit = byHash.get(h);
    if (hit !== undefined) return hit;
    for (const o of deps.origins()) {
      const k = originHash(o);
      byHash.set(k, o);
      if (k === h) return o;
    }
    return undefined;
  };

  // The hot route, on the server before fastify routes (platform/raw-route.ts). Raw bytes,
  // whatever the content type (tlog-witness names none).
  const text = 'text/plain; charset=utf-8';
  routeRawPost(app, {
    path: '/add-checkpoint',
    maxBodyBytes: MAX_C2SP_BODY_BYTES,
    handle: async (body) => {
      const t0 = performance.now();
      const r = await processC2spAddCheckpoint(body, deps.witness);
      deps.onResult?.(r, performance.now() - t0);
      return c2spAnswer(r);
    },
    tooLarge: () => ({ status: 413, contentType: text, body: `body_too_large: at most ${MAX_C2SP_BODY_BYTES} bytes\n` }),
    failed: (err) => ({ status: 503, contentType: text, body: `witness_unavailable: ${String((err as Error)?.message).slice(0, 200)}\n` }),
    closing: () => ({ status: 503, contentType: text, body: 'witness_unavailable: the witness is shutting down\n' }),
  });

  app.get<{ Params: { hash: string } }>('/:hash/checkpoint', async (req, reply) => {
    const h = req.params.hash;
    const origin = ORIGIN_HASH_RE.test(h) ? lookup(h) : undefined;
    const state = origin === undefined ? undefined : await deps.witness.state.get(origin);
    if (!state?.note)
      return send(reply, 404, 'text/plain; charset=utf-8', 'not_found: this witness has cosigned no checkpoint for that origin hash\n');
    return send(reply, 200, 'text/plain; charset=utf-8', state.note);
  });
}
