// testkit/logs.ts: reading the JSON log lines of services in tests (platform/logger.ts). In
// process: `captureLogger()` is a real pino logger whose destination keeps every record and wakes
// whoever waits for one (`next(event)`: resolved by the write itself, never by polling). Across
// processes: `logEvents(stream)` follows a child's stdout line by line with the same `next`.
// Never imported by production code.

import type { Readable } from 'node:stream';
import { createLogger, readLogLines, type LogRecord, type Logger } from '../platform/logger.ts';
import { changes, waitFor } from './wait.ts';

export interface LogWatch {
  readonly records: LogRecord[];
  /** Records with this event name, so far. */
  events(event: string): LogRecord[];
  /** The first record (already written or still to come) with this event that `match` accepts. */
  next(event: string, match?: (r: LogRecord) => boolean, timeoutMs?: number): Promise<LogRecord>;
}

function createWatch(): LogWatch & { push(r: LogRecord): void } {
  const records: LogRecord[] = [];
  const written = changes();
  return {
    records,
    events: (event) => records.filter((r) => r.event === event),
    push(r) {
      records.push(r);
      written.notify();
    },
    next(event, match = () => true, timeoutMs = 30_000) {
      let seen = 0;
      return waitFor(
        () => {
          for (; seen < records.length; seen++) if (records[seen].event === event && match(records[seen])) return records[seen];
          return undefined;
        },
        { what: `a ${event} log line`, timeoutMs, wake: written, detail: () => `saw: ${records.map((x) => x.event ?? x.msg).join(', ')}` },
      );
    },
  };
}

/** A real logger (JSON lines, level debug) whose records a test can read and wait for. */
export function captureLogger(service = 'test'): LogWatch & { logger: Logger } {
  const watch = createWatch();
  const logger = createLogger({
    service,
    level: 'debug',
    destination: {
      write(line: string) {
        for (const r of readLogLines(line)) watch.push(r);
      },
    },
  });
  return { ...watch, logger };
}

/** Follow the JSON log lines a child process writes to `stream` (its stdout). */
export function logEvents(stream: Readable): LogWatch {
  const watch = createWatch();
  let rest = '';
  stream.on('data', (b: Buffer | string) => {
    const text = rest + b.toString();
    const cut = text.lastIndexOf('\n');
    rest = text.slice(cut + 1);
    for (const r of readLogLines(text.slice(0, cut + 1))) watch.push(r);
  });
  return watch;
}
