// sequencer/cli-init.ts: `cookwala init` (DESIGN §12): create or complete a data directory: the
// sequencer key, the operator token, config.json, policy.json and one signed log per --log.
// Idempotent: re-running adds new logs and never overwrites a key or a token.

import { parseFlags, runCli, UsageError } from '../verifier/cli/args.ts';
import { ProtocolError } from '../verifier/errors.ts';
import { LOG_MODES, type LogMode } from '../verifier/log-descriptor.ts';
import { DEFAULT_LOG, DEFAULT_MODE } from './config.ts';
import { initDataDir } from './data-dir.ts';

const USAGE = `usage: cookwala init [--data DIR] [--log ORIGIN]... [--mode full|hash_only] [--port N] [--host H]

Creates DIR (default ./data): sequencer.key.json and operator.token (mode 0600), config.json,
policy.json, and a LevelDB with a signed descriptor for each --log (default ${DEFAULT_LOG}).
--mode applies to logs created by this run (default ${DEFAULT_MODE}). Safe to re-run.`;

export function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      data: { type: 'string' },
      log: { type: 'string', multiple: true },
      mode: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (values.mode !== undefined && !LOG_MODES.includes(values.mode as LogMode)) throw new UsageError('--mode is full or hash_only');
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) throw new UsageError('--port is an integer from 0 to 65535');
    try {
      const r = await initDataDir({ dir: values.data ?? './data', logs: values.log, mode: values.mode as LogMode | undefined, port, host: values.host });
      process.stdout.write(`cookwala init: ${r.dir} (sequencer key ${r.kid})\n`);
      for (const c of r.created) process.stdout.write(`  created ${c}\n`);
      if (r.created.length === 0) process.stdout.write('  nothing to create; everything was in place\n');
      for (const l of r.config.logs) process.stdout.write(`  log ${l.log} (${l.mode})\n`);
      return 0;
    } catch (e) {
      if (e instanceof ProtocolError) {
        process.stderr.write(`cookwala init: ${e.code}: ${e.detail}\n`);
        return 1;
      }
      throw e;
    }
  });
}
