// sequencer/explorer-routes.ts: the sequencer's side of the log explorer (docs/design.md §10, §12b):
// the explorer page at `/` (and at its own URLs `/logs/{log}`, `/logs/{log}/entries/{seq}`), the
// offline verifier page at `/verifier.html` (the same file an
// auditor can save and open from disk), and the two reads the explorer needs beyond the log API:
//   GET /v1/logs/{log}/policy     the witness policy in force for the log (what `bundle` exports
//                                 against; the explorer checks the checkpoint with it), 404 if none
//   GET /v1/logs/{log}/witnesses  the policy's witnesses, one row each (a witness is its key): its
//                                 name, transports, live state (cosigned / unreachable: why), last
//                                 tried, last cosigned seq and time, last error, latency; the
//                                 quorum; each connection's last answer; the sequencer's C2SP vkey
// The page verifies everything it shows from these with the pure verifier; these answers are
// what the sequencer says, not proof. Left out: any write.

import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '../verifier/index.ts';
import { publicKeyBytes } from '../verifier/signing/index.ts';
import { formatVerifierKey, SIG_ED25519 } from '../verifier/c2sp/note/index.ts';
import { hostedLog, LOG_PARAMS, type SequencerContext } from './context.ts';
import { policyOf } from './bundle-route.ts';
import { sendPage } from '../web/server/index.ts';
import { describe, json, ref } from '../platform/index.ts';
import { errors } from './api-schemas.ts';
import { transportsOf } from './cli-policy.ts';
import { witnessDisplayName } from '../verifier/signing/index.ts';

const page = (summary: string) =>
  describe({
    summary,
    responses: {
      ...errors(),
      200: json('the page (self-contained HTML, with its Content-Security-Policy header)', { type: 'string' }, ['text/html']),
      503: {
        description: 'the pages are not built (text/plain), or the sequencer is stopping (problem+json)',
        content: { 'text/plain': { schema: { type: 'string' } }, 'application/problem+json': { schema: ref('Problem') } },
      },
    },
  });
const ENTRY_PAGE_PARAMS = {
  type: 'object',
  properties: { log: LOG_PARAMS.properties.log, seq: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' } },
  required: ['log', 'seq'],
} as const;

const POLICY = describe({
  summary: 'The witness policy in force for the log (what the explorer checks checkpoints with)',
  responses: { 200: json('the WitnessPolicy document', ref('WitnessPolicy')), ...errors('bad_request', 'not_found') },
});
const WITNESSES = describe({
  summary: "The policy's witnesses, what each witness connection last answered, and the sequencer's C2SP vkey",
  responses: { 200: json('what the sequencer says (not proof)', ref('Witnesses')), ...errors('bad_request', 'not_found') },
});

export interface WitnessRowAnswer {
  name: string;
  kid: string;
  owner: string;
  transports: Array<{ transport: 'libp2p' | 'http'; addr: string }>;
  /** `cosigned`, `unreachable: <why>`, `refused: <code>`, `cosignature not counted: …`, `not asked yet`, or why it is not asked. */
  state: string;
  lastTriedAt: string | null;
  lastCosignedSeq: number | null;
  lastCosignedAt: string | null;
  lastError: string | null;
  latencyMs: number | null;
}

export interface WitnessesAnswer {
  log: string;
  quorum: number;
  /** False when the log is unwitnessed (quorum 0, or no policy): the explorer should say so. */
  witnessed: boolean;
  /**
   * One row per policy witness (a witness is its key, verifier/signing/witness-identity.ts): its
   * one name, its transports, and its live state as the publisher knows it.
   */
  witnesses: WitnessRowAnswer[];
  /** null when no witness client runs for this log (quorum 0, or no peers configured). */
  publisher: null | {
    quorumMissing: boolean;
    reason: string | null;
    connections: Array<{
      addr: string;
      kid: string | null;
      knownSeq: number | null;
      lastCosignedSeq: number | null;
      lastError: string | null;
    }>;
  };
  /** The C2SP signed-note verifier key of the sequencer for this log (key name = origin). */
  vkey: string | null;
}

export function registerExplorer(app: FastifyInstance, ctx: SequencerContext): void {
  app.get('/', { schema: page('The log explorer (web/)') }, async (_request, reply) => sendPage(reply, 'explorer'));
  // The explorer's own URLs (web/src/explorer/router.ts): a log, and one entry of it, to bookmark and share.
  const explorerAt = page('The log explorer, showing one log or one entry of it (a stable URL)');
  app.get('/logs/:log', { schema: { params: LOG_PARAMS, ...explorerAt } }, async (_request, reply) => sendPage(reply, 'explorer'));
  app.get('/logs/:log/entries/:seq', { schema: { params: ENTRY_PAGE_PARAMS, ...explorerAt } }, async (_request, reply) =>
    sendPage(reply, 'explorer'),
  );
  app.get('/verifier.html', { schema: page('The offline verifier page (works saved to disk; no network)') }, async (_request, reply) =>
    sendPage(reply, 'verifier'),
  );

  app.get('/v1/logs/:log/policy', { schema: { params: LOG_PARAMS, ...POLICY } }, async (request, reply) => {
    const h = hostedLog(ctx, request.params);
    const p = await policyOf(ctx, h.origin);
    if (!p) throw new ProtocolError('not_found', `no witness policy of ${h.origin} is configured`);
    reply.header('content-disposition', 'inline; filename="policy.json"');
    return p;
  });

  app.get('/v1/logs/:log/witnesses', { schema: { params: LOG_PARAMS, ...WITNESSES } }, async (request): Promise<WitnessesAnswer> => {
    const h = hostedLog(ctx, request.params);
    const p = await policyOf(ctx, h.origin);
    const st = h.publisher.status?.();
    const pub = ctx.keyRecord.alg === 'EdDSA' ? publicKeyBytes(ctx.keyRecord) : undefined;
    return {
      log: h.origin,
      quorum: p?.quorum ?? 0,
      witnessed: (p?.quorum ?? 0) > 0,
      witnesses: (p?.witnesses ?? []).map((w): WitnessRowAnswer => {
        const row = st?.rows?.find((r) => r.name === witnessDisplayName(w)); // the name is derived from the key
        return {
          name: witnessDisplayName(w),
          kid: w.kid,
          owner: w.owner,
          transports: row?.transports ?? transportsOf(w, ctx.config.witnessPeers),
          state: row?.state ?? (p!.quorum === 0 ? 'not asked: the policy asks for no witness (quorum 0)' : 'not asked yet'),
          lastTriedAt: row?.lastTriedAt ?? null,
          lastCosignedSeq: row?.lastCosignedSeq ?? null,
          lastCosignedAt: row?.lastCosignedAt ?? null,
          lastError: row?.lastError ?? null,
          latencyMs: row?.latencyMs ?? null,
        };
      }),
      publisher: st
        ? {
            quorumMissing: st.quorumMissing,
            reason: st.reason ?? null,
            connections: st.witnesses.map((w) => ({
              addr: w.addr,
              kid: w.kid ?? null,
              knownSeq: w.knownSeq ?? null,
              lastCosignedSeq: w.lastCosignedSeq ?? null,
              lastError: w.lastError ?? null,
            })),
          }
        : null,
      vkey: pub?.ok ? formatVerifierKey(h.origin, SIG_ED25519, pub.value) : null,
    };
  });
}
