// executor/sequencer-client.ts: the device's HTTP client for a Cookwala sequencer (docs/design.md §5, §10):
// batch delivery of signed events (`application/cloudevents-batch+json`, one result per event),
// heartbeats (structured `application/cloudevents+json`), and device key registration
// (`POST /v1/logs/{log}/keys`, operator bearer token). Every POST carries an Idempotency-Key; a
// batch's key is derived from its event ids, so a retry after a lost answer is recognised (the
// sequencer replays only fully successful answers, so a retry after a failure is judged afresh).
// The client only transports and classifies answers; what to do about them is outbox.ts's job.

import { createHash } from 'node:crypto';
import type { CloudEvent } from '../verifier/cloudevent/read.ts';
import { MAX_JSON_DEPTH, parseJson } from '../verifier/encoding/strict-json.ts';
import type { KeyRecord } from '../verifier/documents/keys.ts';

export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal },
) => Promise<{ status: number; text(): Promise<string> }>;

export interface EventResult {
  status: number;
  seq?: number;
  hash?: string;
  code?: string;
  detail?: string;
  expected?: number;
}

export type BatchAnswer = { kind: 'results'; results: EventResult[] } | { kind: 'error'; status: number; code?: string; detail: string };

export interface SequencerClient {
  /** `signal` aborts the request (e.g. on shutdown); a timeout applies regardless. */
  postBatch(events: CloudEvent[], signal?: AbortSignal): Promise<BatchAnswer>;
  postHeartbeat(event: CloudEvent): Promise<{ status: number; code?: string }>;
  registerKey(record: KeyRecord, token: string): Promise<{ status: number; code?: string; detail?: string }>;
  listKeys(): Promise<KeyRecord[]>;
}

export interface ClientOptions {
  url: string;
  log: string;
  fetch?: FetchLike;
  timeoutMs?: number;
}

/** An answer's JSON object, read as I-JSON (verifier/encoding/strict-json.ts); undefined for anything else. */
function parse(text: string): Record<string, unknown> | undefined {
  const j = parseJson(text, { maxDepth: MAX_JSON_DEPTH + 1 });
  const v = j.ok ? j.value : undefined;
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

export function batchIdempotencyKey(events: CloudEvent[]): string {
  const h = createHash('sha256');
  for (const e of events) h.update(`${e.source}\n${e.id}\n`);
  return `outbox-${h.digest('base64url').slice(0, 32)}`;
}

export function createSequencerClient(opts: ClientOptions): SequencerClient {
  const f: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  const base = opts.url.replace(/\/+$/, '');
  const logPath = `${base}/v1/logs/${encodeURIComponent(opts.log)}`;
  const timeoutMs = opts.timeoutMs ?? 10_000;

  async function post(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal) {
    const timeout = AbortSignal.timeout(timeoutMs);
    const res = await f(url, { method: 'POST', headers, body, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    return { status: res.status, body: parse(await res.text()) };
  }

  return {
    async postBatch(events, signal) {
      const r = await post(
        `${logPath}/events`,
        JSON.stringify(events),
        {
          'content-type': 'application/cloudevents-batch+json',
          'idempotency-key': batchIdempotencyKey(events),
        },
        signal,
      );
      const results = r.body?.results;
      if (r.status === 200 && Array.isArray(results) && results.length === events.length)
        return { kind: 'results', results: results as EventResult[] };
      const code = typeof r.body?.code === 'string' ? r.body.code : undefined;
      const detail =
        typeof r.body?.detail === 'string' ? r.body.detail : r.status === 200 ? `expected ${events.length} results` : `HTTP ${r.status}`;
      return { kind: 'error', status: r.status, code, detail };
    },
    async postHeartbeat(event) {
      const r = await post(`${logPath}/events`, JSON.stringify(event), {
        'content-type': 'application/cloudevents+json',
        'idempotency-key': `heartbeat-${event.id}`,
      });
      return { status: r.status, code: typeof r.body?.code === 'string' ? r.body.code : undefined };
    },
    async registerKey(record, token) {
      const r = await post(`${logPath}/keys`, JSON.stringify(record), {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
        'idempotency-key': `key-${record.kid}`,
      });
      return {
        status: r.status,
        code: typeof r.body?.code === 'string' ? r.body.code : undefined,
        detail: typeof r.body?.detail === 'string' ? r.body.detail : undefined,
      };
    },
    async listKeys() {
      const res = await f(`${logPath}/keys`, {
        method: 'GET',
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (res.status !== 200) return [];
      const j = parseJson(text, { maxDepth: MAX_JSON_DEPTH + 1 });
      if (!j.ok) return [];
      const v = j.value;
      const keys = Array.isArray(v) ? v : (v as { keys?: unknown })?.keys;
      return Array.isArray(keys) ? (keys as KeyRecord[]) : [];
    },
  };
}

/**
 * Register a device key with the sequencer (operator token). Registering the same record again is
 * fine: when the sequencer answers anything but success, the key counts as registered only if the
 * sequencer lists a record with the same kid and public key.
 */
export async function ensureRegistered(
  client: SequencerClient,
  record: KeyRecord,
  token: string,
): Promise<{ ok: true; status: number } | { ok: false; status: number; detail: string }> {
  let r: Awaited<ReturnType<SequencerClient['registerKey']>>;
  let listed: KeyRecord[];
  try {
    r = await client.registerKey(record, token);
    if (r.status === 200 || r.status === 201) return { ok: true, status: r.status };
    if (r.status === 401 || r.status === 403)
      return { ok: false, status: r.status, detail: `the sequencer refused the operator token (${r.code ?? r.status})` };
    listed = await client.listKeys();
  } catch (e) {
    return { ok: false, status: 0, detail: `the sequencer is unreachable: ${(e as Error).message}` };
  }
  if (listed.some((k) => k.kid === record.kid && k.publicKey === record.publicKey)) return { ok: true, status: r.status };
  return { ok: false, status: r.status, detail: `${r.code ?? `HTTP ${r.status}`} ${r.detail ?? ''}`.trim() };
}
