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

import { fail, type Result } from '../../verifier/errors.ts';
import { addCosignature, mergeCosignatures, verifyCheckpoint, type Checkpoint } from '../../verifier/documents/checkpoint.ts';
import { verifyHashSignature } from '../../verifier/documents/signature.ts';
import {
  isC2spCosignatureAlg,
  NOTE_ED25519,
  verifyCheckpointC2spCosignature,
  witnessCosignatureKey,
  type C2spSignature,
  type CheckpointSignature,
} from '../../verifier/documents/checkpoint-c2sp.ts';
import type { LogDescriptor } from '../../verifier/documents/log-descriptor.ts';
import type { WitnessPolicy } from '../../verifier/documents/policy.ts';
import type { AddCheckpointRequest } from '../wire/messages.ts';
import type { WitnessConnection } from './connection.ts';
import type { C2spWitnessConnection } from './c2sp-http.ts';

/** A witness the publisher can ask: over libp2p or over C2SP HTTP. */
export type AnyWitnessConnection = WitnessConnection | C2spWitnessConnection;

type AnyReply = { ok: true; cosignature: CheckpointSignature } | { ok: false; code: string; detail: string; knownSeq?: number };

/** A reply that is a cosignature, or the failure it carries. */
function cosignatureOf(r: Result<AnyReply>): Result<CheckpointSignature> {
  if (!r.ok) return r;
  if (r.value.ok) return { ok: true, value: r.value.cosignature };
  const { ok: _ok, code, detail, ...extra } = r.value;
  return fail(code as never, detail, extra);
}

/** The sequencer's own signatures of a checkpoint: the JCS one and the C2SP note signature. */
function ownSignatures(cp: Checkpoint): CheckpointSignature[] {
  return cp.signature.filter((s, i) => i === 0 || s.alg === NOTE_ED25519);
}
import { silentLogger, type Logger } from '../../platform/logger.ts';

export interface PublisherStore {
  descriptor(): LogDescriptor | undefined;
  inclusionProof(seq: number, size: number): Promise<string[]>;
  consistencyProof(from: number, to: number): Promise<string[]>;
  putCheckpoint(cp: Checkpoint): Promise<void>;
}

/** The part of a metrics registry the publisher sets (the sequencer's registry fits). */
export interface PublisherMetrics {
  set(name: string, value: number, labels?: Record<string, string>): void;
  inc(name: string, labels?: Record<string, string>, n?: number): void;
  observe?(name: string, value: number, labels?: Record<string, string>): void;
}

export interface PublisherDeps {
  store: PublisherStore;
  policy: WitnessPolicy;
  witnesses: AnyWitnessConnection[];
  gossip?: (cp: Checkpoint) => Promise<void>;
  /** The service logger (bound here to the log: `log` field); default silent. */
  logger?: Logger;
  metrics?: PublisherMetrics;
  clock?: () => number;
}

export interface PublisherOptions {
  /** Per-request reply timeout. */
  timeoutMs?: number;
  /** Re-ask the witnesses about an unchanged published checkpoint this often (0: never). */
  resubmitMs?: number;
}

export interface WitnessStatus {
  addr: string;
  knownSeq: number | undefined;
  lastCosignedSeq: number | undefined;
  lastError: string | undefined;
  /** The kid of this witness's last valid cosignature (how a status names the policy witness). */
  kid?: string;
}

export interface CheckpointPublisherImpl {
  publish(cp: Checkpoint): Promise<Checkpoint | undefined>;
  /** The latest quorum-cosigned checkpoint, late cosignatures included. */
  latest(): Checkpoint | undefined;
  status(): { quorumMissing: boolean; reason: string | undefined; witnesses: WitnessStatus[] };
  start(): void;
  close(): Promise<void>;
}

interface Peer {
  conn: AnyWitnessConnection;
  known: number | undefined;
  lastCosigned: number | undefined;
  lastError: string | undefined;
  /** The failure code last logged as witness_error (undefined after a cosignature). */
  loggedCode: string | undefined;
  kid: string | undefined;
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
  const peers: Peer[] = deps.witnesses.map((conn) => ({
    conn,
    known: undefined,
    lastCosigned: undefined,
    lastError: undefined,
    loggedCode: undefined,
    kid: undefined,
    chain: Promise.resolve(),
  }));
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

  /** One witness's cosignature for cp, resending from knownSeq on conflict. */
  const askOnce = async (p: Peer, cp: Checkpoint): Promise<Result<CheckpointSignature>> => {
    if (newest && newest.seq > cp.seq && cp !== latest) return fail('conflict', 'superseded by a newer checkpoint');
    for (let attempt = 0; attempt <= MAX_RESENDS; attempt++) {
      const oldSeq = Math.min(p.known ?? 0, cp.seq);
      const r = cosignatureOf((await p.conn.request(await buildRequest(oldSeq, cp), { timeoutMs: opts.timeoutMs })) as Result<AnyReply>);
      if (r.ok) {
        p.known = cp.seq;
        p.lastCosigned = cp.seq;
        p.lastError = undefined;
        p.kid = r.value.kid;
        return r;
      }
      p.lastError = `${r.code}: ${r.detail}`;
      if (r.code === 'conflict' && typeof r.knownSeq === 'number') {
        const k = r.knownSeq;
        if (k > cp.seq) {
          p.known = k;
          return fail('conflict', `witness ${p.conn.addr} has cosigned seq ${k}, beyond ours (${cp.seq})`, { knownSeq: k });
        }
        if (k === oldSeq) return r; // no progress: do not loop
        p.known = k;
        continue;
      }
      if (r.code === 'fork_detected')
        logger.error(
          { event: 'fork_detected', seq: cp.seq, witness: p.conn.addr, source: 'witness', detail: r.detail },
          `witness ${p.conn.addr} holds another checkpoint at seq ${cp.seq}: ${r.detail}`,
        );
      return r;
    }
    return fail('conflict', `witness ${p.conn.addr} kept moving`);
  };

  const ask = (p: Peer, cp: Checkpoint): Promise<Result<CheckpointSignature>> => {
    const run = p.chain.then(() => askOnce(p, cp));
    p.chain = run.catch(() => undefined);
    return run.catch((e) => fail('witness_unavailable', (e as Error).message));
  };

  const c2spKid = (k: (typeof deps.policy.witnesses)[number]) => {
    const v = witnessCosignatureKey(k);
    return v.ok && v.value ? `${v.value.name}+${v.value.keyId}` : undefined;
  };
  const accept = (round: Round, sig: CheckpointSignature): boolean => {
    const c2sp = isC2spCosignatureAlg(sig.alg);
    const key = deps.policy.witnesses.find((k) => (c2sp ? c2spKid(k) === sig.kid : k.kid === sig.kid));
    if (!key) return false;
    const v = c2sp
      ? verifyCheckpointC2spCosignature(round.cp, sig as C2spSignature, key)
      : verifyHashSignature(round.cp.hash, 'Checkpoint', sig, key, { role: 'witness' });
    if (!v.ok) {
      logger.warn(
        { event: 'witness_error', kid: sig.kid, code: v.code, detail: v.detail },
        `ignored a cosignature by ${sig.kid}: ${v.code}`,
      );
      return false;
    }
    round.cp = addCosignature(round.cp, sig);
    return true;
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
      if (r.ok) p.loggedCode = undefined;
      else if (r.code !== 'fork_detected' && r.code !== p.loggedCode) {
        p.loggedCode = r.code;
        logger.warn(
          { event: 'witness_error', seq: cp.seq, witness: p.conn.addr, code: r.code, detail: r.detail },
          `witness ${p.conn.addr}: ${r.code}`,
        );
      }
      if (r.ok && accept(round, r.value)) tryQuorum();
      return r;
    });
    void Promise.all(asks).then(async (results) => {
      if (!round.published) {
        const have = round.cp.signature.length - ownSignatures(round.cp).length;
        const why = results
          .map((r, i) => `${peers[i].conn.addr.split('/p2p/')[1]?.slice(-8) ?? peers[i].conn.addr}: ${r.ok ? 'cosigned' : r.code}`)
          .join(', ');
        setMissing(`seq ${cp.seq}: ${have} of ${quorum} cosignatures (${why})`);
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
        kid: p.kid,
      })),
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
