// device/deliver.ts: posting signed events to a sequencer the way a device must (docs/design.md §5,
// §10, §12a; docs/devices.md): structured (application/cloudevents+json), batch
// (application/cloudevents-batch+json) or binary (ce-* headers, device/event-forms.ts). Every
// request carries an Idempotency-Key derived from the mode and the events' (source, id), so a
// retry of the same request is recognised (and deduplication on (source, id) makes any retry
// safe). Retried, with backoff, a bounded number of times: a connection failure, 429, and 5xx; a
// 503 not_leader is followed at once to the `leader` URL it names (a PostgreSQL standby). 4xx
// answers are final: the event itself is wrong, and sending it again changes nothing.
// Invariant: the answer printed is the sequencer's own JSON, unchanged.

import { readTextCapped } from '../platform/index.ts';
import { createHash } from 'node:crypto';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import type { BinaryForm } from './event-forms.ts';

export type Mode = 'structured' | 'batch' | 'binary';

export interface Delivery {
  status: number;
  body: unknown;
  /** Where it was answered (after following not_leader). */
  url: string;
  attempts: number;
}

export interface DeliverOptions {
  url: string;
  log: string;
  retries?: number;
  timeoutMs?: number;
  /** Backoff before attempt n (1-based retries); tests shorten it. */
  backoffMs?: (n: number, retryAfterS: number | undefined) => number;
  onRetry?: (why: string, attempt: number) => void;
}

/** `ce-` + 43 base64url characters of SHA-256(mode, then each event's source and id). */
export function idempotencyKeyOf(mode: Mode, events: readonly Pick<CloudEvent, 'source' | 'id'>[]): string {
  const h = createHash('sha256').update(`cookwala-post\n${mode}\n`);
  for (const e of events) h.update(`${e.source}\n${e.id}\n`);
  return `ce-${h.digest('base64url')}`;
}

export function requestOf(
  mode: Mode,
  events: CloudEvent[],
  binary?: BinaryForm,
): { headers: Record<string, string>; body: Uint8Array | string } {
  if (mode === 'binary') {
    if (!binary) throw new TypeError('binary mode needs the binary form');
    return { headers: { ...binary.headers, 'idempotency-key': idempotencyKeyOf(mode, events) }, body: binary.body };
  }
  const contentType = mode === 'batch' ? 'application/cloudevents-batch+json' : 'application/cloudevents+json';
  return {
    headers: { 'content-type': contentType, 'idempotency-key': idempotencyKeyOf(mode, events) },
    body: JSON.stringify(mode === 'batch' ? events : events[0]),
  };
}

const defaultBackoff = (n: number, retryAfterS: number | undefined) =>
  retryAfterS !== undefined ? Math.min(retryAfterS * 1000, 30_000) : Math.min(200 * 2 ** (n - 1), 5000);

function leaderOf(body: unknown): string | undefined {
  const b = body as Record<string, unknown> | undefined;
  if (b && b.code === 'not_leader' && typeof b.leader === 'string' && /^https?:\/\//.test(b.leader)) return b.leader;
  const results = b && Array.isArray(b.results) ? (b.results as Array<Record<string, unknown>>) : undefined;
  const r = results?.find((x) => x && x.code === 'not_leader' && typeof x.leader === 'string');
  return r && /^https?:\/\//.test(String(r.leader)) ? String(r.leader) : undefined;
}

/** POST one request, retrying what a retry can fix. Throws only when every attempt failed to connect. */
export async function deliver(req: { headers: Record<string, string>; body: Uint8Array | string }, o: DeliverOptions): Promise<Delivery> {
  const retries = o.retries ?? 5;
  const backoff = o.backoffMs ?? defaultBackoff;
  let base = o.url.replace(/\/+$/, '');
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    const url = `${base}/v1/logs/${encodeURIComponent(o.log)}/events`;
    let status: number;
    let body: unknown;
    let retryAfter: number | undefined;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.timeout(o.timeoutMs ?? 10_000),
        redirect: 'error',
      });
      status = res.status;
      const text = await readTextCapped(res, 1 << 20);
      const j = parseJson(text);
      body = j.ok ? j.value : text;
      const ra = Number(res.headers.get('retry-after'));
      retryAfter = Number.isFinite(ra) && ra >= 0 ? ra : undefined;
    } catch (e) {
      lastError = e as Error;
      if (attempt > retries) break;
      o.onRetry?.(`${url}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`, attempt);
      await sleep(backoff(attempt, undefined));
      continue;
    }
    const leader = leaderOf(body);
    if (leader && leader.replace(/\/+$/, '') !== base && attempt <= retries) {
      o.onRetry?.(`not_leader: following ${leader}`, attempt);
      base = leader.replace(/\/+$/, '');
      continue;
    }
    const retryable = status === 429 || status >= 500 || (status === 200 && leader !== undefined);
    if (!retryable || attempt > retries) return { status, body, url: base, attempts: attempt };
    o.onRetry?.(`${status} ${(body as Record<string, unknown>)?.code ?? ''}`.trim(), attempt);
    await sleep(backoff(attempt, retryAfter));
  }
  throw lastError ?? new Error('not delivered');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** True when the sequencer took every event (201 new, 200 duplicate or heartbeat). */
export function allAccepted(d: Delivery): boolean {
  if (d.status !== 200 && d.status !== 201) return false;
  const b = d.body as Record<string, unknown>;
  if (b && Array.isArray(b.results))
    return (b.results as Array<Record<string, unknown>>).every((r) => r && (r.status === 200 || r.status === 201));
  return true;
}
