// sequencer/cli.ts: `cookwala sequencer` (DESIGN §12): load the data directory, open every log
// (store_locked and store_behind_checkpoint are fatal: a clear message and exit code 1), listen,
// print the URL. SIGTERM/SIGINT: stop accepting, finish in-flight batches, sign a last
// checkpoint, close the stores, exit 0. A failed store write exits 1 at once: only the disk knows
// whether that batch landed, and a restart reads the truth back from it.

import { parseFlags, runCli, UsageError } from '../platform/args.ts';
import { ProtocolError } from '../verifier/errors.ts';
import { openSequencer, type Sequencer } from './app.ts';
import { loadDataDir } from './data-dir.ts';
import { startWitnessing, type WitnessHook } from '../witness/client/sequencer-side.ts';

const USAGE = `usage: cookwala sequencer [--data DIR] [--port N] [--host H]

Runs the sequencer of the data directory made by \`cookwala init\` (default ./data); --port and
--host override config.json for this run (--port 0 picks a free port).`;

const FATAL_ON_START = new Set(['store_locked', 'store_behind_checkpoint', 'descriptor_mismatch', 'not_found', 'invalid_document', 'unknown_field', 'bad_json']);

export function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, { data: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError('--port is an integer from 0 to 65535');
    const dir = values.data ?? './data';
    let seq: Sequencer | undefined;
    let witnesses: WitnessHook | undefined;
    try {
      // Witnessing (DESIGN §7): with a policy quorum > 0, checkpoints are published only once
      // cosigned by that many of config.witnessPeers; quorum 0 publishes them as signed.
      const data = await loadDataDir(dir);
      witnesses = await startWitnessing({
        dataDir: dir,
        witnessPeers: data.config.witnessPeers,
        policy: data.policy,
        log: (line) => process.stderr.write(`cookwala sequencer: ${line}\n`),
        metrics: { set: (n, v, l) => seq?.metrics.set(n as never, v, l), inc: (n, l, k) => seq?.metrics.inc(n as never, l, k) },
      });
      seq = await openSequencer(dir, {
        publisherFor: witnesses?.publisherFor((origin) => seq?.logs.get(origin)?.store),
        logger: { level: process.env.COOKWALA_LOG_LEVEL ?? 'warn' },
        onFatal: (e) => {
          process.stderr.write(`cookwala sequencer: a log store write failed, exiting: ${(e as Error)?.message ?? e}\n`);
          process.exit(1);
        },
      });
    } catch (e) {
      await witnesses?.close();
      if (e instanceof ProtocolError && FATAL_ON_START.has(e.code)) {
        const hint = e.code === 'store_locked' ? ' (another sequencer holds this data directory)' : e.code === 'store_behind_checkpoint' ? ' (refusing to re-sequence a signed seq: restore the store from a backup at or after its last checkpoint)' : '';
        process.stderr.write(`cookwala sequencer: ${e.code}: ${e.detail}${hint}\n`);
        return 1;
      }
      throw e;
    }
    const host = values.host ?? seq.ctx.config.host;
    try {
      await seq.app.listen({ host, port: port ?? seq.ctx.config.port });
    } catch (e) {
      await seq.close();
      await witnesses?.close();
      process.stderr.write(`cookwala sequencer: cannot listen on ${host}:${port ?? seq.ctx.config.port}: ${(e as Error).message}\n`);
      return 1;
    }
    const a = seq.app.server.address();
    const url = a && typeof a === 'object' ? `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : String(a);
    process.stdout.write(`cookwala sequencer: listening on ${url} (logs: ${seq.logs.all().map((h) => h.origin).join(', ')})\n`);
    return new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stdout.write(`cookwala sequencer: ${signal}: finishing in-flight batches\n`);
        const running = seq;
        running.close().then(
          async () => {
            await witnesses?.close().catch(() => undefined);
            resolve(0);
          },
          (e) => {
            process.stderr.write(`cookwala sequencer: close failed: ${(e as Error).message}\n`);
            resolve(1);
          },
        );
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
  });
}
