// witness/server/gossip.ts: gossip of checkpoints and fork proofs (docs/design.md §7). Topic
// `/cookwala/checkpoints/1` carries cosigned checkpoints (JSON), `/cookwala/forks/1` ForkProofs.
// Judging a message is pure (`judgeCheckpoint`, `judgeFork` over the admitted logs and the state):
// malformed or badly signed -> reject (gossipsub then neither delivers nor forwards it and lowers
// the sender's score); a log this node does not follow -> ignore (we cannot check its signatures,
// so we do not vouch for it); valid -> accept. A valid checkpoint at the seq we cosigned with
// another head or root yields a ForkProof, which the caller stores and publishes on the fork topic.
// Invariant: nothing is stored or forwarded before its sequencer signatures verified with the key
// this node admitted for the log. Left out: checkpoints older than our state (we keep only the
// latest cosigned one per log, so an older fork is caught by the witnesses still at that seq).

import { readDocument, parseJson } from '../../verifier/documents/index.ts';
import { fromUtf8 } from '../../verifier/encoding/index.ts';
import type { Result } from '../../verifier/index.ts';
import { verifyCheckpointSequencerSignature, type Checkpoint } from '../../verifier/documents/index.ts';
import { buildForkProof, verifyForkProof, type ForkProof } from '../../verifier/documents/index.ts';
import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import type { AdmittedLog } from './add-checkpoint.ts';
import { stripCosignatures } from './add-checkpoint.ts';
import type { LogState } from './state.ts';

export { CHECKPOINT_TOPIC, FORK_TOPIC, TOPICS } from '../wire/topics.ts';

export type Verdict = 'accept' | 'reject' | 'ignore';

export interface JudgeDeps {
  logs: { get(log: string): AdmittedLog | undefined };
  state: { get(log: string): Promise<LogState | undefined> };
  backend?: CryptoBackend;
}

function readJson(data: Uint8Array): Result<unknown> {
  let text: string;
  try {
    text = fromUtf8(data);
  } catch {
    return { ok: false, code: 'bad_json', detail: 'not UTF-8' };
  }
  return parseJson(text);
}

export interface CheckpointJudgement {
  verdict: Verdict;
  reason: string;
  checkpoint?: Checkpoint;
  /** Set when the checkpoint conflicts with what this node cosigned at the same seq. */
  fork?: ForkProof;
}

export async function judgeCheckpoint(data: Uint8Array, deps: JudgeDeps): Promise<CheckpointJudgement> {
  const j = readJson(data);
  if (!j.ok) return { verdict: 'reject', reason: j.code };
  const r = readDocument('Checkpoint', j.value) as Result<Checkpoint>;
  if (!r.ok) return { verdict: 'reject', reason: r.code };
  const cp = r.value;
  const admitted = deps.logs.get(cp.log);
  if (!admitted) return { verdict: 'ignore', reason: 'unknown_log' };
  const s = verifyCheckpointSequencerSignature(cp, admitted.sequencer, { backend: deps.backend });
  if (!s.ok) return { verdict: 'reject', reason: 'bad_signature' };
  const state = await deps.state.get(cp.log);
  // A state advanced by a C2SP note has no head or JSON checkpoint: compare roots, prove nothing.
  if (state && state.seq === cp.seq && ((state.head !== undefined && state.head !== cp.head) || state.root !== cp.root)) {
    return {
      verdict: 'accept',
      reason: 'fork_detected',
      checkpoint: cp,
      ...(state.checkpoint ? { fork: buildForkProof(state.checkpoint, stripCosignatures(cp)) } : {}),
    };
  }
  return { verdict: 'accept', reason: 'ok', checkpoint: cp };
}

export interface ForkJudgement {
  verdict: Verdict;
  reason: string;
  fork?: ForkProof;
}

export function judgeFork(data: Uint8Array, deps: Pick<JudgeDeps, 'logs' | 'backend'>): ForkJudgement {
  const j = readJson(data);
  if (!j.ok) return { verdict: 'reject', reason: j.code };
  const r = readDocument('ForkProof', j.value) as Result<ForkProof>;
  if (!r.ok) return { verdict: 'reject', reason: r.code };
  const admitted = deps.logs.get(r.value.log);
  if (!admitted) return { verdict: 'ignore', reason: 'unknown_log' };
  const v = verifyForkProof(r.value, admitted.sequencer);
  if (!v.ok) return { verdict: 'reject', reason: v.code };
  return { verdict: 'accept', reason: 'fork_detected', fork: r.value };
}
