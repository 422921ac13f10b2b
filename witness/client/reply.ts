// witness/client/reply.ts: what a witness's answer means to the publisher (publisher.ts; docs/design.md
// §7, §7a): the cosignatures a reply carries (a libp2p witness with an Ed25519 key answers its JCS
// cosignature and the cosignature/v1 of the same key; both are kept), how a failed request reads to
// an operator (`unreachable: <why>` or `refused: <code>`), and which signatures of a checkpoint are
// the sequencer's own (the JCS one and the log's C2SP note signatures, Ed25519 and ML-DSA-44), which
// travel with every request. It leaves out checking cosignatures (publisher.ts, with the policy).
// Invariant: pure functions of their arguments; a failure keeps its code and extra fields.

import { fail, type Result } from '../../verifier/index.ts';
import { isLogNoteAlg, type Checkpoint, type CheckpointSignature } from '../../verifier/documents/index.ts';

export type AnyReply =
  | { ok: true; cosignature: CheckpointSignature; noteCosignature?: CheckpointSignature }
  | { ok: false; code: string; detail: string; knownSeq?: number };

/**
 * A reply's cosignatures, or the failure it carries. A libp2p witness with an Ed25519 key answers
 * its JCS cosignature and the cosignature/v1 of the same key (docs/design.md §4): both are kept, so
 * the checkpoint's C2SP view carries every witness that cosigned, whatever transport asked it.
 */
export function cosignaturesOf(r: Result<AnyReply>): Result<CheckpointSignature[]> {
  if (!r.ok) return r;
  if (r.value.ok)
    return { ok: true, value: r.value.noteCosignature ? [r.value.cosignature, r.value.noteCosignature] : [r.value.cosignature] };
  const { ok: _ok, code, detail, ...extra } = r.value;
  return fail(code as never, detail, extra);
}

/** How a transport failure reads to an operator: `unreachable: <why>` or `refused: <code>`. */
export function witnessState(code: string, detail: string): string {
  if (code === 'witness_unavailable' || code === 'timeout') {
    const why = /ECONNREFUSED|connection refused/i.test(detail)
      ? 'connection refused'
      : /timed? ?out|ETIMEDOUT|no reply/i.test(detail)
        ? 'timed out'
        : detail.slice(0, 120);
    return `unreachable: ${why}`;
  }
  return `refused: ${code}`;
}

/** The sequencer's own signatures of a checkpoint: the JCS one and the C2SP note signatures (Ed25519, ML-DSA-44). */
export function ownSignatures(cp: Checkpoint): CheckpointSignature[] {
  return cp.signature.filter((s, i) => i === 0 || isLogNoteAlg(s.alg));
}
