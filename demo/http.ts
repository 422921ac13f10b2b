// demo/http.ts: what the demo reads over HTTP from its children, on 127.0.0.1 only (docs/design.md §10 for
// the sequencer, the witness status API): JSON GETs with a time limit, the log's entries
// as an incremental tail (NDJSON with the `cookwala-head` header) and a payload's state (present,
// or erased: 410). Invariant: everything here only reads, and every call is bounded by a timeout
// and the demo's abort signal. Left out: retries (callers poll).

import type { Entry } from '../verifier/documents/index.ts';
import { MAX_JSON_DEPTH, parseJson } from '../verifier/encoding/index.ts';
import type { Checkpoint } from '../verifier/documents/index.ts';

export interface HttpAnswer<T = unknown> {
  status: number;
  json: T | undefined;
  headers: Headers;
  text: string;
}

function signalFor(timeoutMs: number, signal?: AbortSignal): AbortSignal {
  const t = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([t, signal]) : t;
}

export async function request<T = unknown>(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<HttpAnswer<T>> {
  const res = await fetch(url, {
    method: o.method ?? 'GET',
    headers: o.headers,
    body: o.body,
    signal: signalFor(o.timeoutMs ?? 5_000, o.signal),
  });
  const text = await res.text();
  const j = text ? parseJson(text, { maxDepth: MAX_JSON_DEPTH + 1 }) : undefined;
  const json = j?.ok ? (j.value as T) : undefined;
  return { status: res.status, json, headers: res.headers, text };
}

/** GET a JSON document; undefined for any failure (unreachable, non-2xx, not JSON). */
export async function getJson<T>(url: string, signal?: AbortSignal, timeoutMs = 3_000): Promise<T | undefined> {
  try {
    const r = await request<T>(url, { signal, timeoutMs });
    return r.status >= 200 && r.status < 300 ? r.json : undefined;
  } catch {
    return undefined;
  }
}

/** URLs of one log on a sequencer. */
export function logUrls(base: string, log: string) {
  const l = `${base.replace(/\/+$/, '')}/v1/logs/${encodeURIComponent(log)}`;
  return {
    log: l,
    checkpoint: `${l}/checkpoint`,
    entries: (from: number) => `${l}/entries?from=${from}`,
    event: (seq: number) => `${l}/events/${seq}`,
    devices: `${base.replace(/\/+$/, '')}/v1/devices`,
  };
}

export interface EntryTail {
  /** Fetch entries after the last one seen; returns the new ones (at most one page). */
  poll(signal?: AbortSignal): Promise<Entry[]>;
  /** The head seq the sequencer reported on the last poll. */
  head(): number;
  /** Every entry seen so far, by seq. */
  readonly seen: Map<number, Entry>;
}

/** Follow a log's entries from seq 1 (GET …/entries?from=next, NDJSON). */
export function tailEntries(base: string, log: string): EntryTail {
  const urls = logUrls(base, log);
  const seen = new Map<number, Entry>();
  let next = 1;
  let head = 0;
  return {
    seen,
    head: () => head,
    async poll(signal) {
      const r = await request(urls.entries(next), { signal, timeoutMs: 10_000 });
      if (r.status !== 200) throw new Error(`GET entries: HTTP ${r.status} ${r.text.slice(0, 200)}`);
      const h = Number(r.headers.get('cookwala-head'));
      if (Number.isSafeInteger(h)) head = h;
      const out: Entry[] = [];
      for (const line of r.text.split('\n')) {
        if (line.trim() === '') continue;
        const j = parseJson(line);
        if (!j.ok) throw new Error(`GET entries: a line is refused: ${j.code}: ${j.detail}`);
        const e = j.value as Entry;
        if (e.seq !== next) throw new Error(`entries out of order: got ${e.seq}, expected ${next}`);
        seen.set(e.seq, e);
        out.push(e);
        next++;
      }
      return out;
    },
  };
}

export async function latestCheckpoint(base: string, log: string, signal?: AbortSignal): Promise<Checkpoint | undefined> {
  return getJson<Checkpoint>(logUrls(base, log).checkpoint, signal);
}

/** 'present', 'erased' (410) or 'other' (anything else) for one entry's payload. */
export async function payloadState(base: string, log: string, seq: number, signal?: AbortSignal): Promise<'present' | 'erased' | 'other'> {
  try {
    const r = await request(logUrls(base, log).event(seq), { signal, timeoutMs: 5_000 });
    return r.status === 200 ? 'present' : r.status === 410 ? 'erased' : 'other';
  } catch {
    return 'other';
  }
}
