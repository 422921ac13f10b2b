// monitor/cli.ts: `cookwala monitor --config FILE [--state DIR] [--once] [--listen HOST:PORT]`
// (docs/monitoring.md). Reads the config (config.ts), opens the state directory, and either runs
// one round and exits (--once, for cron: 0 every log verified and nothing found, 1 a problem
// found, 2 the config or the state is unusable) or follows the logs until SIGINT/SIGTERM, serving
// /healthz, /metrics and /v1/monitor/views when --listen is given. Output: JSON lines (pino) with
// the named events of events.ts. Left out: daemonising (run it under a supervisor).
// Invariant: --once exits 0 only when every log's step completed without a finding.

import { mkdir } from 'node:fs/promises';
import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { createLogger, createSigPool } from '../platform/index.ts';
import { ConfigError, readMonitorConfig, type MonitorConfig } from './config.ts';
import type { Logger, SigPool } from '../platform/index.ts';
import { createMonitorMetrics } from './events.ts';
import { httpGet } from './http-get.ts';
import { createMonitor } from './service.ts';

const USAGE = `usage: cookwala monitor --config FILE [--state DIR] [--once] [--listen HOST:PORT]

Follows transparency logs (ours and any C2SP tlog-tiles log): verifies each new checkpoint's
signatures, quorum and consistency with the last one, and every new entry; compares the view with
the policy witnesses and peer monitors. Events are JSON lines on stdout (docs/monitoring.md).

  --config FILE        MonitorConfig JSON (logs, policies, peers, intervalMs, staleAfterMs)
  --state DIR          where the per-log state and fork proofs are kept (default ./monitor-state)
  --once               one round, then exit: 0 all good, 1 a problem found, 2 unusable input
  --listen HOST:PORT   serve GET /healthz, /metrics and /v1/monitor/views
`;

export async function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      config: { type: 'string' },
      state: { type: 'string' },
      once: { type: 'boolean' },
      listen: { type: 'string' },
    });
    if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (!values.config) throw new UsageError('--config FILE is required');
    const listen = values.listen ? /^([0-9.]+|\[[0-9a-f:]+\]|localhost):([0-9]{1,5})$/i.exec(values.listen) : undefined;
    if (values.listen && !listen) throw new UsageError('--listen is HOST:PORT, e.g. 127.0.0.1:9464');
    let config;
    try {
      config = await readMonitorConfig(values.config);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      process.stderr.write(`cookwala monitor: ${e.message}\n`);
      return 2;
    }
    const stateDir = values.state ?? 'monitor-state';
    try {
      await mkdir(stateDir, { recursive: true });
    } catch (e) {
      process.stderr.write(`cookwala monitor: --state ${stateDir}: ${(e as Error).message}\n`);
      return 2;
    }
    const log = createLogger({ service: 'monitor', level: process.env.COOKWALA_LOG_LEVEL });
    const metrics = createMonitorMetrics();
    // Device signatures on every core, as `cookwala verify` checks them (platform/sig-pool.ts).
    const pool = createSigPool();
    try {
      return await follow(values, listen, config, stateDir, log, metrics, pool);
    } finally {
      await pool.close();
    }
  });
}

async function follow(
  values: { once?: boolean },
  listen: RegExpExecArray | null | undefined,
  config: MonitorConfig,
  stateDir: string,
  log: Logger,
  metrics: ReturnType<typeof createMonitorMetrics>,
  pool: SigPool,
): Promise<number> {
  const monitor = createMonitor(
    { get: httpGet, verifyBatch: (items) => pool.verify(items), log, metrics, stateDir, now: Date.now },
    config,
  );
  if (values.once) {
    const r = await monitor.round({ repeat: true });
    const unusable = [...r.byLog.values()].some((f) => f.some((x) => x.event === 'monitor_error'));
    return unusable ? 2 : r.problems > 0 ? 1 : 0;
  }
  const stop = new AbortController();
  const onSignal = (sig: string) => {
    log.info({ event: 'shutdown', signal: sig }, `${sig}: finishing the current step`);
    stop.abort();
  };
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  let server;
  if (listen) {
    const host = listen[1].replace(/^\[|\]$/g, '');
    const l = await monitor.listen(host, Number(listen[2]));
    server = l.server;
    log.info({ event: 'listening', url: l.url }, `monitor on ${l.url}`);
  }
  await monitor.run(stop.signal);
  server?.close();
  return 0;
}
