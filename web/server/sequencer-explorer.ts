// web/server/sequencer-explorer.ts: the sequencer's side of the log explorer (DESIGN §10, §12b):
// the explorer page at `/`, the offline verifier page at `/verifier.html` (the same file an
// auditor can save and open from disk), and the two reads the explorer needs beyond the log API:
//   GET /v1/logs/{log}/policy     the witness policy in force for the log (what `bundle` exports
//                                 against; the explorer checks the checkpoint with it), 404 if none
//   GET /v1/logs/{log}/witnesses  the policy's witnesses and quorum, what each witness connection
//                                 last answered (kid, last cosigned seq, last error) as the
//                                 publisher knows it, and the sequencer's C2SP verifier key
// The page verifies everything it shows from these with the pure verifier; these answers are
// what the sequencer says, not proof. Left out: any write.

import type { FastifyInstance } from 'fastify';
import { ProtocolError } from '../../verifier/errors.ts';
import { publicKeyBytes } from '../../verifier/documents/keys.ts';
import { formatVerifierKey, SIG_ED25519 } from '../../verifier/note/keys.ts';
import { hostedLog, LOG_PARAMS, type SequencerContext } from '../../sequencer/context.ts';
import { policyOf } from '../../sequencer/bundle-route.ts';
import { registerPage } from './pages.ts';

export interface WitnessesAnswer {
  log: string;
  quorum: number;
  witnesses: Array<{ kid: string; owner: string }>;
  /** null when no witness client runs for this log (quorum 0, or no peers configured). */
  publisher: null | {
    quorumMissing: boolean;
    reason: string | null;
    connections: Array<{ addr: string; kid: string | null; knownSeq: number | null; lastCosignedSeq: number | null; lastError: string | null }>;
  };
  /** The C2SP signed-note verifier key of the sequencer for this log (key name = origin). */
  vkey: string | null;
}

export function registerExplorer(app: FastifyInstance, ctx: SequencerContext): void {
  registerPage(app, '/', 'explorer');
  registerPage(app, '/verifier.html', 'verifier');

  app.get('/v1/logs/:log/policy', { schema: { params: LOG_PARAMS } }, async (request, reply) => {
    const h = hostedLog(ctx, request.params);
    const p = await policyOf(ctx, h.origin);
    if (!p) throw new ProtocolError('not_found', `no witness policy of ${h.origin} is configured`);
    reply.header('content-disposition', 'inline; filename="policy.json"');
    return p;
  });

  app.get('/v1/logs/:log/witnesses', { schema: { params: LOG_PARAMS } }, async (request): Promise<WitnessesAnswer> => {
    const h = hostedLog(ctx, request.params);
    const p = await policyOf(ctx, h.origin);
    const st = h.publisher.status?.();
    const pub = ctx.keyRecord.alg === 'EdDSA' ? publicKeyBytes(ctx.keyRecord) : undefined;
    return {
      log: h.origin,
      quorum: p?.quorum ?? 0,
      witnesses: (p?.witnesses ?? []).map((w) => ({ kid: w.kid, owner: w.owner })),
      publisher: st
        ? {
            quorumMissing: st.quorumMissing,
            reason: st.reason ?? null,
            connections: st.witnesses.map((w) => ({ addr: w.addr, kid: w.kid ?? null, knownSeq: w.knownSeq ?? null, lastCosignedSeq: w.lastCosignedSeq ?? null, lastError: w.lastError ?? null })),
          }
        : null,
      vkey: pub?.ok ? formatVerifierKey(h.origin, SIG_ED25519, pub.value) : null,
    };
  });
}
