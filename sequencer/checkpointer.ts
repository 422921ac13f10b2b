// sequencer/checkpointer.ts: signed checkpoints (docs/design.md §4, §6, §7). Every checkpointIntervalMs,
// if the durable head moved (or none was signed yet), sign a checkpoint over it (seq, head hash,
// Merkle root), persist it with putCheckpoint (synced) and only then hand it to the publisher.
// "Latest signed" and "latest published" are kept apart: GET …/checkpoint serves the published
// one. The publisher is the witness hook: publish(cp) resolves with the checkpoint to publish
// (cosigned up to the policy quorum) or undefined when the quorum was not met; a cosigned result
// is persisted (same head and root, more signatures) before it is served. With quorum 0 (no
// witnesses yet) the default publisher publishes each signed checkpoint as is. Each checkpoint
// also carries the log's C2SP note signature (docs/design.md §4, §7a: Ed25519 by the sequencer key over the
// tlog-checkpoint body, key name = origin), made at the same time as the JCS signature, and, when the
// sequencer has an ML-DSA-44 key, the log's ML-DSA-44 signature (note-mldsa44, subtree/v1 message).
// Invariants: only durable heads are signed (store.head() moves only after a synced append); a
// checkpoint is on disk (in the store, then in the mark file outside it, checkpoint-mark.ts)
// before anyone can see it; ticks never overlap. Left out: collecting late
// cosignatures and periodic re-submission (the witness client's job, docs/design.md §7).
// Logs (info): `checkpoint_signed` per newly signed checkpoint, `checkpoint_published` per
// newly published one, both with seq and head; the latter also with `cosignatures`, the number of
// policy witnesses that cosigned (each once, by key; never the sequencer's own signatures), and
// `witnesses`, their display names.

import { formatTime } from '../verifier/encoding/index.ts';
import {
  buildCheckpoint,
  verifyCheckpoint,
  withLogNoteSignature,
  witnessSignatures,
  type Checkpoint,
  type LogMldsaSigner,
} from '../verifier/documents/index.ts';
import type { WitnessPolicy } from '../verifier/documents/index.ts';
import type { WitnessRow } from '../witness/client/index.ts';
import type { Signer } from '../verifier/signing/index.ts';
import type { LogStore } from '../logstore/index.ts';
import type { Clock } from '../platform/index.ts';
import type { Metrics } from './metrics.ts';
import type { Logger } from '../platform/index.ts';
import type { CheckpointMark } from './checkpoint-mark.ts';

export interface CheckpointPublisher {
  /** Called with each newly signed, already persisted checkpoint. */
  publish(cp: Checkpoint): Promise<Checkpoint | undefined>;
  close?(): Promise<void>;
  /** What the witnesses last answered (the explorer shows it); publishers without witnesses have none. */
  status?(): PublisherStatus;
}

export interface PublisherStatus {
  quorumMissing: boolean;
  reason: string | undefined;
  witnesses: Array<{
    addr: string;
    kid?: string;
    knownSeq: number | undefined;
    lastCosignedSeq: number | undefined;
    lastError: string | undefined;
  }>;
  /** One row per policy witness, all its transports together (witness/client/publisher.ts WitnessRow). */
  rows?: WitnessRow[];
}

/** Publish as is: for a policy with quorum 0. */
export const publishUnwitnessed: CheckpointPublisher = { publish: async (cp) => cp };

/** Never publish: a policy asks for witnesses but no witness client is plugged in. */
export const publishNever: CheckpointPublisher = { publish: async () => undefined };

export interface Checkpointer {
  /** Sign (if the head moved) and publish; resolves when done. Concurrent calls share one run. */
  tick(): Promise<void>;
  latestSigned(): Checkpoint | undefined;
  latestPublished(): Checkpoint | undefined;
  start(intervalMs: number): void;
  /** Stop the timer and wait for a running tick. */
  stop(): Promise<void>;
}

export interface CheckpointerOptions {
  store: LogStore;
  log: string;
  signer: Signer;
  /** The log's ML-DSA-44 signer: each checkpoint then also carries a note-mldsa44 signature. */
  mldsa?: LogMldsaSigner;
  clock: Clock;
  publisher: CheckpointPublisher;
  /** Cosignatures a stored checkpoint needs to count as published after a restart. */
  quorum: number;
  /** The policy the quorum comes from: with it, a stored checkpoint counts each witness once, whichever forms it signed in. */
  policy?: WitnessPolicy;
  metrics?: Metrics;
  /** A logger bound to this log (`log` field). */
  logger?: Logger;
  /** The high-water mark outside the store (checkpoint-mark.ts), written before publishing. */
  mark?: CheckpointMark;
  onError?(e: unknown): void;
}

/** How many stored checkpoints a restart looks back through for the latest published one. */
export const RESTORE_LOOKBACK = 10_000;

export async function createCheckpointer(o: CheckpointerOptions): Promise<Checkpointer> {
  const labels = { log: o.log };
  // A witness may have signed in both forms (JCS cosignature and cosignature/v1): with the policy,
  // verifyCheckpoint counts it once; without one (tests), every witness signature counts.
  const meetsQuorum = (cp: Checkpoint) =>
    o.quorum === 0 || (o.policy ? verifyCheckpoint(cp, o.policy).ok : witnessSignatures(cp).length >= o.quorum);
  let signed = await o.store.latestCheckpoint();
  let published = signed && meetsQuorum(signed) ? signed : undefined;
  if (signed && !published) {
    // After a restart the newest stored checkpoint may still wait for its witnesses: serve the
    // newest one that had its cosignatures (bounded look-back) rather than nothing.
    let looked = 0;
    for await (const cp of o.store.checkpoints({ reverse: true })) {
      if (meetsQuorum(cp)) {
        published = cp;
        break;
      }
      if (++looked >= RESTORE_LOOKBACK) break;
    }
  }
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  if (signed) await o.mark?.write(signed); // a crash may have come between the store and the mark
  if (signed) o.metrics?.set('cookwala_checkpoint_seq', signed.seq, labels);
  if (published) o.metrics?.set('cookwala_checkpoint_published_seq', published.seq, labels);

  async function run(): Promise<void> {
    // A standby of a store shared by several sequencers (PostgreSQL driver) signs nothing: the leader does.
    if ((o.store as { role?(): string }).role?.() === 'standby') return;
    const head = o.store.head();
    if (!signed || signed.seq !== head.seq || signed.head !== head.hash) {
      const signedAt = formatTime(o.clock.now());
      const cp = withLogNoteSignature(
        buildCheckpoint({ log: o.log, seq: head.seq, head: head.hash, root: head.root }, o.signer, signedAt),
        o.signer,
        signedAt,
        o.mldsa,
      );
      await o.store.putCheckpoint(cp);
      await o.mark?.write(cp);
      signed = cp;
      o.metrics?.set('cookwala_checkpoint_seq', cp.seq, labels);
      o.logger?.info({ event: 'checkpoint_signed', seq: cp.seq, head: cp.head }, `signed checkpoint ${cp.seq}`);
    }
    if (published && published.seq === signed.seq) return;
    const cp = signed;
    const out = await o.publisher.publish(cp);
    if (!out || out.seq !== cp.seq || out.head !== cp.head || out.root !== cp.root) return;
    if (out.signature.length > cp.signature.length) await o.store.putCheckpoint(out);
    if (!published || out.seq >= published.seq) {
      published = out;
      o.metrics?.set('cookwala_checkpoint_published_seq', out.seq, labels);
      // Witnesses, counted once each by key (witness-identity.ts); the sequencer's own signatures
      // (JCS and the C2SP note) are never cosignatures. A checkpoint without any other signature
      // (published unwitnessed) names none, so it is not verified again on the event loop.
      const v = o.policy && witnessSignatures(out).length > 0 ? verifyCheckpoint(out, o.policy) : undefined;
      const witnesses = v?.ok ? v.value.names : [];
      o.logger?.info(
        { event: 'checkpoint_published', seq: out.seq, head: out.head, cosignatures: witnesses.length, witnesses },
        `published checkpoint ${out.seq}${witnesses.length ? ` cosigned by ${witnesses.join(', ')}` : ' (unwitnessed)'}`,
      );
    }
  }

  function tick(): Promise<void> {
    if (!running) running = run().finally(() => (running = undefined));
    return running;
  }

  return {
    tick,
    latestSigned: () => signed,
    latestPublished: () => published,
    start(intervalMs) {
      if (timer) return;
      timer = setInterval(() => void tick().catch((e) => o.onError?.(e)), intervalMs);
      timer.unref();
      void tick().catch((e) => o.onError?.(e));
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      while (running) await running.catch(() => undefined);
    },
  };
}
