// logstore/checkpoint-checks.ts: what both logstore drivers (LevelDB in store.ts, PostgreSQL in
// postgres/store.ts) check before they store a signed checkpoint (docs/design.md §6): its shape and log,
// then, against what is stored, no second checkpoint at one seq with another head or root
// (fork_detected) and no checkpoint beyond the durable head (store_behind_checkpoint). Leaves out:
// comparing with the stored entries (each driver's disagreement(), which reads its own store) and
// the write. Invariant: one rule for both drivers, so the compliance suite tests one thing.

import { ProtocolError } from '../verifier/index.ts';
import { isHashString } from '../verifier/encoding/index.ts';
import type { Checkpoint } from '../verifier/documents/index.ts';

/** Throws invalid_document or log_mismatch for a checkpoint this log's store must not hold. */
export function checkCheckpointShape(cp: Checkpoint, log: string): void {
  if (
    !cp ||
    cp.kind !== 'Checkpoint' ||
    !Number.isSafeInteger(cp.seq) ||
    cp.seq < 0 ||
    !isHashString(cp.head) ||
    !isHashString(cp.root) ||
    !isHashString(cp.hash) ||
    !Array.isArray(cp.signature) ||
    cp.signature.length === 0
  ) {
    throw new ProtocolError('invalid_document', 'a Checkpoint with seq, head, root, hash and at least the sequencer signature');
  }
  if (cp.log !== log) throw new ProtocolError('log_mismatch', `checkpoint of log ${cp.log}, store holds ${log}`);
}

/** Throws fork_detected (another tree stored at this seq) or store_behind_checkpoint (beyond the head). */
export function checkCheckpointFits(cp: Checkpoint, stored: Checkpoint | undefined, headSeq: number): void {
  if (stored && (stored.head !== cp.head || stored.root !== cp.root)) {
    throw new ProtocolError('fork_detected', `seq ${cp.seq} already has a checkpoint with head ${stored.head} root ${stored.root}`, {
      seq: cp.seq,
      stored,
    });
  }
  if (cp.seq > headSeq)
    throw new ProtocolError('store_behind_checkpoint', `checkpoint seq ${cp.seq} is beyond the head ${headSeq}`, { seq: cp.seq });
}
