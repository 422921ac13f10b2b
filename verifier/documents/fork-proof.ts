// verifier/documents/fork-proof.ts: fork proofs (docs/design.md §4, §7; Core §5 "two checkpoints of one log at the
// same seq with different heads prove a fork"): {kind:"ForkProof", log, a:Checkpoint,
// b:Checkpoint}. Self-contained: anyone holding the log's sequencer key checks it offline, with no
// witness policy (cosignatures inside a and b are carried along but play no part). It is not
// signed itself: its force comes from the sequencer's own two signatures. Invariant: ok means a
// fork is proved; any doubt (bad shape, other log, other seq, equal checkpoints, a signature that
// does not verify) is a failure that names the reason. forkVerdict is what `cookwala verify-fork
// --json` prints and the verifier page shows (auditor/verify-fork.ts, web/src/lib/audit-checks.ts).

import { fail, ok, type Result } from '../errors.ts';
import type { KeyRecord } from '../signing/keys.ts';
import type { VerifyOptions } from '../signing/signature.ts';
import { verifyCheckpointSequencerSignature, type Checkpoint } from './checkpoint.ts';
import { schemaValidator } from './schemas/validate.ts';

export interface ForkProof {
  kind: 'ForkProof';
  log: string;
  a: Checkpoint;
  b: Checkpoint;
}

export interface ProvedFork {
  log: string;
  seq: number;
  a: { head: string; root: string };
  b: { head: string; root: string };
}

/** Pair two conflicting checkpoints; calling it with checkpoints that do not conflict is a programmer error. */
export function buildForkProof(a: Checkpoint, b: Checkpoint): ForkProof {
  if (a.log !== b.log || a.seq !== b.seq) throw new TypeError('a fork proof pairs two checkpoints of one log at one seq');
  if (a.head === b.head && a.root === b.root) throw new TypeError('the checkpoints agree: no fork');
  return { kind: 'ForkProof', log: a.log, a, b };
}

/** ok when both checkpoints are validly signed by `sequencerKey`, for fp.log, one seq, and differ. */
export function verifyForkProof(fp: ForkProof, sequencerKey: KeyRecord, opts: VerifyOptions = {}): Result<ProvedFork> {
  const shape = schemaValidator().validate('ForkProof', fp);
  if (!shape.ok) return shape;
  const { a, b } = fp;
  if (a.log !== fp.log || b.log !== fp.log)
    return fail('not_a_fork', `the checkpoints are of ${a.log} and ${b.log}, the proof names ${fp.log}`);
  if (a.seq !== b.seq) return fail('not_a_fork', `the checkpoints are at seq ${a.seq} and ${b.seq}`);
  if (a.head === b.head && a.root === b.root) return fail('not_a_fork', `both checkpoints at seq ${a.seq} have the same head and root`);
  for (const [name, cp] of [
    ['a', a],
    ['b', b],
  ] as const) {
    const r = verifyCheckpointSequencerSignature(cp, sequencerKey, opts);
    if (!r.ok) return { ...r, detail: `checkpoint ${name}: ${r.detail}` };
  }
  return ok({ log: fp.log, seq: a.seq, a: { head: a.head, root: a.root }, b: { head: b.head, root: b.root } });
}

/** What `cookwala verify-fork --json` prints for one proof (and the verifier page shows). */
export interface ForkVerdict {
  proven: boolean;
  log?: string;
  seq?: number;
  /** head is absent for a C2SP log's proof (note-fork-proof.ts): its checkpoints carry only the root. */
  a?: { head?: string; root: string };
  b?: { head?: string; root: string };
  /** The form of the proof: a JSON ForkProof, or two signed notes of a C2SP log. */
  form?: 'ForkProof' | 'NoteForkProof';
  code?: string;
  detail?: string;
}

/**
 * The verdict on `fp` under the auditor's trust: the sequencer's KeyRecord, and the log it is for
 * when it came from a policy (a proof about another log is log_mismatch, not checked further).
 */
export function forkVerdict(fp: ForkProof, trust: { key: KeyRecord; log?: string }): ForkVerdict {
  if (trust.log !== undefined && fp.log !== trust.log)
    return { proven: false, log: fp.log, code: 'log_mismatch', detail: `the proof is about ${fp.log}, the policy about ${trust.log}` };
  const v = verifyForkProof(fp, trust.key);
  if (!v.ok) return { proven: false, log: fp.log, seq: fp.a.seq, code: v.code, detail: v.detail };
  return { proven: true, ...v.value };
}
