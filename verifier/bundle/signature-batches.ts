// verifier/bundle/signature-batches.ts: batched signature checks for the streaming bundle verifier (docs/design.md §8,
// §13). The reader decides everything about a signature on its own thread (key lookup, role, owner,
// validity window) and queues only the raw check {alg, publicKey, msg, sig}, where msg comes from
// verifier/signing/signature.ts signingHeaderBytes (one encoder for signer and verifier). Full batches go to an
// injected `verifyBatch` (the CLI passes the worker pool of platform/sig-pool.ts, so both cores verify
// while the reader parses and hashes); at most `maxInFlight` batches are outstanding, which bounds
// memory, and the reader waits for the oldest when that bound is hit. The default verifyBatch runs
// verifyRaw inline, so this file stays pure. Left out: what a failed check means (the callback).

import { verifyRaw } from '../signing/signature.ts';
import type { Alg } from '../signing/keys.ts';

export interface RawCheck {
  alg: Alg;
  publicKey: Uint8Array;
  msg: Uint8Array;
  sig: Uint8Array;
}

export type VerifyBatch = (items: readonly RawCheck[]) => Promise<boolean[]>;

export interface SigQueue {
  /** Queue one check; `done` runs with the verdict. Returns a promise to await when the queue is full. */
  add(check: RawCheck, done: (good: boolean) => void): Promise<void> | undefined;
  /** Send what is queued and wait for every verdict. */
  drain(): Promise<void>;
  /**
   * Send what is queued; resolves once every check queued so far has its verdict, while checks
   * queued after this call go on (a monitor keeps its place after a page without stopping the
   * workers). Rejects as drain() does when a batch failed.
   */
  settled(): Promise<void>;
  readonly checked: number;
}

export const inlineVerifyBatch: VerifyBatch = async (items) => items.map((it) => verifyRaw(it.alg, it.publicKey, it.msg, it.sig));

/**
 * Checks per batch. 128, not 512: less CPU per event and a lower peak RSS in the verify bench
 * (fewer checks, and the lines they hold, alive at once), with up to (maxInFlight + 1) x 128
 * checks still queued ahead of the workers.
 */
export const DEFAULT_BATCH_SIZE = 128;

export function createSigQueue(opts: { verifyBatch?: VerifyBatch; batchSize?: number; maxInFlight?: number } = {}): SigQueue {
  const verifyBatch = opts.verifyBatch ?? inlineVerifyBatch;
  const batchSize = Math.max(1, opts.batchSize ?? DEFAULT_BATCH_SIZE);
  const maxInFlight = Math.max(1, opts.maxInFlight ?? 4);
  let items: RawCheck[] = [];
  let callbacks: Array<(good: boolean) => void> = [];
  const inFlight: Promise<void>[] = [];
  let checked = 0;
  let failure: unknown;

  function send(): void {
    if (items.length === 0) return;
    const its = items;
    const cbs = callbacks;
    items = [];
    callbacks = [];
    // Never rejects: a failure is kept and rethrown by the next wait, so no rejection goes unhandled.
    const p = verifyBatch(its).then(
      (res) => {
        if (res.length !== its.length) {
          failure ??= new Error(`verifyBatch answered ${res.length} verdicts for ${its.length} checks`);
          return;
        }
        checked += its.length;
        for (let i = 0; i < cbs.length; i++) cbs[i](res[i] === true);
      },
      (e: unknown) => {
        failure ??= e;
      },
    );
    inFlight.push(p);
  }

  async function waitOldest(): Promise<void> {
    const p = inFlight.shift();
    if (p) await p;
    if (failure) throw failure;
  }

  return {
    add(check, done) {
      items.push(check);
      callbacks.push(done);
      if (items.length < batchSize) return undefined;
      send();
      return inFlight.length > maxInFlight ? waitOldest() : undefined;
    },
    settled() {
      send();
      return Promise.all(inFlight.slice()).then(() => {
        if (failure) throw failure;
      });
    },
    async drain() {
      send();
      while (inFlight.length > 0) await waitOldest();
      if (failure) throw failure;
    },
    get checked() {
      return checked;
    },
  };
}
