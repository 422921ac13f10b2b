// sequencer/idempotency.ts: Idempotency-Key handling for ingest POSTs (docs/design.md §5, Core §7). A key
// is remembered with a fingerprint of the request (method, path, content type, every ce-* header
// and the raw body) in a bounded LRU. The same key with the same fingerprint gets the original
// answer (waiting for it when the first request is still in flight); the same key with another
// fingerprint gets idempotency_conflict. Only answers a client would want replayed are kept:
// 2xx answers whose items all succeeded; anything else is forgotten once answered, so a retry is
// judged afresh (deduplication on (source, id) already makes a re-judged retry safe). A kept
// answer is kept as the JSON bytes it was sent as, so the cache holds no objects for the garbage
// collector to trace and copy, and it is bounded in bytes as well as in keys: a batch's answer is
// about 17 KB of JSON for 100 events, so 50,000 of them kept as objects could hold (estimated,
// not measured) well over half a gigabyte of heap.
// Left out: persistence across restarts (after a restart the (source, id) index answers retries).

import { createHash } from 'node:crypto';

export interface Answer {
  status: number;
  body: unknown;
  /** The body as sent, JSON: set on an answer kept for replay (its body is then not kept). */
  raw?: Buffer;
}

export type Begin =
  | {
      kind: 'new';
      /** Settle the key; returns the answer to send (with `raw` when it was kept). */
      finish(answer: Answer, keep: boolean): Answer;
    }
  | { kind: 'replay'; answer: Promise<Answer> }
  | { kind: 'conflict' };

interface Slot {
  fingerprint: string;
  answer: Promise<Answer>;
  /** Bytes this slot counts against the byte bound (0 while in flight). */
  bytes: number;
}

export interface IdempotencyCache {
  begin(scope: string, key: string, fingerprint: string): Begin;
  readonly size: number;
  /** Bytes of kept answers (with their keys and fingerprints). */
  readonly bytes: number;
}

/** Defaults: keys remembered, and bytes of kept answers. */
export const IDEMPOTENCY_MAX_KEYS = 50_000;
export const IDEMPOTENCY_MAX_BYTES = 64 * 1024 * 1024;
/** What a kept slot costs beyond its answer's bytes and its key (the Map entry, the fingerprint). */
const SLOT_OVERHEAD = 160;

export function createIdempotencyCache(max = IDEMPOTENCY_MAX_KEYS, maxBytes = IDEMPOTENCY_MAX_BYTES): IdempotencyCache {
  const slots = new Map<string, Slot>();
  let bytes = 0;
  const evict = () => {
    while (slots.size > max || bytes > maxBytes) {
      const [k, old] = slots.entries().next().value as [string, Slot];
      slots.delete(k);
      bytes -= old.bytes;
    }
  };
  return {
    get size() {
      return slots.size;
    },
    get bytes() {
      return bytes;
    },
    begin(scope, key, fingerprint) {
      const k = `${scope}\n${key}`;
      const hit = slots.get(k);
      if (hit) {
        if (hit.fingerprint !== fingerprint) return { kind: 'conflict' };
        slots.delete(k); // refresh its place in the LRU order
        slots.set(k, hit);
        return { kind: 'replay', answer: hit.answer };
      }
      let resolve!: (a: Answer) => void;
      const slot: Slot = { fingerprint, answer: new Promise<Answer>((r) => (resolve = r)), bytes: 0 };
      slots.set(k, slot);
      evict();
      return {
        kind: 'new',
        finish(answer, keep) {
          const live = slots.get(k) === slot;
          if (!keep) {
            resolve(answer);
            if (live) slots.delete(k);
            return answer;
          }
          const kept: Answer = { status: answer.status, body: undefined, raw: answer.raw ?? Buffer.from(JSON.stringify(answer.body)) };
          resolve(kept);
          const cost = kept.raw!.length + k.length + SLOT_OVERHEAD;
          if (live && cost <= maxBytes) {
            slot.bytes = cost;
            bytes += cost;
            evict();
          } else if (live) slots.delete(k);
          return kept;
        },
      };
    },
  };
}

/** The request fingerprint: what makes two requests "the same" for one Idempotency-Key. */
export function requestFingerprint(
  method: string,
  path: string,
  headers: Record<string, string | string[] | undefined>,
  body: Uint8Array | undefined,
): string {
  const h = createHash('sha256');
  h.update(`${method} ${path}\n`);
  h.update(`content-type:${String(headers['content-type'] ?? '')}\n`);
  const ce = Object.keys(headers)
    .filter((k) => k.toLowerCase().startsWith('ce-'))
    .sort();
  for (const k of ce) h.update(`${k.toLowerCase()}:${String(headers[k])}\n`);
  h.update('\n');
  if (body) h.update(body);
  return h.digest('base64url');
}
