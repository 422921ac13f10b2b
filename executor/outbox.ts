// executor/outbox.ts: delivery of the durable outbox to the sequencer (docs/design.md §5, §9; Core 0.2 §7,
// §8): at least once, in order per subject, with retry and bounded exponential backoff, resuming
// after a restart from whatever store.ts still holds. Records go in creation order in batches; for
// each event the sequencer's answer decides: 201/200 (appended, or a duplicate of one already
// appended) = delivered; `out_of_order` with `expected` below our cookwalaseq = the sequencer lacks
// earlier events of this subject, so they are put back at their original queue places (resend from
// `expected`) unless still pending; `out_of_order` with `expected` above it, `duplicate_id_conflict`
// or another permanent refusal = the event can never be appended: it becomes a dead letter (kept,
// counted, reported). 5xx, network faults, `unknown_key` (the key may not be registered yet) and
// `key_not_valid_at` and `signed_in_future` (the device clock runs ahead of the sequencer's; the
// event gets in once the sequencer's clock catches up) are transient: retried after min(maxBackoff, base·2^attempt) with jitter;
// a resend that keeps being lost (the same event requeued more than 3 times) backs off too.
// Consent (§8): while the device's consent is `none` nothing is sent (no HTTP at all) except the
// `cookwala.consent.withdrawn` notice. Invariant: a record leaves the outbox only after an answer
// that settles it; the loop never holds more than one batch in flight.

import type { Clock } from '../platform/index.ts';
import { sleep } from '../platform/index.ts';
import { formatTime } from '../verifier/encoding/index.ts';
import type { BatchAnswer, EventResult, SequencerClient } from './sequencer-client.ts';
import type { ExecutorStore, OutboxRecord } from './store.ts';

export interface DeliveryOptions {
  batchSize?: number;
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Random source in [0,1) for jitter (tests pass a constant). */
  random?: () => number;
  onError?: (message: string) => void;
  /**
   * Called each time the loop starts to wait: 'idle' when it found nothing it may send (a wake()
   * ends that), 'backoff' for `ms` on the clock. Tests wait on it instead of sleeping or polling.
   */
  onWait?: (reason: 'idle' | 'backoff', ms: number) => void;
}

export interface DeliveryStats {
  delivered: number;
  duplicates: number;
  requeued: number;
  deadLetters: number;
  attempts: number;
  failures: number;
  consecutiveFailures: number;
  lastError?: string;
}

export interface Delivery {
  start(): void;
  /** New records or a consent change: look again now (does not cut a running backoff short). */
  wake(): void;
  stats(): DeliveryStats;
  /** Resolve when the outbox holds nothing this loop may send, or after timeoutMs (false). */
  drained(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const TRANSIENT = new Set(['unknown_key', 'key_not_valid_at', 'signed_in_future', 'store_locked', 'internal_error']);

export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  const d = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return d / 2 + (random() * d) / 2;
}

/** What a person can do about a refusal the outbox keeps retrying. */
export function refusalHint(why: string): string {
  if (/unknown_key/.test(why))
    return ' (the sequencer does not know this device key: register it, e.g. cookwala executor --register-token-file SEQ/operator.token)';
  if (/key_not_valid_at/.test(why))
    return " (the device key is not valid at the events' signedAt: check the device clock and the key's validFrom)";
  if (/signed_in_future/.test(why)) return ' (the device clock is ahead of the sequencer: it catches up, or fix the clock)';
  if (/network|ECONNREFUSED|fetch failed/.test(why)) return ' (the sequencer cannot be reached: is it running, and is --sequencer right?)';
  if (/HTTP 404/.test(why)) return ' (the sequencer hosts no such log: check --log)';
  if (/HTTP 401/.test(why)) return ' (the sequencer wants an operator token for this route)';
  return '';
}

function isTransient(r: { status: number; code?: string }): boolean {
  return r.status >= 500 || r.status === 429 || r.status === 408 || (r.code !== undefined && TRANSIENT.has(r.code));
}

export function createDelivery(
  deps: { store: ExecutorStore; clock: Clock; client: SequencerClient },
  opts: DeliveryOptions = {},
): Delivery {
  const { store, clock, client } = deps;
  let batchSize = opts.batchSize ?? 100;
  const base = opts.baseBackoffMs ?? 200;
  const max = opts.maxBackoffMs ?? 30_000;
  const random = opts.random ?? Math.random;
  const stats: DeliveryStats = {
    delivered: 0,
    duplicates: 0,
    requeued: 0,
    deadLetters: 0,
    attempts: 0,
    failures: 0,
    consecutiveFailures: 0,
  };
  const stop = new AbortController();
  let dirty = true;
  let waiter: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  let busy = false;
  const requeues = new Map<string, number>();
  let slowDown = false;

  function wake(): void {
    dirty = true;
    waiter?.();
  }

  function waitForWake(): Promise<void> {
    if (dirty || stop.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      waiter = () => {
        waiter = undefined;
        resolve();
      };
      opts.onWait?.('idle', 0);
    });
  }

  /** Settle one refused event: 'retry' keeps it for later; 'progress' = requeued or dead-lettered. */
  async function settle(rec: OutboxRecord, r: EventResult): Promise<'retry' | 'progress'> {
    const ev = rec.event;
    if (
      r.code === 'out_of_order' &&
      typeof r.expected === 'number' &&
      typeof ev.subject === 'string' &&
      typeof ev.cookwalaseq === 'number'
    ) {
      const e = r.expected;
      const c = ev.cookwalaseq;
      if (e < c) {
        const state = await store.isPending(ev.subject, e);
        if (state === 'pending') return 'retry'; // it goes first next time: its queue place is earlier
        if (state === 'delivered') {
          stats.requeued += await store.requeue(ev.subject, e, c);
          // Something between us and the sequencer keeps losing this event: resend, but slow down.
          const k = `${ev.subject}#${e}`;
          const n = (requeues.get(k) ?? 0) + 1;
          if (requeues.size > 10_000) requeues.clear();
          requeues.set(k, n);
          if (n > 3) slowDown = true;
          return 'progress';
        }
        const why = state === 'dead' ? 'is a dead letter' : state === 'local' ? 'may not leave the device' : 'is not in the device log';
        await deadLetter(rec, 'out_of_order', `blocked: ${ev.subject} #${e} ${why}`);
        return 'progress';
      }
      await deadLetter(rec, 'out_of_order', `the sequencer already has ${ev.subject} up to #${e - 1} without this event`);
      return 'progress';
    }
    if (isTransient(r)) return 'retry';
    await deadLetter(rec, r.code ?? `http_${r.status}`, r.detail ?? '');
    return 'progress';
  }

  async function deadLetter(rec: OutboxRecord, code: string, detail: string): Promise<void> {
    stats.deadLetters++;
    opts.onError?.(`dead letter ${rec.event.source} ${rec.event.id}: ${code} ${detail}`);
    await store.deadLetter(rec, code, detail, formatTime(clock.now()));
  }

  async function backoff(why: string): Promise<void> {
    stats.failures++;
    stats.lastError = why;
    const d = backoffDelay(stats.consecutiveFailures++, base, max, random);
    // Every refusal is said, with what happens next: nothing fails silently.
    opts.onError?.(`delivery: ${why}; the events stay in the outbox, retrying in ${(d / 1000).toFixed(1)} s${refusalHint(why)}`);
    const slept = sleep(clock, d, stop.signal);
    opts.onWait?.('backoff', d);
    await slept;
  }

  async function once(): Promise<void> {
    dirty = false;
    const alwaysOnly = store.consent().dataset === 'none';
    const recs = await store.pending(batchSize, alwaysOnly);
    if (recs.length === 0) return waitForWake();
    busy = true;
    try {
      await sendBatch(recs);
    } finally {
      busy = false;
    }
  }

  async function sendBatch(recs: OutboxRecord[]): Promise<void> {
    stats.attempts++;
    let answer: BatchAnswer;
    try {
      answer = await client.postBatch(
        recs.map((r) => r.event),
        stop.signal,
      );
    } catch (e) {
      return backoff(`network: ${(e as Error).message}`);
    }
    if (answer.kind === 'error') {
      if (answer.status === 413 && batchSize > 1) {
        batchSize = Math.max(1, Math.floor(batchSize / 2));
        dirty = true;
        return;
      }
      return backoff(`HTTP ${answer.status} ${answer.code ?? ''} ${answer.detail}`.trim());
    }
    // Settle the successes first, so that judging an out_of_order answer sees them as delivered.
    const ok = (r: EventResult) => r.status === 201 || r.status === 200;
    const done = recs.filter((_, i) => ok(answer.results[i])).map((r) => r.key);
    if (done.length) {
      await store.delivered(done);
      stats.delivered += done.length;
      stats.duplicates += answer.results.filter((r) => r.status === 200).length;
    }
    let retry = false;
    let progress = done.length > 0;
    for (let i = 0; i < recs.length; i++) {
      if (ok(answer.results[i])) continue;
      if ((await settle(recs[i], answer.results[i])) === 'retry') retry = true;
      else progress = true;
    }
    if ((retry && !progress) || slowDown) {
      slowDown = false;
      const first = answer.results.find((r) => r.status !== 200 && r.status !== 201);
      return backoff(`event refused: ${first?.code ?? first?.status} ${first?.detail ?? ''}`.trim());
    }
    stats.consecutiveFailures = 0;
    dirty = true;
  }

  async function run(): Promise<void> {
    // Bounded per iteration: one batch or one wait; the loop ends when close() aborts.
    while (!stop.signal.aborted) {
      try {
        await once();
      } catch (e) {
        if (stop.signal.aborted) break;
        await backoff(`outbox: ${(e as Error).message}`);
      }
    }
  }

  return {
    start() {
      if (!loop) loop = run();
    },
    wake,
    stats: () => ({ ...stats }),
    async drained(timeoutMs) {
      const end = Date.now() + timeoutMs;
      for (let i = 0; i < 100_000 && Date.now() < end; i++) {
        const alwaysOnly = store.consent().dataset === 'none';
        if ((await store.pending(1, alwaysOnly)).length === 0 && !busy) return true;
        await new Promise((r) => setTimeout(r, 20));
      }
      return false;
    },
    async close() {
      stop.abort();
      waiter?.();
      await loop;
    },
  };
}
