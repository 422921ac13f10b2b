// sequencer/idempotency.ts: Idempotency-Key handling for ingest POSTs (DESIGN §5, Core §7). A key
// is remembered with a fingerprint of the request (method, path, content type, every ce-* header
// and the raw body) in a bounded LRU. The same key with the same fingerprint gets the original
// answer (waiting for it when the first request is still in flight); the same key with another
// fingerprint gets idempotency_conflict. Only answers a client would want replayed are kept:
// 2xx answers whose items all succeeded; anything else is forgotten once answered, so a retry is
// judged afresh (deduplication on (source, id) already makes a re-judged retry safe).
// Left out: persistence across restarts (after a restart the (source, id) index answers retries).

import { createHash } from 'node:crypto';

export interface Answer {
  status: number;
  body: unknown;
}

export type Begin =
  { kind: 'new'; finish(answer: Answer, keep: boolean): void } | { kind: 'replay'; answer: Promise<Answer> } | { kind: 'conflict' };

interface Slot {
  fingerprint: string;
  answer: Promise<Answer>;
}

export interface IdempotencyCache {
  begin(scope: string, key: string, fingerprint: string): Begin;
  readonly size: number;
}

export function createIdempotencyCache(max = 50_000): IdempotencyCache {
  const slots = new Map<string, Slot>();
  return {
    get size() {
      return slots.size;
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
      const slot: Slot = { fingerprint, answer: new Promise<Answer>((r) => (resolve = r)) };
      slots.set(k, slot);
      while (slots.size > max) slots.delete(slots.keys().next().value as string);
      return {
        kind: 'new',
        finish(answer, keep) {
          resolve(answer);
          if (!keep && slots.get(k) === slot) slots.delete(k);
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
