// sequencer/log-summary.ts: the small per-log summary file that lets GET /v1/logs list a log whose
// store is not open (docs/design.md §12a): DIR/log-summaries/<log dir name>.json = {head, checkpoint?,
// summaryAt}, written durably (temp, fsync, rename) each time the log host closes the log, after
// its last checkpoint. Leaves out: any role in correctness; the store and the checkpoint mark are
// the truth, the summary is only what the listing shows for a closed log (it lags when the process
// died while the log was open, which summaryAt says). Invariant: a torn or hostile file is read as
// no summary, never as data (strict shape check).

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readTextIfExists, writeFileDurable } from '../platform/index.ts';
import { isHashString } from '../verifier/encoding/index.ts';
import { parseJson } from '../verifier/encoding/index.ts';
import { logDirName } from './config.ts';
import type { LogSummary } from './log-host.ts';

export const SUMMARY_DIR = 'log-summaries';
const MAX_BYTES = 4096;

type Stored = Pick<LogSummary, 'head' | 'checkpoint' | 'summaryAt'>;

export function logSummaryFile(dataDir: string, origin: string): string {
  return join(dataDir, SUMMARY_DIR, `${logDirName(origin)}.json`);
}

export async function writeLogSummary(dataDir: string, s: LogSummary, nowMs: number): Promise<void> {
  await mkdir(join(dataDir, SUMMARY_DIR), { recursive: true, mode: 0o700 });
  const stored: Stored = { head: s.head, ...(s.checkpoint ? { checkpoint: s.checkpoint } : {}), summaryAt: new Date(nowMs).toISOString() };
  await writeFileDurable(logSummaryFile(dataDir, s.log), JSON.stringify(stored) + '\n', { mode: 0o600 });
}

const seqOk = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;

/** The stored summary, or undefined when absent, too large or malformed. */
export async function readLogSummary(dataDir: string, origin: string): Promise<Stored | undefined> {
  const text = await readTextIfExists(logSummaryFile(dataDir, origin)).catch(() => undefined);
  if (text === undefined || text.length > MAX_BYTES) return undefined;
  const j = parseJson(text, { maxDepth: 4 });
  if (!j.ok || j.value === null || typeof j.value !== 'object' || Array.isArray(j.value)) return undefined;
  const o = j.value as Record<string, unknown>;
  if (!o || typeof o !== 'object') return undefined;
  const h = o.head as Record<string, unknown> | undefined;
  const c = o.checkpoint as Record<string, unknown> | undefined;
  if (!h || !seqOk(h.seq) || !isHashString(h.hash) || !isHashString(h.root)) return undefined;
  if (c !== undefined && (!c || !seqOk(c.seq) || !isHashString(c.hash))) return undefined;
  if (typeof o.summaryAt !== 'string') return undefined;
  return {
    head: { seq: h.seq as number, hash: h.hash as string, root: h.root as string },
    ...(c ? { checkpoint: { seq: c.seq as number, hash: c.hash as string } } : {}),
    summaryAt: o.summaryAt,
  };
}
