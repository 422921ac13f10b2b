// monitor/service.ts: `createMonitor(deps, config)`, the loop over the followed logs and the
// monitor's small HTTP side (docs/monitoring.md). One round steps every log (follow.ts), then
// compares its verified state with the policy witnesses' and the peer monitors' views
// (split-view.ts), and writes each finding as one JSON log line with its named event (events.ts).
// A long-running monitor reports a finding once (the same event, seq and source are not repeated
// while they persist); a round with `--once` reports all it finds. HTTP (node:http, bound by the
// caller): GET /healthz (200 while rounds complete, with each log's verified size and open
// problems; 503 when no round completed for three intervals plus the longest step), GET /metrics
// (Prometheus), GET /v1/monitor/views (the last verified checkpoint of each log, for peers).
// Left out: TLS, authentication (the answers are public data signed by the logs).
// Invariant: a step's failure to run (a bug, a full disk) is reported as monitor_error and the
// state stays that of the last committed step.

import { createServer, type Server } from 'node:http';
import type { Logger } from '../platform/index.ts';
import type { HttpGet } from './http-get.ts';
import type { VerifyBatch } from '../verifier/bundle/index.ts';
import { createFollower, type Finding, type Follower } from './follow.ts';
import { compareViews, otherViews } from './split-view.ts';
import { PROBLEMS, type MonitorMetrics } from './events.ts';
import type { MonitorConfig } from './config.ts';

export interface MonitorDeps {
  get: HttpGet;
  /** Device signature checks in batches (the CLI's worker pool); inline by default. */
  verifyBatch?: VerifyBatch;
  log: Logger;
  metrics: MonitorMetrics;
  stateDir: string;
  now: () => number;
}

export interface RoundResult {
  /** Findings per log origin (problems and checkpoint_verified). */
  byLog: Map<string, Finding[]>;
  problems: number;
}

export interface Monitor {
  readonly followers: readonly Follower[];
  round(opts?: { repeat?: boolean }): Promise<RoundResult>;
  /** Rounds every intervalMs until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  listen(host: string, port: number): Promise<{ url: string; server: Server }>;
}

const MAX_SEEN = 10_000;

export function createMonitor(deps: MonitorDeps, config: MonitorConfig): Monitor {
  const followers = config.logs.map((l) => createFollower(l, deps));
  const seen = new Set<string>();
  const open = new Map<string, number>();
  let lastRoundAt = deps.now();
  let slowestMs = 0;

  function report(origin: string, f: Finding, repeat: boolean): void {
    const key = `${origin}|${f.event}|${f.seq ?? ''}|${String(f.source ?? '')}|${String(f.code ?? '')}`;
    if (!repeat && seen.has(key)) return;
    if (seen.size >= MAX_SEEN) seen.clear();
    seen.add(key);
    const { detail, ...rest } = f;
    if (PROBLEMS.has(f.event)) {
      deps.metrics.inc('cookwala_monitor_findings_total', { log: origin, event: f.event });
      const level = f.event === 'fork_detected' || f.event === 'rewrite_detected' ? 'error' : 'warn';
      deps.log[level]({ ...rest, log: origin }, detail);
    } else deps.log.info({ ...rest, log: origin }, detail);
  }

  async function round(opts: { repeat?: boolean } = {}): Promise<RoundResult> {
    const t0 = deps.now();
    const byLog = new Map<string, Finding[]>();
    let problems = 0;
    for (const f of followers) {
      const found: Finding[] = [];
      try {
        const r = await f.step();
        found.push(...r.findings);
        if (r.verified)
          found.push({
            event: 'checkpoint_verified',
            seq: r.verified.size,
            entries: r.verified.entries,
            detail: `checkpoint ${r.verified.size} verified`,
          });
        found.push(...(await compareViews(deps.get, f, await otherViews(deps.get, f, config.peers), deps.stateDir)));
      } catch (e) {
        found.push({ event: 'monitor_error', err: (e as Error).message, detail: `a step of ${f.origin} failed: ${(e as Error).message}` });
      }
      const p = found.filter((x) => PROBLEMS.has(x.event) || x.event === 'monitor_error').length;
      problems += p;
      open.set(f.origin, p);
      for (const x of found) report(f.origin, x, opts.repeat === true);
      byLog.set(f.origin, found);
    }
    lastRoundAt = deps.now();
    slowestMs = Math.max(slowestMs, lastRoundAt - t0);
    return { byLog, problems };
  }

  return {
    followers,
    round,
    async run(signal) {
      while (!signal.aborted) {
        await round();
        await new Promise<void>((res) => {
          const t = setTimeout(res, config.intervalMs);
          signal.addEventListener('abort', () => (clearTimeout(t), res()), { once: true });
        });
      }
    },
    listen(host, port) {
      const server = createServer((req, res) => {
        void (async () => {
          const path = (req.url ?? '/').split('?')[0];
          if (req.method !== 'GET') {
            res.writeHead(405, { 'content-type': 'text/plain' }).end('method_not_allowed\n');
          } else if (path === '/healthz') {
            const alive = deps.now() - lastRoundAt <= 3 * config.intervalMs + slowestMs + 1000;
            const logs = followers.map((f) => ({
              log: f.origin,
              size: f.state()?.size ?? 0,
              verifiedAt: f.state()?.verifiedAt ? new Date(f.state()!.verifiedAt).toISOString() : undefined,
              servedSize: f.lastServed?.size,
              problems: open.get(f.origin) ?? 0,
            }));
            res.writeHead(alive ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: alive, logs }) + '\n');
          } else if (path === '/metrics') {
            res.writeHead(200, { 'content-type': deps.metrics.contentType }).end(await deps.metrics.render());
          } else if (path === '/v1/monitor/views') {
            const views = followers
              .map((f) => f.state())
              .filter((s) => s !== undefined && s.size > 0)
              .map((s) => ({
                log: s!.log,
                size: s!.size,
                root: s!.root,
                ...(s!.checkpoint ? { checkpoint: s!.checkpoint } : { note: s!.note }),
              }));
            res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ views }) + '\n');
          } else res.writeHead(404, { 'content-type': 'text/plain' }).end('not_found\n');
        })().catch((e: unknown) => {
          if (!res.headersSent) res.writeHead(500).end(String((e as Error).message));
        });
      });
      return new Promise((res, rej) => {
        server.once('error', rej);
        server.listen(port, host, () => {
          const a = server.address();
          const p = a && typeof a === 'object' ? a.port : port;
          res({ url: `http://${host}:${p}`, server });
        });
      });
    },
  };
}
