// witness/server/off-thread-verify.ts: the witness's signature checks on a worker thread (docs/design.md
// §13: "worker threads for signature checks"), without a second verifier. The verifier's own
// functions (verifyCheckpointSequencerSignature, verifyNote) run unchanged on the event loop with a
// CryptoBackend that, inside `check`, records each Ed25519 / P-256 verify as a platform/sig-pool.ts
// item and answers true; every other step (shape, hash, kid, role, key validity, the one Ed25519
// encoding rule, which verifyEd25519 applies before the backend) runs as always. The recorded
// items then go to the pool; when every one verifies, the recorded result stands. When one does not,
// or the optimistic run failed after recording (a failure that a bad signature could have preempted),
// the same check runs again on this thread with the real backend, so the result (reason code and
// detail, bare-hash fallback included) is exactly the one the event loop alone would give.
// Left out: ML-DSA-44 verifies (a log signing with type 0x06), which run on the event loop with the
// real backend (the pool's items are Ed25519 and P-256). Left out too: which checks to move (the callers pick: the sequencer's checkpoint signature over
// libp2p with the log's note signature the checkpoint carries, the log's note over C2SP HTTP). Outside `check` the backend is the real one.
// Invariants: a result is ok only if the pool (or the real backend) verified every signature the
// check asked about; the recording is synchronous, so no other request's checks can mix in; checks
// that went to the pool resolve in the order they were made, whatever order the workers answer
// in, so requests reach the per-log lock in arrival order as they did when checked inline (a
// result that needed no signature check is a refusal and takes no lock).

import type { CryptoBackend } from '../../verifier/crypto/index.ts';
import type { SigItem, SigPool } from '../../platform/index.ts';

export interface OffThreadVerifier {
  /** The real backend outside `check`; a recording one inside it. Give it to long-lived verifiers (note keys). */
  readonly backend: CryptoBackend;
  /** Run `decide` with its signature checks done by the pool; the result the real backend would give. */
  check<T extends { ok: boolean }>(decide: (backend: CryptoBackend) => T): Promise<T>;
  /** Signature checks sent to the pool, and checks decided again on this thread (tests, metrics). */
  readonly stats: { pooled: number; again: number };
}

export function createOffThreadVerifier(pool: Pick<SigPool, 'verify'>, real: CryptoBackend): OffThreadVerifier {
  let sink: SigItem[] | undefined;
  const stats = { pooled: 0, again: 0 };
  /** Settles after every verdict asked for so far: the next one waits for it (arrival order). */
  let tail: Promise<unknown> = Promise.resolve();
  const backend: CryptoBackend = {
    ...real,
    ed25519Verify(publicKey, msg, sig) {
      if (!sink) return real.ed25519Verify(publicKey, msg, sig);
      sink.push({ alg: 'EdDSA', publicKey, msg, sig });
      return true;
    },
    p256Verify(publicKey, msg, sig) {
      if (!sink) return real.p256Verify(publicKey, msg, sig);
      sink.push({ alg: 'ES256', publicKey, msg, sig });
      return true;
    },
  };
  return {
    backend,
    stats,
    async check(decide) {
      const items: SigItem[] = [];
      sink = items;
      let r;
      try {
        r = decide(backend);
      } finally {
        sink = undefined;
      }
      if (items.length === 0) return r;
      if (r.ok) {
        stats.pooled += items.length;
        const asked = pool.verify(items);
        const before = tail;
        const inOrder = asked.then(
          async (v) => (await before, v),
          async (e: unknown) => {
            await before;
            throw e;
          },
        );
        tail = inOrder.catch(() => undefined);
        const verdicts = await inOrder;
        if (verdicts.every(Boolean)) return r;
      }
      stats.again++;
      return decide(backend);
    },
  };
}
