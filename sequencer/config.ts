// sequencer/config.ts: the sequencer's config file (DATA/config.json, written by `cookwala init`)
// and the names of the files in a data directory (docs/design.md §12, §12a). Read strictly like every
// document here: unknown members are refused (`x-<vendor>-…` ignored), wrong types are
// invalid_document; members missing from an older file take their named defaults.
// maxClockSkewMs and maxDeliveryDelayMs are the time window of ingest (verifier/documents/time-bounds.ts,
// defaults argued in docs/operators.md, "The time window"); a new log writes them into its signed descriptor, where they
// stay fixed, so changing them here changes only logs created afterwards (and logs whose
// descriptor predates time bounds). Pure: the
// file I/O is data-dir.ts's. Invariant: every hosted log has a valid origin and a mode, and no
// origin appears twice.

import { fail, ok, ProtocolError, type Result } from '../verifier/index.ts';
import { isVendorMember } from '../verifier/signing/index.ts';
import { checkOrigin, LOG_MODES, originSegment, type LogMode } from '../verifier/documents/index.ts';
import { DEFAULT_TIME_BOUNDS, MAX_CLOCK_SKEW_LIMIT_MS, MAX_DELIVERY_DELAY_LIMIT_MS, type TimeBounds } from '../verifier/documents/index.ts';

export interface LogConfig {
  log: string;
  mode: LogMode;
  /** "day": a log published as an open dataset (§8; time-bounds.ts TimePrecision). Fixed at creation. */
  timePrecision?: 'day';
}

export interface SequencerConfig {
  kind: 'SequencerConfig';
  host: string;
  port: number;
  logs: LogConfig[];
  checkpointIntervalMs: number;
  heartbeatIntervalMs: number;
  lostAfterIntervals: number;
  bodyLimitBytes: number;
  /** signedAt may lie at most this far after the sequencer's time (new logs declare it). */
  maxClockSkewMs: number;
  /** signedAt may lie at most this far before the sequencer's time (new logs declare it). */
  maxDeliveryDelayMs: number;
  /** Witness policy file, relative to the data directory (WitnessPolicy of the first log). */
  policy: string;
  /** Witness peers (multiaddrs or peer records); read by the witness client, opaque here. */
  witnessPeers: unknown[];
  /** The memory budget of all log stores together, MiB (log-host.ts, store-budget.ts); default 2048. */
  memoryBudgetMB?: number;
  /** At most this many log stores open at once; default what the budget allows, at most 256. */
  maxOpenLogs?: number;
  /** Close a log's store after this long unused (ms); default 300000. */
  idleCloseMs?: number;
}

/**
 * Every member of config.json with what it means: the reader accepts exactly these (plus
 * `x-<vendor>-…`), and docs/config-reference.md is generated from this table with the defaults
 * (bin/config-reference.ts), so a member cannot be added without its documentation.
 */
export const CONFIG_MEMBERS: Readonly<Record<keyof SequencerConfig, string>> = Object.freeze({
  kind: 'Always "SequencerConfig".',
  host: 'Address the HTTP API listens on. Keep 127.0.0.1 behind a reverse proxy (docs/operations.md); 0.0.0.0 or :: only with TLS in front.',
  port: 'HTTP port; `cookwala sequencer --port` overrides it for one run (0 picks a free port).',
  logs: 'The hosted logs, each {log: origin, mode: "full" | "hash_only", timePrecision?: "day"}; `cookwala init --log` and `POST /v1/logs` add to it. Fixed per log once created (its descriptor is signed).',
  checkpointIntervalMs: 'How often a checkpoint is signed (and sent to the witnesses) while the log grows.',
  heartbeatIntervalMs: 'The heartbeat interval devices are expected to keep (docs/devices.md §3).',
  lostAfterIntervals: 'A device silent for this many heartbeat intervals gets one cookwala.hub.device_lost entry.',
  bodyLimitBytes:
    'Largest request body accepted (body_too_large beyond it). A reverse proxy should allow a little more, so the device sees this refusal.',
  maxClockSkewMs:
    'How far a signedAt may lie after the sequencer clock (signed_in_future). New logs declare it in their descriptor; existing logs keep theirs.',
  maxDeliveryDelayMs:
    'How far a signedAt may lie before the sequencer clock (delivery_too_late), and how long after a key revocation events signed before it are still taken. Declared by new logs, as above.',
  policy:
    'The witness policy file, relative to the data directory. Changing it (cookwala policy add-witness) re-opens the sequencer on the same port.',
  witnessPeers: 'libp2p addresses (or peer records) of the policy witnesses, opaque here and read by the witness client.',
  memoryBudgetMB: 'Memory all log stores share (MiB, 300 to 1048576); `--memory-budget` overrides it.',
  maxOpenLogs:
    'At most this many log stores open at once (1 to 100000); idle logs close and reopen on use. Default: what the budget allows, at most 256.',
  idleCloseMs: 'Close a log store after this long unused (>= 1000 ms).',
});

export const DEFAULT_LOG = 'localhost/missions/demo';
export const DEFAULT_MODE: LogMode = 'hash_only';

export const DEFAULT_CONFIG: Readonly<Omit<SequencerConfig, 'logs'>> = Object.freeze({
  kind: 'SequencerConfig',
  host: '127.0.0.1',
  port: 8700,
  checkpointIntervalMs: 1000,
  heartbeatIntervalMs: 5000,
  lostAfterIntervals: 3,
  bodyLimitBytes: 1_048_576,
  maxClockSkewMs: DEFAULT_TIME_BOUNDS.maxClockSkewMs,
  maxDeliveryDelayMs: DEFAULT_TIME_BOUNDS.maxDeliveryDelayMs,
  policy: 'policy.json',
  witnessPeers: [],
});

/** File and folder names inside a data directory. */
export const DATA_FILES = {
  config: 'config.json',
  key: 'sequencer.key.json',
  /** The sequencer's public KeyRecord, self-signed at init (validFrom must stay stable). */
  keyRecord: 'sequencer.keyrecord.json',
  token: 'operator.token',
  /** The optional ML-DSA-44 log key, a signed-note skey (type 0x06, 32-byte seed; mldsa-key.ts), mode 0600. */
  mldsaKey: 'sequencer.mldsa44.skey',
  logs: 'logs',
  /** Registered device KeyRecords, one append-only NDJSON file per log. */
  deviceKeys: 'device-keys',
} as const;

/**
 * A log's folder and file name: the origin as one path segment (originSegment: injective, never
 * `/`, `.`, `..` or empty for an origin that passed checkOrigin). Refuses any other origin, so no
 * caller can join a path outside the data directory.
 */
export function logDirName(origin: string): string {
  if (!checkOrigin(origin).ok)
    throw new ProtocolError('invalid_origin', `not a log origin: ${JSON.stringify(String(origin).slice(0, 80))}`);
  return originSegment(origin);
}

const NUMBERS = [
  'port',
  'checkpointIntervalMs',
  'heartbeatIntervalMs',
  'lostAfterIntervals',
  'bodyLimitBytes',
  'maxClockSkewMs',
  'maxDeliveryDelayMs',
] as const;

/** The time window a config gives new logs (and logs whose descriptor declares none). */
export function timeBoundsOf(c: Pick<SequencerConfig, 'maxClockSkewMs' | 'maxDeliveryDelayMs'>): TimeBounds {
  return { maxClockSkewMs: c.maxClockSkewMs, maxDeliveryDelayMs: c.maxDeliveryDelayMs };
}

export function readConfig(json: unknown): Result<SequencerConfig> {
  const o = json as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o)) return fail('invalid_document', 'config is a JSON object');
  const known = new Set(Object.keys(CONFIG_MEMBERS));
  for (const k of Object.keys(o)) if (!known.has(k) && !isVendorMember(k)) return fail('unknown_field', `config.${k}`);
  if (o.kind !== 'SequencerConfig') return fail('invalid_document', 'config.kind is "SequencerConfig"');
  const c = { ...DEFAULT_CONFIG, ...o } as SequencerConfig;
  if (typeof c.host !== 'string' || c.host.length === 0) return fail('invalid_document', 'config.host is a non-empty string');
  for (const k of NUMBERS)
    if (!Number.isSafeInteger(c[k]) || c[k] < 0) return fail('invalid_document', `config.${k} is a non-negative integer`);
  if (c.port > 65535) return fail('invalid_document', 'config.port is at most 65535');
  if (c.maxClockSkewMs > MAX_CLOCK_SKEW_LIMIT_MS)
    return fail('invalid_document', `config.maxClockSkewMs is at most ${MAX_CLOCK_SKEW_LIMIT_MS} (1 day)`);
  if (c.maxDeliveryDelayMs > MAX_DELIVERY_DELAY_LIMIT_MS)
    return fail('invalid_document', `config.maxDeliveryDelayMs is at most ${MAX_DELIVERY_DELAY_LIMIT_MS} (366 days)`);
  if (c.checkpointIntervalMs < 1 || c.heartbeatIntervalMs < 1 || c.lostAfterIntervals < 1 || c.bodyLimitBytes < 1024)
    return fail('invalid_document', 'intervals are >= 1 and bodyLimitBytes >= 1024');
  if (typeof c.policy !== 'string' || c.policy.length === 0) return fail('invalid_document', 'config.policy is a file name');
  if (!Array.isArray(c.witnessPeers)) return fail('invalid_document', 'config.witnessPeers is an array');
  if (c.memoryBudgetMB !== undefined && (!Number.isSafeInteger(c.memoryBudgetMB) || c.memoryBudgetMB < 300 || c.memoryBudgetMB > 1_048_576))
    return fail('invalid_document', 'config.memoryBudgetMB is an integer from 300 to 1048576');
  if (c.maxOpenLogs !== undefined && (!Number.isSafeInteger(c.maxOpenLogs) || c.maxOpenLogs < 1 || c.maxOpenLogs > 100_000))
    return fail('invalid_document', 'config.maxOpenLogs is an integer from 1 to 100000');
  if (c.idleCloseMs !== undefined && (!Number.isSafeInteger(c.idleCloseMs) || c.idleCloseMs < 1000))
    return fail('invalid_document', 'config.idleCloseMs is an integer >= 1000');
  if (!Array.isArray(c.logs)) return fail('invalid_document', 'config.logs is an array');
  const seen = new Set<string>();
  for (const [i, l] of c.logs.entries()) {
    const r = readLogConfig(l, `config.logs[${i}]`);
    if (!r.ok) return r;
    if (seen.has(r.value.log)) return fail('invalid_document', `config.logs names ${r.value.log} twice`);
    seen.add(r.value.log);
  }
  return ok(c);
}

export function readLogConfig(json: unknown, where = 'log'): Result<LogConfig> {
  const l = json as Record<string, unknown>;
  if (!l || typeof l !== 'object' || Array.isArray(l)) return fail('invalid_document', `${where} is {log, mode}`);
  for (const k of Object.keys(l))
    if (k !== 'log' && k !== 'mode' && k !== 'timePrecision' && !isVendorMember(k)) return fail('unknown_field', `${where}.${k}`);
  const origin = checkOrigin(l.log);
  if (!origin.ok) return fail('invalid_origin', `${where}.log: ${origin.detail}`);
  if (!LOG_MODES.includes(l.mode as LogMode)) return fail('invalid_document', `${where}.mode is full or hash_only`);
  if (l.timePrecision !== undefined && l.timePrecision !== 'day')
    return fail('invalid_document', `${where}.timePrecision is "day" (an open dataset, §8) or absent`);
  return ok(
    l.timePrecision === 'day'
      ? { log: origin.value, mode: l.mode as LogMode, timePrecision: 'day' }
      : { log: origin.value, mode: l.mode as LogMode },
  );
}
