// platform/service-url.ts: what a CLI says when the URL it was given is unusable (one
// line per environment fault, naming the flag to fix; exit 2). Before a command reads a log from
// `--url`, it asks `GET /.well-known/cookwala.json` which kind of cookwala service answers there
// (the KeyRecord's role: sequencer or witness) and whether it hosts the log. Connection faults
// (refused, unknown host, timeout) become one line too. Left out: TLS detail (fetch's message is
// kept). Invariant: bounded (a timeout on every request, at most 1 MiB read), never throws for a
// network fault: every outcome is a Result whose detail is the line to print.

import { parseJson } from '../verifier/encoding/index.ts';
import type { Result } from '../verifier/index.ts';

export type ServiceKind = 'sequencer' | 'witness';

export interface ServiceInfo {
  kind: ServiceKind;
  logs: string[];
  keys: unknown[];
}

const MAX_BYTES = 1 << 20;

/** One line for a fetch that failed below HTTP (what Node's fetch puts in `cause`). */
export function describeFetchError(e: unknown, url: string, flag: string): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code ?? (e as { name?: string })?.name;
  if (code === 'ECONNREFUSED') return `nothing listens at ${url} (connection refused): is the service running, and is ${flag} right?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host of ${url} is unknown: check ${flag}`;
  if (code === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'AbortError')
    return `${url} did not answer in time: check ${flag}`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `${url} closed the connection: is it a cookwala service? check ${flag}`;
  return `cannot reach ${url}: ${cause?.message ?? (e as Error)?.message ?? String(e)} (check ${flag})`;
}

/** GET a small JSON document; any fault is one line naming the flag. */
export async function getSmallJson(
  url: string,
  flag: string,
  timeoutMs = 10_000,
  shown = url,
): Promise<Result<{ status: number; body: unknown }>> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (e) {
    return { ok: false, code: 'witness_unavailable', detail: describeFetchError(e, shown, flag) };
  }
  const text = await res.text().catch(() => '');
  if (text.length > MAX_BYTES)
    return { ok: false, code: 'body_too_large', detail: `${url} answered more than 1 MiB: is ${flag} a cookwala service?` };
  const j = parseJson(text);
  return { ok: true, value: { status: res.status, body: j.ok ? j.value : undefined } };
}

/** Which cookwala service answers at `base` (GET /.well-known/cookwala.json). */
export async function probeService(base: string, flag: string): Promise<Result<ServiceInfo>> {
  const root = base.replace(/\/+$/, '');
  const r = await getSmallJson(`${root}/.well-known/cookwala.json`, flag, 10_000, root);
  if (!r.ok) return r;
  const b = r.value.body as { keys?: unknown; logs?: unknown } | undefined;
  const keys = b && Array.isArray(b.keys) ? b.keys : undefined;
  if (r.value.status !== 200 || !keys)
    return {
      ok: false,
      code: 'not_found',
      detail: `${root} is not a cookwala service (GET /.well-known/cookwala.json answered ${r.value.status}): check ${flag}`,
    };
  const role = (keys[0] as { role?: unknown } | undefined)?.role;
  if (role !== 'sequencer' && role !== 'witness')
    return { ok: false, code: 'not_found', detail: `${root} is not a cookwala sequencer or witness: check ${flag}` };
  const logs = Array.isArray(b!.logs) ? (b!.logs as unknown[]).filter((x): x is string => typeof x === 'string') : [];
  return { ok: true, value: { kind: role, logs, keys } };
}

/** The URL must be a sequencer hosting `log`: else one line that says what answers there instead. */
export async function expectSequencer(base: string, log: string | undefined, flag = '--url'): Promise<Result<ServiceInfo>> {
  const p = await probeService(base, flag);
  if (!p.ok) return p;
  if (p.value.kind !== 'sequencer')
    return {
      ok: false,
      code: 'not_found',
      detail: `${base} is a cookwala witness, not a sequencer: point ${flag} at the sequencer (\`cookwala sequencer\` prints its URL)`,
    };
  if (log !== undefined && !p.value.logs.includes(log))
    return {
      ok: false,
      code: 'not_found',
      detail: `the sequencer at ${base} hosts no log ${log} (it hosts: ${p.value.logs.join(', ') || 'none'}): check --log`,
    };
  return p;
}
