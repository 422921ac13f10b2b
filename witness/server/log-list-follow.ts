// witness/server/log-list-follow.ts: following `logs/v0` log lists (docs/design.md §7a; the format and
// its source are in c2sp-logs.ts). Each list, a file path or an http(s) URL from the witness
// config, is read at start and then every `refreshMs`; every log in it whose origin is new is
// admitted into the registry and stored (state.putAdmission, synced), so it stays admitted
// across restarts even if a later list drops it. Invariants: add-only: a listed vkey that differs
// from the one an origin was admitted with is refused and reported (`onRefused`), never applied;
// a list that cannot be read or parsed changes nothing. Bounded: MAX_LOG_LIST_BYTES per list,
// `timeoutMs` per fetch. Left out: signatures over lists (the format has none) and bastions.

import { readFile } from 'node:fs/promises';
import { formatTime } from '../../verifier/encoding/index.ts';
import { MAX_LOG_LIST_BYTES, parseLogListV0, type LogRegistry } from './c2sp-logs.ts';
import type { StateStore } from './state.ts';

export interface FollowDeps {
  lists: readonly string[];
  registry: LogRegistry;
  state: Pick<StateStore, 'putAdmission' | 'admissions'>;
  clock?: () => number;
  onAdded?: (origin: string, source: string) => void;
  onRefused?: (origin: string, source: string, detail: string) => void;
  onError?: (source: string, detail: string) => void;
  timeoutMs?: number;
}

export interface RefreshSummary {
  added: number;
  refused: number;
  failed: number;
}

const ADMIT_CHUNK = 1024;

async function readList(source: string, timeoutMs: number): Promise<string> {
  if (/^https?:\/\//.test(source)) {
    const res = await fetch(source, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const len = Number(res.headers.get('content-length') ?? '0');
    if (len > MAX_LOG_LIST_BYTES) throw new Error(`list of ${len} bytes exceeds ${MAX_LOG_LIST_BYTES}`);
    const reader = res.body?.getReader();
    if (!reader) return '';
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_LOG_LIST_BYTES) {
        await reader.cancel();
        throw new Error(`list exceeds ${MAX_LOG_LIST_BYTES} bytes`);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  const text = await readFile(source, 'utf8');
  if (text.length > MAX_LOG_LIST_BYTES) throw new Error(`list exceeds ${MAX_LOG_LIST_BYTES} bytes`);
  return text;
}

/** Re-admit the logs stored from earlier list reads (at start, before serving). */
export async function restoreAdmissions(deps: Pick<FollowDeps, 'registry' | 'state' | 'onRefused'>): Promise<number> {
  let n = 0;
  for (const a of await deps.state.admissions()) {
    const r = deps.registry.admit({ origin: a.origin, vkey: a.vkey });
    if (!r.ok) deps.onRefused?.(a.origin, a.source, r.detail);
    else if (r.value.added) n++;
  }
  return n;
}

/** Read every list once and admit what is new. */
export async function refreshLogLists(deps: FollowDeps): Promise<RefreshSummary> {
  const sum: RefreshSummary = { added: 0, refused: 0, failed: 0 };
  const clock = deps.clock ?? Date.now;
  for (const source of deps.lists) {
    let text: string;
    try {
      text = await readList(source, deps.timeoutMs ?? 10_000);
    } catch (e) {
      sum.failed++;
      deps.onError?.(source, (e as Error).message);
      continue;
    }
    // The key rule of each listed vkey runs at the log's first checkpoint (c2sp-logs.ts).
    const parsed = parseLogListV0(text, 'on-use');
    if (!parsed.ok) {
      sum.failed++;
      deps.onError?.(source, `${parsed.code}: ${parsed.detail}`);
      continue;
    }
    const fresh = new Map<string, string>();
    for (const e of parsed.value) {
      const known = deps.registry.vkeyOf(e.origin) ?? fresh.get(e.origin);
      if (known === e.vkey) continue;
      if (known !== undefined) {
        sum.refused++;
        deps.onRefused?.(
          e.origin,
          source,
          `listed with vkey ${e.vkey}, admitted with ${known}: refused (a witness never changes a log's key)`,
        );
        continue;
      }
      fresh.set(e.origin, e.vkey);
    }
    // Durable first: an admission the witness may cosign under is one it will still know after a
    // crash. A chunk's writes are issued together, so the state's group commit syncs them as one
    // batch (one fsync per chunk, not per log: 40,000 new logs are a few batches).
    const all = [...fresh];
    for (let i = 0; i < all.length; i += ADMIT_CHUNK) {
      const chunk = all.slice(i, i + ADMIT_CHUNK);
      const at = formatTime(clock());
      await Promise.all(chunk.map(([origin, vkey]) => deps.state.putAdmission({ origin, vkey, source, admittedAt: at })));
      for (const [origin, vkey] of chunk) {
        const r = deps.registry.admit({ origin, vkey });
        if (!r.ok) {
          sum.refused++;
          deps.onRefused?.(origin, source, r.detail);
        } else if (r.value.added) {
          sum.added++;
          deps.onAdded?.(origin, source);
        }
      }
    }
  }
  return sum;
}
