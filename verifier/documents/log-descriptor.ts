// verifier/documents/log-descriptor.ts: the log descriptor, the genesis document of a log (docs/design.md §4):
// {kind:"Log", coreVersion, log, mode, sequencer, createdAt, hash, signature}, signed by the
// sequencer key named in `sequencer`; its hash is the `prev` of entry 1 and the `head` of the
// checkpoint at seq 0. `timeBounds: {maxClockSkewMs, maxDeliveryDelayMs}` (time-bounds.ts) declares
// the time window the sequencer enforces, so an auditor checks every entry against it; the
// sequencer writes it into every new descriptor, and a descriptor without it (a log created before
// time bounds) still reads, the time checks then being reported as skipped. `timePrecision: "day"`
// (time-bounds.ts) marks a log published as an open dataset (§8): its entries' times are UTC
// midnights and the timeBounds it declares are rounded up to whole days (createdAt stays exact: it
// dates the log, is signed by the sequencer key, and says nothing about a kitchen). The log is named by an origin that is also a valid C2SP tlog-checkpoint
// origin line (a schema-less URL: no scheme, no spaces, no `+`) and a safe file name (checkOrigin:
// no `.`/`..`/empty segment, at most 200 characters; originSegment maps it injectively to one path
// segment). Reading it strictly is read.ts's
// job; this file builds and verifies. Invariant: the descriptor's signature is by the key its
// `sequencer` member names, so a descriptor cannot be re-signed by another key unnoticed.

import { fail, ok, type Result } from '../errors.ts';
import { isTime } from '../encoding/wire.ts';
import { signDocument, verifyDocument, type Signature, type Signer, type VerifyOptions } from '../signing/signature.ts';
import type { KeyRecord } from '../signing/keys.ts';
import type { JsonObject } from '../signing/document-hash.ts';
import { boundsForPrecision, isTimeBounds, type TimeBounds } from './time-bounds.ts';

/** The Core version this implementation writes (draft 0.2.1, RFC-0012 signing headers). */
export const CORE_VERSION = '0.2.1';
export const LOG_MODES = ['full', 'hash_only'] as const;
export type LogMode = (typeof LOG_MODES)[number];

export interface LogDescriptor {
  kind: 'Log';
  coreVersion: string;
  log: string;
  mode: LogMode;
  sequencer: string;
  createdAt: string;
  /** The declared time window; absent in descriptors written before it existed. */
  timeBounds?: TimeBounds;
  /** "day": an open dataset (§8); absent = millisecond times. */
  timePrecision?: 'day';
  hash: string;
  signature: Signature;
}

/**
 * Longest origin accepted, in characters: C2SP sets none, but a log's origin also names its folder
 * and files on disk (one path segment each, at most 255 bytes), so it is bounded with room for the
 * suffixes (`.ndjson`, `.json.tmp-PID-…`).
 */
export const MAX_ORIGIN_LENGTH = 200;
/** Longest origin once written as one path segment (originSegment: `/` and `:` become %XX). */
export const MAX_ORIGIN_SEGMENT_BYTES = 200;
// URL characters (RFC 3986 unreserved, reserved and `%`) without `+`: printable ASCII, no spaces.
const ORIGIN_RE = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*,;=%]+$/;
const SCHEME_RE = /^[A-Za-z][A-Za-z0-9.-]*:\/\//;

/**
 * An origin as ONE path segment of a file name: encodeURIComponent, which is injective and never
 * writes `/`; an origin that passed checkOrigin is never `.` or `..` and has no empty or dot
 * segment, so the name is never `.`, `..` or empty either and stays inside the folder it is joined
 * to. Existing data directories keep their names (this is the encoding they were made with).
 */
export function originSegment(origin: string): string {
  return encodeURIComponent(origin);
}

/**
 * A log origin (docs/design.md §4, C2SP tlog-checkpoint), and a safe name: 1..200 printable ASCII URL
 * characters (no space, no `+`, no backslash, no control or non-ASCII character), schema-less
 * (`example.org/log`, never `https://example.org/log`), its `/`-separated segments neither empty
 * (no leading, trailing or doubled `/`) nor `.` or `..`, and at most 200 bytes as a path segment
 * (originSegment). invalid_origin names the rule it breaks.
 */
export function checkOrigin(log: unknown): Result<string> {
  if (typeof log !== 'string') return fail('invalid_origin', 'a log origin is a string');
  const shown = JSON.stringify(log.slice(0, 80));
  if (log.length === 0) return fail('invalid_origin', 'a log origin is not empty');
  if (log.length > MAX_ORIGIN_LENGTH)
    return fail('invalid_origin', `a log origin is at most ${MAX_ORIGIN_LENGTH} characters (this one has ${log.length})`);
  if (!ORIGIN_RE.test(log))
    return fail('invalid_origin', `the origin ${shown} holds a character outside printable URL ASCII without space and '+'`);
  if (SCHEME_RE.test(log) || log.includes('://')) return fail('invalid_origin', `the origin ${shown} is a schema-less URL (no scheme://)`);
  for (const seg of log.split('/')) {
    if (seg === '') return fail('invalid_origin', `the origin ${shown} has an empty segment (a leading, trailing or doubled '/')`);
    if (seg === '.' || seg === '..')
      return fail('invalid_origin', `the origin ${shown} has a '${seg}' segment: origins are names, not paths`);
  }
  if (originSegment(log).length > MAX_ORIGIN_SEGMENT_BYTES)
    return fail('invalid_origin', `the origin ${shown} is longer than ${MAX_ORIGIN_SEGMENT_BYTES} bytes as a file name`);
  return ok(log);
}

export function isValidOrigin(log: unknown): log is string {
  return checkOrigin(log).ok;
}

/** A signed descriptor; the signature's signedAt is `createdAt`. Bad arguments are programmer errors. */
export function buildLogDescriptor(
  f: { log: string; mode: LogMode; createdAt: string; timeBounds?: TimeBounds; timePrecision?: 'day' },
  signer: Signer,
): LogDescriptor {
  if (!isValidOrigin(f.log)) throw new TypeError(`not a log origin: ${String(f.log)}`);
  if (!LOG_MODES.includes(f.mode)) throw new TypeError(`mode is full or hash_only, not ${String(f.mode)}`);
  if (!isTime(f.createdAt)) throw new TypeError('createdAt is an RFC 3339 UTC time with milliseconds');
  if (f.timeBounds !== undefined && !isTimeBounds(f.timeBounds))
    throw new TypeError('timeBounds is {maxClockSkewMs, maxDeliveryDelayMs}, integers within their limits');
  if (f.timePrecision !== undefined && f.timePrecision !== 'day') throw new TypeError('timePrecision is "day" or absent');
  const day = f.timePrecision === 'day';
  const createdAt = f.createdAt;
  const doc: JsonObject = { kind: 'Log', coreVersion: CORE_VERSION, log: f.log, mode: f.mode, sequencer: signer.kid, createdAt };
  if (f.timeBounds) {
    const b = day ? boundsForPrecision(f.timeBounds, 'day') : f.timeBounds;
    doc.timeBounds = { maxClockSkewMs: b.maxClockSkewMs, maxDeliveryDelayMs: b.maxDeliveryDelayMs };
  }
  if (day) doc.timePrecision = 'day';
  return signDocument(doc, signer, createdAt) as unknown as LogDescriptor;
}

/**
 * Verify a descriptor (already read with readDocument) against the trusted sequencer key: the
 * recomputed hash equals `hash` (hash_mismatch), `log` is the expected origin when given
 * (log_mismatch), `sequencer` names the key (descriptor_mismatch) and the signature verifies
 * with role `sequencer`. A coreVersion 0.2.0 bare-hash signature needs `allowLegacy`.
 */
export function verifyLogDescriptor(
  d: LogDescriptor,
  sequencerKey: KeyRecord,
  opts: VerifyOptions & { log?: string } = {},
): Result<{ hash: string; legacy: boolean }> {
  if (opts.log !== undefined && d.log !== opts.log) return fail('log_mismatch', `descriptor of ${d.log}, expected ${opts.log}`);
  if (d.sequencer !== sequencerKey.kid)
    return fail('descriptor_mismatch', `descriptor names sequencer ${d.sequencer}, the trusted key is ${sequencerKey.kid}`);
  const { log: _log, ...vopts } = opts;
  const r = verifyDocument(d as unknown as JsonObject, (kid) => (kid === sequencerKey.kid ? sequencerKey : undefined), {
    ...vopts,
    role: 'sequencer',
  });
  if (!r.ok) return r;
  return ok({ hash: r.value.hash, legacy: r.value.legacy });
}
