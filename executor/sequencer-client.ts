// executor/sequencer-client.ts: the device's HTTP client for a Cookwala sequencer (docs/design.md §5, §10):
// batch delivery of signed events (`application/cloudevents-batch+json`, one result per event),
// heartbeats (structured `application/cloudevents+json`), and device key registration
// (`POST /v1/logs/{log}/keys`, operator bearer token). Every POST carries an Idempotency-Key; a
// batch's key is derived from its event ids, so a retry after a lost answer is recognised (the
// sequencer replays only fully successful answers, so a retry after a failure is judged afresh).
// Several sequencer processes may serve one log (one leads, the others answer 503 not_leader naming
// the leader: docs/failover.md): the client is given one URL or several (`url` a comma list or an
// array) and sends to the one that answered last; a 503 not_leader naming a leader sends the same
// request there at once, one without a leader or a network fault tries the next URL, at most a
// few hops a call, so the outbox sees the leader's answer. Key registration goes to every given
// URL (each process keeps its own registry). The client only transports and classifies answers;
// what to do about them is outbox.ts's job.

import { createHash } from 'node:crypto';
import type { CloudEvent } from '../verifier/cloudevent/index.ts';
import { MAX_JSON_DEPTH, parseJson } from '../verifier/encoding/index.ts';
import type { KeyRecord } from '../verifier/signing/index.ts';

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
  /** The sequencer URL requests go to now (the last one that answered, or a leader one named). */
  current?(): string;
  /** `signal` aborts the request (e.g. on shutdown); a timeout applies regardless. */
  postBatch(events: CloudEvent[], signal?: AbortSignal): Promise<BatchAnswer>;
  postHeartbeat(event: CloudEvent): Promise<{ status: number; code?: string }>;
  registerKey(record: KeyRecord, token: string): Promise<{ status: number; code?: string; detail?: string }>;
  listKeys(): Promise<KeyRecord[]>;
}

export interface ClientOptions {
  /** One sequencer URL, a comma-separated list, or a list: the processes that may serve the log. */
  url: string | readonly string[];
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

/** At most this many sequencer URLs are kept (the given ones and the leaders named since). */
export const MAX_SEQUENCER_URLS = 16;

/** The sequencer URLs of `url` (a comma list or a list), without trailing slashes, each once. */
export function sequencerUrls(url: string | readonly string[]): string[] {
  const all = (typeof url === 'string' ? [url] : url).flatMap((u) => u.split(','));
  return [...new Set(all.map((u) => u.trim().replace(/\/+$/, '')).filter((u) => u.length > 0))];
}

export function createSequencerClient(opts: ClientOptions): SequencerClient {
  const f: FetchLike = opts.fetch ?? ((url, init) => fetch(url, init));
  const given = sequencerUrls(opts.url);
  if (given.length === 0) throw new TypeError('a sequencer client needs at least one URL');
  const bases = [...given];
  let current = 0;
  const logPathOf = (base: string) => `${base}/v1/logs/${encodeURIComponent(opts.log)}`;
  const timeoutMs = opts.timeoutMs ?? 10_000;

  async function postTo(url: string, body: string, headers: Record<string, string>, signal?: AbortSignal) {
    const timeout = AbortSignal.timeout(timeoutMs);
    const res = await f(url, { method: 'POST', headers, body, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    return { status: res.status, body: parse(await res.text()) };
  }

  /** The index of a leader URL named in a not_leader answer (added to the list when new), or undefined. */
  function leaderIndex(named: unknown): number | undefined {
    if (typeof named !== 'string' || named.length > 2048 || !/^https?:\/\/[^\s,]+$/.test(named)) return undefined;
    const u = named.replace(/\/+$/, '');
    let k = bases.indexOf(u);
    if (k < 0 && bases.length < MAX_SEQUENCER_URLS) k = bases.push(u) - 1;
    return k < 0 ? undefined : k;
  }

  /**
   * POST `rest` (under the log's path) to the current sequencer, following not_leader to the leader
   * it names and moving on to the next URL after a network fault or a not_leader without a leader;
   * at most bases + 2 hops. The last answer is returned (or the last network fault thrown).
   */
  async function post(rest: string, body: string, headers: Record<string, string>, signal?: AbortSignal) {
    let last: { status: number; body: Record<string, unknown> | undefined } | undefined;
    let fault: unknown;
    const hops = bases.length + 2;
    for (let i = 0; i < hops; i++) {
      const at = current;
      try {
        const r = await postTo(`${logPathOf(bases[at])}${rest}`, body, headers, signal);
        if (r.status !== 503 || r.body?.code !== 'not_leader') return r;
        last = r;
        const k = leaderIndex(r.body.leader);
        if (k !== undefined && k !== at) current = k;
        else if (bases.length > 1) current = (at + 1) % bases.length;
        else return r;
      } catch (e) {
        if (signal?.aborted || bases.length === 1) throw e;
        fault = e;
        current = (at + 1) % bases.length;
      }
    }
    if (last) return last;
    throw fault;
  }

  return {
    current: () => bases[current],
    async postBatch(events, signal) {
      const r = await post(
        '/events',
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
      const r = await post('/events', JSON.stringify(event), {
        'content-type': 'application/cloudevents+json',
        'idempotency-key': `heartbeat-${event.id}`,
      });
      return { status: r.status, code: typeof r.body?.code === 'string' ? r.body.code : undefined };
    },
    async registerKey(record, token) {
      // Every given process keeps its own registry of device keys: register with each; the first refusal is the answer.
      let answer: { status: number; code?: string; detail?: string } | undefined;
      for (const base of given) {
        const r = await postTo(`${logPathOf(base)}/keys`, JSON.stringify(record), {
          'content-type': 'application/json',
          authorization: `Bearer ${token}`,
          'idempotency-key': `key-${record.kid}`,
        });
        const a = {
          status: r.status,
          code: typeof r.body?.code === 'string' ? r.body.code : undefined,
          detail: typeof r.body?.detail === 'string' ? r.body.detail : undefined,
        };
        if (!answer || ((answer.status === 200 || answer.status === 201) && a.status !== 200 && a.status !== 201)) answer = a;
      }
      return answer!;
    },
    async listKeys() {
      const res = await f(`${logPathOf(bases[current])}/keys`, {
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
