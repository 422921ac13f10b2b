// witness/client/publisher.ts: the sequencer's side of witnessing one log (docs/design.md §7): given a newly
// signed checkpoint, ask every configured witness in parallel (each over its one long-lived
// stream, connection.ts), resend from `knownSeq` when a witness answers `conflict` (the consistency
// proof then starts at the witness's size), and resolve with the checkpoint as soon as the policy's
// quorum of valid cosignatures is in (verifyCheckpoint decides, with the same policy an auditor
// uses). Cosignatures that arrive after that are kept: persisted with the store's putCheckpoint
// (which merges cosignatures) and gossiped. An unchanged checkpoint is re-submitted every
// `resubmitMs` so its cosignature timestamps stay fresh. Quorum lost: publish resolves undefined,
// nothing is published, `cookwala_quorum_missing` is 1, and one `quorum_lost` log line says why
// (one `quorum_restored` when it is met again). A witness that starts failing is one
// `witness_error` line per change of its failure code; a witness answering fork_detected is
// `fork_detected` (error). The logger comes in deps (platform/logger.ts); every line has `log`.
// It plugs into sequencer/checkpointer.ts as its CheckpointPublisher. A witness is a libp2p
// connection (connection.ts) or a C2SP tlog-witness over HTTP (c2sp-http.ts): both answer the same
// request shape, their cosignatures (JCS or cosignature/v1) are checked with the same policy, and
// they count toward ONE quorum (verifyCheckpoint counts each policy witness once). The log's own
// note signature travels with every request and stays on every checkpoint.
// Invariants: a cosignature is kept only if it verifies with the policy key of its kid; the
// requests to one witness never overlap (a newer checkpoint supersedes a queued older one).

import { fail, type Result } from '../../verifier/index.ts';
import { addCosignature, cosignerOf, mergeCosignatures, verifyCheckpoint, type Checkpoint } from '../../verifier/documents/index.ts';
import { isLogNoteAlg, type CheckpointSignature } from '../../verifier/documents/index.ts';
import { cosignaturesOf, ownSignatures, witnessState, type AnyReply } from './reply.ts';

export { witnessState };
import type { KeyRecord } from '../../verifier/signing/index.ts';
import { findWitness, sameWitness, witnessDisplayName } from '../../verifier/signing/index.ts';
import type { AddCheckpointRequest } from '../wire/messages.ts';
import { silentLogger } from '../../platform/index.ts';
import type { AnyWitnessConnection, PublisherDeps, PublisherOptions, WitnessRow, CheckpointPublisherImpl } from './publisher-types.ts';

export type {
  AnyWitnessConnection,
  PublisherStore,
  PublisherMetrics,
  PublisherDeps,
  PublisherOptions,
  WitnessStatus,
  WitnessRow,
  CheckpointPublisherImpl,
} from './publisher-types.ts';

interface Peer {
  conn: AnyWitnessConnection;
  transport: 'libp2p' | 'http';
  known: number | undefined;
  lastCosigned: number | undefined;
  lastCosignedAt: number | undefined;
  lastError: string | undefined;
  lastState: string | undefined;
  lastTriedAt: number | undefined;
  latencyMs: number | undefined;
  /** The failure code last logged as witness_error (undefined after a cosignature). */
  loggedCode: string | undefined;
  /** The policy witness this connection reaches: given (an HTTP witness, a peer of a known key) or learned from its first valid cosignature. */
  witness: KeyRecord | undefined;
  chain: Promise<unknown>;
}

interface Round {
  cp: Checkpoint;
  published: Checkpoint | undefined;
}

const MAX_RESENDS = 3;

export function createCheckpointPublisher(deps: PublisherDeps, opts: PublisherOptions = {}): CheckpointPublisherImpl {
  const logger = (deps.logger ?? silentLogger()).child({ log: deps.policy.log });
  const clock = deps.clock ?? Date.now;
  const labels = { log: deps.policy.log };
  const peers: Peer[] = deps.witnesses.map((conn) => {
    const given = 'witness' in conn && conn.witness ? conn.witness : deps.witnessOf?.(conn.addr);
    return {
      conn,
      transport: 'witness' in conn ? ('http' as const) : ('libp2p' as const),
      known: undefined,
      lastCosigned: undefined,
      lastCosignedAt: undefined,
      lastError: undefined,
      lastState: undefined,
      lastTriedAt: undefined,
      latencyMs: undefined,
      loggedCode: undefined,
      witness: given ? findWitness(deps.policy.witnesses, given) : undefined,
      chain: Promise.resolve(),
    };
  });
  const nameOf = (p: Peer) => (p.witness ? witnessDisplayName(p.witness) : `${p.transport} ${p.conn.addr}`);
  const witnessLabels = (p: Peer) => ({ ...labels, witness: nameOf(p), transport: p.transport });
  let newest: Checkpoint | undefined;
  let latest: Checkpoint | undefined;
  let lastRoundAt = 0;
  let reason: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const quorum = deps.policy.quorum;

  const setMissing = (why: string | undefined) => {
    deps.metrics?.set('cookwala_quorum_missing', why ? 1 : 0, labels);
    if (why && !reason) logger.warn({ event: 'quorum_lost', quorum, reason: why }, `witness quorum lost, nothing published: ${why}`);
    else if (why && why !== reason) logger.debug({ quorum, reason: why }, `witness quorum still missing: ${why}`);
    if (!why && reason) logger.info({ event: 'quorum_restored', quorum }, 'witness quorum restored');
    reason = why;
  };

  const buildRequest = async (oldSeq: number, cp: Checkpoint): Promise<AddCheckpointRequest> => {
    const req: AddCheckpointRequest = {
      type: 'add-checkpoint',
      oldSeq,
      consistency: oldSeq > 0 && oldSeq < cp.seq ? await deps.store.consistencyProof(oldSeq, cp.seq) : [],
      headProof: cp.seq > 0 ? await deps.store.inclusionProof(cp.seq, cp.seq) : [],
      checkpoint: { ...cp, signature: ownSignatures(cp) },
    };
    if (oldSeq === 0) {
      const d = deps.store.descriptor();
      if (d) req.descriptor = d;
    }
    return req;
  };

  /** One witness's cosignatures for cp, resending from knownSeq on conflict. */
  const askOnce = async (p: Peer, cp: Checkpoint): Promise<Result<CheckpointSignature[]>> => {
    if (newest && newest.seq > cp.seq && cp !== latest) return fail('conflict', 'superseded by a newer checkpoint');
    for (let attempt = 0; attempt <= MAX_RESENDS; attempt++) {
      const oldSeq = Math.min(p.known ?? 0, cp.seq);
      const req = await buildRequest(oldSeq, cp);
      const t0 = clock();
      p.lastTriedAt = t0;
      const r = cosignaturesOf((await p.conn.request(req, { timeoutMs: opts.timeoutMs })) as Result<AnyReply>);
      p.latencyMs = clock() - t0;
      deps.metrics?.observe?.('cookwala_witness_request_seconds', p.latencyMs / 1000, witnessLabels(p));
      if (r.ok) {
        p.known = cp.seq;
        p.lastError = undefined;
        return r;
      }
      p.lastError = `${r.code}: ${r.detail}`;
      if (r.code === 'conflict' && typeof r.knownSeq === 'number') {
        const k = r.knownSeq;
        if (k > cp.seq) {
          p.known = k;
          return fail('conflict', `witness ${nameOf(p)} has cosigned seq ${k}, beyond ours (${cp.seq})`, { knownSeq: k });
        }
        if (k === oldSeq) return r; // no progress: do not loop
        p.known = k;
        continue;
      }
      if (r.code === 'fork_detected')
        logger.error(
          { event: 'fork_detected', seq: cp.seq, witness: nameOf(p), addr: p.conn.addr, source: 'witness', detail: r.detail },
          `witness ${nameOf(p)} holds another checkpoint at seq ${cp.seq}: ${r.detail}`,
        );
      return r;
    }
    return fail('conflict', `witness ${nameOf(p)} kept moving`);
  };

  const ask = (p: Peer, cp: Checkpoint): Promise<Result<CheckpointSignature[]>> => {
    const run = p.chain.then(() => askOnce(p, cp));
    p.chain = run.catch(() => undefined);
    return run.catch((e) => fail('witness_unavailable', (e as Error).message));
  };

  /**
   * Keep the cosignatures that verify, by the policy witness whose key made them (never by kid:
   * witness-identity.ts); the connection is that witness from then on. Returns what did not count.
   */
  const accept = (round: Round, p: Peer, sigs: CheckpointSignature[]): string[] => {
    const refused: string[] = [];
    for (const sig of sigs) {
      const w = cosignerOf(round.cp, sig, deps.policy);
      if (!w.ok) {
        refused.push(`${sig.kid}: ${w.code}`);
        logger.warn(
          {
            event: 'witness_error',
            witness: nameOf(p),
            transport: p.transport,
            addr: p.conn.addr,
            kid: sig.kid,
            code: w.code,
            detail: w.detail,
          },
          `ignored a cosignature by ${sig.kid} from ${nameOf(p)}: ${w.code}`,
        );
        continue;
      }
      if (p.witness && !sameWitness(p.witness, w.value)) {
        refused.push(`${sig.kid}: unknown_key`);
        logger.warn(
          { event: 'witness_error', witness: nameOf(p), transport: p.transport, addr: p.conn.addr, kid: sig.kid, code: 'unknown_key' },
          `${nameOf(p)} answered with the cosignature of another witness (${witnessDisplayName(w.value)}): not counted for it`,
        );
        continue;
      }
      p.witness ??= w.value;
      round.cp = addCosignature(round.cp, sig);
    }
    return refused;
  };

  /** The policy witnesses that cosigned a checkpoint, each once, by key. */
  const cosignersOf = (cp: Checkpoint): KeyRecord[] => {
    const out: KeyRecord[] = [];
    for (const sig of cp.signature.slice(1)) {
      if (isLogNoteAlg(sig.alg)) continue;
      const w = cosignerOf(cp, sig, deps.policy);
      if (w.ok && !out.some((x) => sameWitness(x, w.value))) out.push(w.value);
    }
    return out;
  };

  /** After a peer's answer: its state, metrics, and a log line when its state changed. */
  const note = (p: Peer, cp: Checkpoint, r: Result<CheckpointSignature[]>, refused: string[]) => {
    const l = witnessLabels(p);
    const counted = r.ok && refused.length < r.value.length;
    if (counted) {
      p.lastCosigned = cp.seq;
      p.lastCosignedAt = clock();
      deps.metrics?.set('cookwala_witness_cosigned_size', cp.seq, l);
      deps.metrics?.set('cookwala_witness_cosigned_timestamp_seconds', Math.floor(p.lastCosignedAt / 1000), l);
      deps.metrics?.set('cookwala_witness_up', 1, l);
      if (p.lastState !== 'cosigned')
        logger.info(
          { event: 'witness_cosigned', witness: nameOf(p), transport: p.transport, addr: p.conn.addr, seq: cp.seq, latencyMs: p.latencyMs },
          `witness ${nameOf(p)} (${p.transport}) cosigned seq ${cp.seq}`,
        );
      p.lastState = 'cosigned';
      p.loggedCode = undefined;
      return;
    }
    const code = r.ok ? 'bad_cosignature' : r.code;
    const state = r.ok ? `cosignature not counted: ${refused.join(', ')}` : witnessState(r.code, r.detail);
    p.lastState = state;
    if (!r.ok) p.lastError = `${r.code}: ${r.detail}`;
    deps.metrics?.set('cookwala_witness_up', 0, l);
    deps.metrics?.inc('cookwala_witness_errors_total', { ...l, code });
    if (code !== 'fork_detected' && code !== p.loggedCode) {
      p.loggedCode = code;
      logger.warn(
        {
          event: 'witness_error',
          seq: cp.seq,
          witness: nameOf(p),
          transport: p.transport,
          addr: p.conn.addr,
          code,
          state,
          detail: r.ok ? refused.join(', ') : r.detail,
          latencyMs: p.latencyMs,
          lastCosignedSeq: p.lastCosigned ?? null,
          lastCosignedAt: p.lastCosignedAt === undefined ? null : new Date(p.lastCosignedAt).toISOString(),
        },
        `witness ${nameOf(p)} (${p.transport}): ${state}`,
      );
    }
  };

  /** One row per policy witness: its transports merged, its best state (cosigned wins). */
  const rows = (): WitnessRow[] => {
    const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
    const out: WitnessRow[] = deps.policy.witnesses.map((w) => {
      const mine = peers.filter((p) => p.witness && sameWitness(p.witness, w));
      const best = mine.find((p) => p.lastState === 'cosigned') ?? mine.find((p) => p.lastState !== undefined) ?? mine[0];
      const last = (f: (p: Peer) => number | undefined) => Math.max(-1, ...mine.map((p) => f(p) ?? -1));
      const cosignedAt = last((p) => p.lastCosignedAt);
      const triedAt = last((p) => p.lastTriedAt);
      const cosignedSeq = last((p) => p.lastCosigned);
      return {
        name: witnessDisplayName(w),
        kid: w.kid,
        transports: mine.map((p) => ({ transport: p.transport, addr: p.conn.addr })),
        state: best?.lastState ?? (mine.length ? 'not asked yet' : 'not asked: no transport (no libp2p peer of this key, no url)'),
        lastTriedAt: iso(triedAt < 0 ? undefined : triedAt),
        lastCosignedSeq: cosignedSeq < 0 ? undefined : cosignedSeq,
        lastCosignedAt: iso(cosignedAt < 0 ? undefined : cosignedAt),
        lastError: mine.map((p) => p.lastError).find((e) => e !== undefined),
        latencyMs: best?.latencyMs,
      };
    });
    // A libp2p peer not yet known to be a policy witness (it has not cosigned, and its key was not given).
    for (const p of peers.filter((x) => !x.witness))
      out.push({
        name: nameOf(p),
        kid: '',
        transports: [{ transport: p.transport, addr: p.conn.addr }],
        state: p.lastState ?? 'not asked yet',
        lastTriedAt: iso(p.lastTriedAt),
        lastCosignedSeq: undefined,
        lastCosignedAt: undefined,
        lastError: p.lastError,
        latencyMs: p.latencyMs,
      });
    return out;
  };

  /** Ask everyone; resolve at quorum (with the cosigned checkpoint) or when all answered without it. */
  const runRound = (cp: Checkpoint): Promise<Checkpoint | undefined> => {
    lastRoundAt = clock();
    // Counted afresh each round: only cosignatures this round collected make its quorum.
    const round: Round = { cp: { ...cp, signature: ownSignatures(cp) }, published: undefined };
    let resolve!: (v: Checkpoint | undefined) => void;
    const done = new Promise<Checkpoint | undefined>((r) => (resolve = r));
    const tryQuorum = () => {
      if (round.published) return;
      const v = verifyCheckpoint(round.cp, deps.policy);
      if (!v.ok) return;
      round.published = round.cp;
      if (!latest || round.cp.seq > latest.seq) latest = round.cp;
      else if (latest.hash === round.cp.hash) latest = mergeCosignatures(round.cp, latest);
      setMissing(undefined);
      deps.metrics?.inc('cookwala_checkpoints_cosigned_total', labels);
      void deps.gossip?.(round.cp).catch((e) => logger.warn({ event: 'witness_error', err: e }, 'gossip of a cosigned checkpoint failed'));
      resolve(round.cp);
    };
    tryQuorum(); // quorum 0
    const asks = peers.map(async (p) => {
      const r = await ask(p, cp);
      const refused = r.ok ? accept(round, p, r.value) : [];
      note(p, cp, r, refused);
      if (r.ok) tryQuorum();
      return r;
    });
    void Promise.all(asks).then(async () => {
      if (!round.published) {
        // Each witness by name, once, with why it did not count (never the sequencer's own signatures).
        const have = cosignersOf(round.cp);
        const why = rows()
          .map((w) => `${w.name}: ${w.state}`)
          .join('; ');
        setMissing(`seq ${cp.seq}: ${have.length} cosignature${have.length === 1 ? '' : 's'} (quorum ${quorum}): ${why}`);
        resolve(undefined);
        return;
      }
      // Late cosignatures: keep them with the checkpoint and tell the network.
      if (round.cp !== round.published && !closed) {
        if (latest && latest.hash === round.cp.hash) latest = mergeCosignatures(round.cp, latest);
        try {
          await deps.store.putCheckpoint(round.cp);
          await deps.gossip?.(round.cp);
        } catch (e) {
          logger.warn({ event: 'witness_error', seq: cp.seq, err: e }, `keeping late cosignatures for seq ${cp.seq} failed`);
        }
      }
    });
    return done;
  };

  return {
    publish(cp) {
      if (closed) return Promise.resolve(undefined);
      if (!newest || cp.seq >= newest.seq) newest = cp;
      return runRound(cp);
    },
    latest: () => latest,
    status: () => ({
      quorumMissing: reason !== undefined,
      reason,
      witnesses: peers.map((p) => ({
        addr: p.conn.addr,
        knownSeq: p.known,
        lastCosignedSeq: p.lastCosigned,
        lastError: p.lastError,
        kid: p.witness?.kid,
      })),
      rows: rows(),
    }),
    start() {
      const every = opts.resubmitMs ?? 30_000;
      if (timer || every <= 0) return;
      timer = setInterval(
        () => {
          const cp = latest;
          if (!cp || closed || clock() - lastRoundAt < every || (newest && newest.seq > cp.seq)) return;
          // Same checkpoint, fresh cosignatures; the result is persisted like late ones.
          void runRound(cp).then(async (out) => {
            if (out && !closed)
              await deps.store
                .putCheckpoint(out)
                .catch((e) => logger.warn({ event: 'witness_error', seq: out.seq, err: e }, 'keeping re-submitted cosignatures failed'));
          });
        },
        Math.max(100, Math.min(every, 5000)),
      );
      timer.unref();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await Promise.allSettled(peers.map((p) => p.chain));
    },
  };
}
