// sequencer/cli-init.ts: `cookwala init` (docs/design.md §12): create or complete a data directory: the
// sequencer key, the operator token, config.json, policy.json and one signed log per --log.
// Idempotent: re-running adds new logs and never overwrites a key or a token. --max-clock-skew
// and --max-delivery-delay set the time window (verifier/documents/time-bounds.ts) in config.json; each log
// declares the window in force when it was created, in its signed descriptor. --mldsa44 /
// --mldsa44-key FILE give the logs an ML-DSA-44 key beside the Ed25519 one (mldsa-key.ts).

import { parseFlags, runCli, UsageError } from '../platform/index.ts';
import { ProtocolError } from '../verifier/index.ts';
import { LOG_MODES, type LogMode } from '../verifier/documents/index.ts';
import { DEFAULT_LOG, DEFAULT_MODE } from './config.ts';
import {
  DEFAULT_TIME_BOUNDS,
  formatDuration,
  MAX_CLOCK_SKEW_LIMIT_MS,
  MAX_DELIVERY_DELAY_LIMIT_MS,
  parseDuration,
} from '../verifier/documents/index.ts';
import { initDataDir } from './data-dir.ts';
import { logVkey } from '../verifier/documents/index.ts';
import { storeBackendOf } from './store-backend.ts';
import { claimDataDir, DEFAULT_DIRS, readBoundedText } from '../platform/index.ts';

/** Largest ML-DSA-44 skey file read (the line is about 110 bytes). */
const MAX_KEY_FILE_BYTES = 4096;

const USAGE = `usage: cookwala init [--data DIR] [--log ORIGIN]... [--mode full|hash_only] [--port N] [--host H]
                     [--max-clock-skew DURATION] [--max-delivery-delay DURATION] [--store postgres://…]
                     [--mldsa44 | --mldsa44-key SKEYFILE]

Creates DIR (default ${DEFAULT_DIRS.sequencer}; a demo's, a witness's or an executor's DIR is refused): sequencer.key.json and operator.token (mode 0600), config.json,
policy.json, and a LevelDB with a signed descriptor for each --log (default ${DEFAULT_LOG}).
--mode applies to logs created by this run (default ${DEFAULT_MODE}). Safe to re-run.
--max-clock-skew: how far a device's signedAt may lie ahead of the sequencer's clock (default
${formatDuration(DEFAULT_TIME_BOUNDS.maxClockSkewMs)}); --max-delivery-delay: how far behind it, so an offline outbox still delivers
(default ${formatDuration(DEFAULT_TIME_BOUNDS.maxDeliveryDelayMs)}). DURATION: 300000 (ms), 300s, 5m, 72h, 3d. Saved in config.json;
logs created from then on declare them in their descriptor (existing logs keep theirs).
--store: create the logs in that PostgreSQL database instead (pass the same --store to \`cookwala sequencer\`).
--mldsa44: add a post-quantum ML-DSA-44 log key (sequencer.mldsa44.skey, 0600, never overwritten; a C2SP
signed-note skey holding the 32-byte seed); --mldsa44-key FILE imports one in that form, named after
one of the logs. Every checkpoint then carries the log's ML-DSA-44 signature beside its Ed25519 one.`;

function durationFlag(v: string | undefined, flag: string, max: number): number | undefined {
  if (v === undefined) return undefined;
  const d = parseDuration(v);
  if (!d.ok) throw new UsageError(`${flag}: ${d.detail}`);
  if (d.value > max) throw new UsageError(`${flag} is at most ${formatDuration(max)}`);
  return d.value;
}

export function run(argv: string[]): Promise<number> {
  return runCli(argv, USAGE, async () => {
    const { values, positionals } = parseFlags(argv, {
      data: { type: 'string' },
      log: { type: 'string', multiple: true },
      mode: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'max-clock-skew': { type: 'string' },
      'max-delivery-delay': { type: 'string' },
      store: { type: 'string' },
      mldsa44: { type: 'boolean' },
      'mldsa44-key': { type: 'string' },
    });
    if (values.mldsa44 && values['mldsa44-key'] !== undefined)
      throw new UsageError('--mldsa44 (a new key) or --mldsa44-key FILE (import), not both');
    const store = storeBackendOf({ store: values.store });
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    if (values.mode !== undefined && !LOG_MODES.includes(values.mode as LogMode)) throw new UsageError('--mode is full or hash_only');
    const port = values.port === undefined ? undefined : Number(values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
      throw new UsageError('--port is an integer from 0 to 65535');
    const maxClockSkewMs = durationFlag(values['max-clock-skew'], '--max-clock-skew', MAX_CLOCK_SKEW_LIMIT_MS);
    const maxDeliveryDelayMs = durationFlag(values['max-delivery-delay'], '--max-delivery-delay', MAX_DELIVERY_DELAY_LIMIT_MS);
    const dir = values.data ?? DEFAULT_DIRS.sequencer;
    let mldsa44: 'new' | { skey: string } | undefined = values.mldsa44 ? 'new' : undefined;
    if (values['mldsa44-key'] !== undefined) {
      const text = await readBoundedText(values['mldsa44-key'], MAX_KEY_FILE_BYTES).catch((e: Error) => e);
      if (text instanceof Error) {
        process.stderr.write(`cookwala init: --mldsa44-key ${values['mldsa44-key']}: ${text.message}\n`);
        return 2;
      }
      mldsa44 = { skey: text };
    }
    const claim = await claimDataDir(dir, 'sequencer', { create: true });
    if (!claim.ok) {
      process.stderr.write(`cookwala init: ${claim.reason}\n`);
      return 2;
    }
    try {
      const r = await initDataDir({
        dir,
        logs: values.log,
        mode: values.mode as LogMode | undefined,
        port,
        host: values.host,
        maxClockSkewMs,
        maxDeliveryDelayMs,
        store,
        mldsa44,
      });
      process.stdout.write(`cookwala init: ${r.dir} (sequencer key ${r.kid})\n`);
      for (const c of r.created) process.stdout.write(`  created ${c}\n`);
      if (r.created.length === 0) process.stdout.write('  nothing to create; everything was in place\n');
      // The C2SP vkey (docs/design.md §7a): what a tlog-witness operator admits the log with.
      for (const l of r.config.logs) {
        process.stdout.write(`  log ${l.log} (${l.mode})\n    C2SP vkey ${logVkey(l.log, r.publicKey)}\n`);
        if (r.mldsa) process.stdout.write(`    C2SP mldsa44 vkey ${r.mldsa.vkey(l.log)}\n`);
      }
      if (r.created.includes(r.config.policy))
        process.stdout.write(
          `  ${r.config.policy} has no witness yet (quorum 0): the log is UNWITNESSED until you add some with \`cookwala policy add-witness --data ${dir} --from W/witness-info.json\`\n`,
        );
      process.stdout.write(
        `  time window for new logs: maxClockSkew ${formatDuration(r.config.maxClockSkewMs)}, maxDeliveryDelay ${formatDuration(r.config.maxDeliveryDelayMs)}\n`,
      );
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
