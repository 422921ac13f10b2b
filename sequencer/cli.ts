// sequencer/cli.ts: `cookwala sequencer` (docs/design.md §12): load the data directory, open every log
// (store_locked is fatal with exit 2, store_behind_checkpoint with exit 1, each one clear line), listen,
// print the URL. SIGTERM/SIGINT: stop accepting, finish in-flight batches, sign a last
// checkpoint, close the stores, exit 0. A failed store write exits 1 at once: only the disk knows
// whether that batch landed, and a restart reads the truth back from it. While it runs it writes
// JSON log lines to stdout (platform/logger.ts, level COOKWALA_LOG_LEVEL, default info):
// `listening` (url, logs), `shutdown`, `store_failed` and the events of the parts it runs;
// errors that stop it from starting stay plain lines on stderr, as for every command. A change to
// the witness policy or config.witnessPeers (`cookwala policy add-witness`), or SIGHUP, re-opens it
// on the same port with the new files (policy-watch.ts): `policy_reload`, `policy_reloaded`; the
// listening socket stays open through it (held-listener.ts), so no connection is refused.

import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { ProtocolError } from '../verifier/index.ts';
import { openSequencer, type Sequencer } from './app.ts';
import { loadDataDir } from './data-dir.ts';
import { claimDataDir, DEFAULT_DIRS } from '../platform/index.ts';
import { startWitnessing, type WitnessHook } from '../witness/client/index.ts';
import { watchPolicy } from './policy-watch.ts';
import { createLogger } from '../platform/index.ts';
import { storeBackendOf } from './store-backend.ts';
import { createHeldListener } from './held-listener.ts';
import type { AddressInfo } from 'node:net';

const USAGE = `usage: cookwala sequencer [--data DIR] [--port N] [--host H] [--memory-budget MIB] [--max-open-logs N] [--store postgres://… [--advertise URL] [--lease-ms N]]

Runs the sequencer of the data directory made by \`cookwala init\` (default ${DEFAULT_DIRS.sequencer}); --port and
--host override config.json for this run (--port 0 picks a free port). --store keeps the logs in that
PostgreSQL database (created there by \`cookwala init --store\`) instead of LevelDB under DIR/logs; several
sequencers with copies of DIR may then run for the same logs: one leads each log, the others answer
503 not_leader naming the leader's --advertise URL; a leader silent for --lease-ms (default 3000) loses the lease.
--memory-budget (MiB, default 2048, config memoryBudgetMB) is what all log stores share; --max-open-logs
(config maxOpenLogs) caps the stores open at once (idle logs close and reopen on their next request).`;

const FATAL_ON_START = new Set([
  'store_locked',
  'store_behind_checkpoint',
  'descriptor_mismatch',
  'not_found',
  'invalid_document',
  'unknown_field',
  'bad_json',
]);

export function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      data: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      store: { type: 'string' },
      advertise: { type: 'string' },
      'lease-ms': { type: 'string' },
      'memory-budget': { type: 'string' },
      'max-open-logs': { type: 'string' },
    });
    const limits = hostLimitFlags(values);
    const storeBackend = storeBackendOf(values);
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
      throw new UsageError('--port is an integer from 0 to 65535');
    const dir = values.data ?? DEFAULT_DIRS.sequencer;
    const claim = await claimDataDir(dir, 'sequencer', { create: false, createWith: `cookwala init --data ${dir}` });
    if (!claim.ok) {
      process.stderr.write(`cookwala sequencer: ${claim.reason}\n`);
      return 2;
    }
    const logger = createLogger({ service: 'sequencer', level: process.env.COOKWALA_LOG_LEVEL });
    const listenPort = port;
    const listener = createHeldListener();
    let address: AddressInfo | undefined;
    // One start: load the data directory, witnessing, the app, listen. Run again (same port) when
    // the witness policy changes (policy-watch.ts): the operator never restarts by hand.
    const start = async (): Promise<{ code: number } | { seq: Sequencer; witnesses: WitnessHook | undefined; url: string }> => {
      let seq: Sequencer | undefined;
      let witnesses: WitnessHook | undefined;
      try {
        // Witnessing (docs/design.md §7): with a policy quorum > 0, checkpoints are published only once
        // cosigned by that many of config.witnessPeers; quorum 0 publishes them as signed.
        const data = await loadDataDir(dir);
        if (!data.policy || data.policy.quorum === 0)
          logger.warn(
            { event: 'unwitnessed', log: data.policy?.log ?? null },
            `the witness policy asks for no witness (quorum 0): checkpoints are published with the sequencer's signature alone; add witnesses with \`cookwala policy add-witness --data ${dir} --from W/witness-info.json\``,
          );
        witnesses = await startWitnessing({
          dataDir: dir,
          witnessPeers: data.config.witnessPeers,
          policy: data.policy,
          logger,
          metrics: {
            set: (n, v, l) => seq?.metrics.set(n as never, v, l),
            inc: (n, l, k) => seq?.metrics.inc(n as never, l, k),
            observe: (n, v, l) => seq?.metrics.observe(n as never, v, l),
          },
        });
        seq = await openSequencer(dir, {
          publisherFor: witnesses?.publisherFor((origin) => seq?.logs.get(origin)?.store),
          logger,
          storeBackend,
          ...(Object.keys(limits).length > 0 ? { config: limits } : {}),
          // Logged as store_failed (synchronously) before this runs.
          onFatal: () => process.exit(1),
        });
      } catch (e) {
        await witnesses?.close();
        if (e instanceof ProtocolError && FATAL_ON_START.has(e.code)) {
          const hint =
            e.code === 'store_locked'
              ? ' (another sequencer holds this data directory)'
              : e.code === 'store_behind_checkpoint'
                ? ' (refusing to re-sequence a signed seq: restore the store from a backup at or after its last checkpoint)'
                : '';
          process.stderr.write(`cookwala sequencer: ${e.code}: ${e.detail}${hint}\n`);
          // Another process holding the store is the environment (exit 2); a bad store or file is 1.
          return { code: e.code === 'store_locked' ? 2 : 1 };
        }
        throw e;
      }
      const host = values.host ?? seq.ctx.config.host;
      // One listening socket for the life of the process (held-listener.ts): a re-open hands it
      // to the new app, so a policy reload refuses no connection.
      if (!address) {
        try {
          address = await listener.listen(host, listenPort ?? seq.ctx.config.port);
        } catch (e) {
          await seq.close();
          await witnesses?.close();
          const busy = (e as NodeJS.ErrnoException).code === 'EADDRINUSE';
          process.stderr.write(
            `cookwala sequencer: cannot listen on ${host}:${listenPort ?? seq.ctx.config.port}: ${busy ? 'the port is in use (another sequencer?): stop it, or pass --port N (0 picks a free one)' : `${(e as Error).message} (check --host and --port)`}\n`,
          );
          return { code: 2 };
        }
      }
      await seq.app.ready();
      listener.serve(seq.app.server);
      const a = address;
      const url = `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
      return { seq, witnesses, url };
    };
    // Watch before the first load, so a policy changed while the sequencer starts is not missed.
    let onPolicyChange: (why: string) => void = (why) => void (early = why);
    let early: string | undefined;
    const watcher = await watchPolicy({
      dir,
      onChange: (why) => onPolicyChange(why),
      onUnreadable: (detail) => logger.warn({ event: 'policy_unreadable', detail }, `${detail}: keeping the witness policy in force`),
    });
    const first = await start().catch(async (e) => {
      watcher.close();
      await listener.close();
      throw e;
    });
    if ('code' in first) {
      watcher.close();
      await listener.close();
      return first.code;
    }
    let { seq, witnesses } = first;
    const url = first.url;
    const origins = seq.logs.origins();
    // Before `listening` is announced: a SIGTERM sent as soon as it is read stops the sequencer
    // cleanly (the handlers run on a later turn, when `stop` below is set).
    let stop: (signal: string) => void = () => undefined;
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    logger.info({ event: 'listening', url, logs: origins }, `listening on ${url} (logs: ${origins.join(', ')})`);
    return new Promise<number>((resolve) => {
      let stopping = false;
      let reloading: Promise<void> = Promise.resolve();
      const reload = (why: string) => {
        reloading = reloading.then(async () => {
          if (stopping) return;
          logger.info({ event: 'policy_reload', why }, `${why}: re-opening with the new witness policy (in-flight batches finish first)`);
          listener.serve(undefined); // new connections wait for the re-opened app
          await seq.close();
          await witnesses?.close().catch(() => undefined);
          const next = await start();
          if ('code' in next) {
            watcher.close();
            await listener.close();
            return resolve(next.code);
          }
          ({ seq, witnesses } = next);
          const p = seq.ctx.config.policy;
          logger.info({ event: 'policy_reloaded', url: next.url }, `policy reloaded from ${p}; listening on ${next.url} again`);
        });
      };
      onPolicyChange = reload;
      if (early) reload(early);
      stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        watcher.close();
        logger.info({ event: 'shutdown', signal }, `${signal}: finishing in-flight batches`);
        const running = reloading.then(() => seq);
        running
          .then(async (r) => {
            listener.serve(undefined);
            await Promise.all([r.close(), listener.close()]);
          })
          .then(
            async () => {
              await witnesses?.close().catch(() => undefined);
              resolve(0);
            },
            (e) => {
              logger.error({ event: 'service_error', err: e }, 'close failed');
              resolve(1);
            },
          );
      };
    });
  });
}

/** --memory-budget MIB and --max-open-logs N: this run's values of config memoryBudgetMB and maxOpenLogs. */
function hostLimitFlags(v: { 'memory-budget'?: string; 'max-open-logs'?: string }): { memoryBudgetMB?: number; maxOpenLogs?: number } {
  const out: { memoryBudgetMB?: number; maxOpenLogs?: number } = {};
  if (v['memory-budget'] !== undefined) {
    const n = Number(v['memory-budget']);
    if (!/^[0-9]+$/.test(v['memory-budget']) || n < 300 || n > 1_048_576)
      throw new UsageError('--memory-budget is MiB, an integer from 300 to 1048576');
    out.memoryBudgetMB = n;
  }
  if (v['max-open-logs'] !== undefined) {
    const n = Number(v['max-open-logs']);
    if (!/^[0-9]+$/.test(v['max-open-logs']) || n < 1 || n > 100_000)
      throw new UsageError('--max-open-logs is an integer from 1 to 100000');
    out.maxOpenLogs = n;
  }
  return out;
}
