// platform/logger.ts: the one logger of every running service (sequencer, witness, the sequencer's
// witness client, executor): pino, the logger fastify itself uses (the sequencer hands the same
// instance to fastify as `loggerInstance`). `createLogger({service, level, destination})` is a
// factory, passed down in deps; nothing here is a global. Output is one JSON object per line on
// stdout (`level` as a name, `time` ISO 8601, `service`, `event`, `log`, `msg`): operators alert
// on the `event` field (LOG_EVENTS below names them all) and filter one log by its origin in `log`.
// When stdout is a terminal the same records are printed as short human-readable lines by
// `prettyDestination` (a dozen lines of our own, synchronous, no worker thread: pino-pretty would
// bring eleven packages and a transport thread for the one thing we need). `readLogLines` is the
// reader of that output for the demo and tests (non-JSON lines are skipped, never thrown on).
// Left out: log shipping, rotation (stdout is the interface; the supervisor keeps the file).
// Invariant: an event name is one of LOG_EVENTS, and a record about one log carries its `log`.

import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Every named event a service logs, with what it means to an operator (docs/operators.md "Logs and metrics"). */
export const LOG_EVENTS = {
  listening: 'a service is up: its URL (sequencer, executor) or multiaddrs and status URL (witness)',
  shutdown: 'a service was asked to stop (signal) and is finishing in-flight work',
  log_created: 'a sequencer started hosting a log (POST /v1/logs)',
  checkpoint_signed: 'the sequencer signed a checkpoint of a log',
  checkpoint_published: 'a checkpoint reached its witness quorum (or quorum 0) and is published',
  quorum_lost: 'fewer witnesses than the policy quorum cosigned: nothing is published (the reason says who answered what)',
  quorum_restored: 'the quorum is met again after a quorum_lost',
  witness_error: 'one witness could not be asked or refused a checkpoint (unreachable, conflict, a bad cosignature, gossip failure)',
  witness_cosigned: 'a witness cosigned a checkpoint: its seq, transport and latency (one line per witness, whatever its transport)',
  fork_detected: 'two different checkpoints of one log at one seq, both signed by its sequencer key: a split view (page someone)',
  store_failed: 'a log store write failed; the sequencer exits and restarts from disk',
  store_migrated: "a log's LevelDB store was moved to this build's key layout at open (`from`, `to`, `moved` records, `ms`)",
  device_lost: 'a device missed its heartbeats; a cookwala.hub.device_lost entry was appended',
  lease_acquired: 'this sequencer won the PostgreSQL lease of a log and leads it (`epoch`, `reason`)',
  lease_lost: 'this sequencer lost the lease of a log it led (`epoch`, `reason`: the epoch moved, the session or a write failed)',
  lease_released: 'this sequencer gave back the lease of a log it led on closing it (`epoch`, `reason`: shutdown, evicted)',
  erased: 'a payload was erased (operator request or consent withdrawn)',
  erasure_wipe_deferred:
    'an erased payload is still in the PostgreSQL files: a snapshot older than the erasure (pg_dump, a long transaction, a slot) holds its wipe back (`seqs`, `reason`); retried',
  erasure_wiped: 'the erased payloads whose wipe had waited (or was redone at a load) left the PostgreSQL files (`seqs`)',
  service_error: 'a background task of a service failed (details in err)',
  unwitnessed: 'the witness policy asks for no witness (quorum 0): checkpoints go out with the sequencer signature alone',
  execution_status: 'an execution on a device changed status (`execution`, `seq`, `status`, `reason`)',
  attendance: 'a device learned whether a person is present (`available`)',
  local_stop: 'a device was stopped locally (control socket or SIGUSR2), not over HTTP',
  policy_unreadable: 'the sequencer could not read a changed witness policy file and keeps the one in force',
  policy_reload: 'the sequencer re-opens its logs with a changed witness policy',
  policy_reloaded: 'the sequencer listens again after a policy reload',
  c2sp_refused: 'a witness refused a C2SP (tlog-witness) checkpoint; code and note say why',
  log_admitted: 'a witness admitted a log: from a followed log list, or from its config while running (`witness add-log`)',
  config_refused:
    'a running witness could not take its changed witness.json (or one log in it, named with another key): it keeps the logs it has',
  config_restart_needed: 'witness.json changed a field a running witness takes only at its next start (listen, httpPort, name, c2spName)',
  witnessing: 'a sequencer asks its witnesses: the libp2p peers, the C2SP witness URLs and the quorum',
  device_registered: 'a device registered its key with the sequencer (executor --register-token)',
  http_server: 'a line of the HTTP server library itself (fastify): the address it listens on, a request it could not answer',
  log_list_refused: 'a witness refused one entry of a log list (the admitted key is kept)',
  log_list_error: 'a witness could not fetch or read a log list',
} as const;

export type LogEvent = keyof typeof LOG_EVENTS;

export interface LoggerOptions {
  /** The service name written into every record (`service`). */
  service: string;
  /** pino level name; default info (COOKWALA_LOG_LEVEL in the CLIs). */
  level?: string;
  /** Where lines go; default stdout, human-readable when stdout is a terminal. */
  destination?: DestinationStream;
}

export function createLogger(o: LoggerOptions): Logger {
  const destination =
    o.destination ?? (process.stdout.isTTY ? prettyDestination(process.stdout) : pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      level: o.level ?? 'info',
      base: { service: o.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Every line carries an `event`: fastify's own lines (a bare message, "Server listening at …")
      // are `http_server`; ours always name theirs.
      hooks: {
        logMethod(args, method) {
          if (typeof args[0] === 'string') return method.apply(this, [{ event: 'http_server' }, ...(args as unknown[])] as never);
          return method.apply(this, args);
        },
      },
    },
    destination,
  );
}

/** A logger that writes nothing (library defaults, unit tests that do not look at logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export interface LogRecord {
  level: string;
  time: string;
  service?: string;
  event?: string;
  log?: string;
  msg?: string;
  [k: string]: unknown;
}

/** The JSON log records in a service's output, in order; other lines are skipped. */
export function readLogLines(text: string): LogRecord[] {
  const out: LogRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && typeof (v as LogRecord).level === 'string') out.push(v as LogRecord);
    } catch {
      // not a log record
    }
  }
  return out;
}

const SHOWN = new Set(['level', 'time', 'service', 'event', 'log', 'msg', 'pid', 'hostname']);

/** One record as a terminal line: `12:00:00.123 WARN  witness fork_detected [log] msg k=v …`. */
export function formatLogRecord(r: LogRecord): string {
  const time = typeof r.time === 'string' ? r.time.slice(11, 23) : '';
  const rest = Object.entries(r)
    .filter(([k]) => !SHOWN.has(k))
    .map(
      ([k, v]) =>
        `${k}=${typeof v === 'string' ? v : v && typeof v === 'object' && typeof (v as Error).message === 'string' ? (v as Error).message : JSON.stringify(v)}`,
    );
  return [time, r.level.toUpperCase().padEnd(5), r.service, r.event, r.log ? `[${r.log}]` : undefined, r.msg, ...rest]
    .filter((x) => x !== undefined && x !== '')
    .join(' ');
}

/** A pino destination printing formatLogRecord lines to a terminal stream. */
export function prettyDestination(out: { write(s: string): unknown }): DestinationStream {
  return {
    write(line: string) {
      const [r] = readLogLines(line);
      out.write(r ? formatLogRecord(r) + '\n' : line);
    },
  };
}
