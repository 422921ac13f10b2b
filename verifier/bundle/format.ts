// verifier/bundle/format.ts: the audit bundle of docs/design.md §8, an NDJSON file with one JSON document a
// line, and its exact line order, which the reader (verifier.ts) enforces:
//
//   1. the header  {"type":"cookwala-audit-bundle","schema_version":"1.0","log":ORIGIN,
//      "mode":"full"|"hash_only","seq":N,"checkpoints":K,"exportedAt":TIME}
//   2. the Log descriptor (kind "Log");
//   3. KeyRecords (kind "KeyRecord"), each signed by the log's sequencer key: first the sequencer's
//      own record (its kid is the descriptor's `sequencer`), then the others in strictly ascending
//      kid order (UTF-16 code units, as JS compares strings), so each kid appears once;
//   4. for seq = 1..N (from..N in an incremental bundle, whose header has `from`): the entry (kind "Event"), directly followed by its payload line
//      {"kind":"Payload","seq":seq,"event":{…CloudEvent…}} unless that payload was erased;
//   5. K checkpoints (kind "Checkpoint") in ascending seq order, latest last; two lines share a seq
//      only when they differ in head or root (a fork that the bundle reports).
// Every line ends with "\n" (a last line without one is a truncated file); there are no blank lines.
// The header's `seq` is the last entry's seq (0 for none) and `checkpoints` the number of checkpoint
// lines: they let the reader tell a cut file from a short log and let the CLI find the checkpoint
// seqs by reading only the tail. `checkpoints` is this file's addition to the header of docs/design.md §8.
// The header is checked against the lines: log and mode against the descriptor, seq against the last
// entry, checkpoints against the count, exportedAt no earlier than any time the sequencer stamped.
// Left out here: every check on the documents themselves (verifier.ts and its parts).

import { fail, ok, type Result } from '../errors.ts';
import { isTime } from '../encoding/wire.ts';
import { isVendorMember } from '../signing/document-hash.ts';
import { isValidOrigin, type LogMode } from '../documents/log-descriptor.ts';

export const BUNDLE_TYPE = 'cookwala-audit-bundle';
export const BUNDLE_SCHEMA_VERSION = '1.0';
const VERSION_RE = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})$/;
const SUPPORTED_MAJOR = 1;

export interface BundleHeader {
  type: typeof BUNDLE_TYPE;
  schema_version: string;
  log: string;
  mode: LogMode;
  seq: number;
  checkpoints: number;
  exportedAt: string;
  /** An incremental bundle (`cookwala export --from`): its first entry; absent = 1. */
  from?: number;
}

export interface PayloadLine {
  kind: 'Payload';
  seq: number;
  event: Record<string, unknown>;
}

/** The line kinds after the header, in the order the sections come. */
export const LINE_KINDS = ['Log', 'KeyRecord', 'Event', 'Payload', 'Checkpoint'] as const;
export type LineKind = (typeof LINE_KINDS)[number];

const HEADER_FIELDS = ['type', 'schema_version', 'log', 'mode', 'seq', 'checkpoints', 'exportedAt', 'from'];

function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

/**
 * The header's type and version, which decide whether the file can be read at all: a failure here
 * is `bad_bundle_type` or `unsupported_bundle_version` and the reader stops (exit 2 in the CLI).
 */
export function checkBundleType(json: unknown): Result<true> {
  const h = json as Record<string, unknown>;
  if (!h || typeof h !== 'object' || Array.isArray(h) || h.type !== BUNDLE_TYPE) {
    return fail('bad_bundle_type', `the first line is not a {"type":"${BUNDLE_TYPE}",…} header`);
  }
  const v = typeof h.schema_version === 'string' ? VERSION_RE.exec(h.schema_version) : null;
  if (!v) return fail('unsupported_bundle_version', `schema_version ${JSON.stringify(h.schema_version)} is not MAJOR.MINOR`);
  if (Number(v[1]) !== SUPPORTED_MAJOR)
    return fail('unsupported_bundle_version', `schema_version ${h.schema_version}: this reader reads major ${SUPPORTED_MAJOR}`);
  return ok(true);
}

/** The rest of the header, strictly: unknown members refused (x- ignored), every field well formed. */
export function readBundleHeader(json: unknown): Result<BundleHeader> {
  const t = checkBundleType(json);
  if (!t.ok) return t;
  const h = json as Record<string, unknown>;
  for (const k of Object.keys(h)) {
    if (!HEADER_FIELDS.includes(k) && !isVendorMember(k)) return fail('unknown_field', `header member ${k}`, { path: `/${k}` });
  }
  if (!isValidOrigin(h.log)) return fail('invalid_document', 'header log is not a log origin', { path: '/log' });
  if (h.mode !== 'full' && h.mode !== 'hash_only') return fail('invalid_document', 'header mode is full or hash_only', { path: '/mode' });
  if (!isCount(h.seq)) return fail('invalid_document', 'header seq is a non-negative integer', { path: '/seq' });
  if (!isCount(h.checkpoints)) return fail('invalid_document', 'header checkpoints is a non-negative integer', { path: '/checkpoints' });
  if (h.from !== undefined && (!isCount(h.from) || h.from < 1))
    return fail('invalid_document', 'header from is a positive integer', { path: '/from' });
  if (!isTime(h.exportedAt))
    return fail('invalid_document', 'header exportedAt is an RFC 3339 UTC time with milliseconds', { path: '/exportedAt' });
  return ok(h as unknown as BundleHeader);
}

export function buildBundleHeader(f: {
  log: string;
  mode: LogMode;
  seq: number;
  checkpoints: number;
  exportedAt: string;
  from?: number;
}): BundleHeader {
  const h: BundleHeader = {
    type: BUNDLE_TYPE,
    schema_version: BUNDLE_SCHEMA_VERSION,
    log: f.log,
    mode: f.mode,
    seq: f.seq,
    checkpoints: f.checkpoints,
    exportedAt: f.exportedAt,
  };
  if (f.from !== undefined && f.from > 1) h.from = f.from;
  return h;
}

/** A payload line; the event is written as received (with its cookwalasig). */
export function buildPayloadLine(seq: number, event: Record<string, unknown>): PayloadLine {
  return { kind: 'Payload', seq, event };
}

/** Strict payload line: exactly kind, seq and event (x- ignored). */
export function readPayloadLine(json: Record<string, unknown>): Result<PayloadLine> {
  for (const k of Object.keys(json)) {
    if (k !== 'kind' && k !== 'seq' && k !== 'event' && !isVendorMember(k))
      return fail('unknown_field', `Payload member ${k}`, { path: `/${k}` });
  }
  if (!isCount(json.seq) || json.seq < 1) return fail('invalid_document', 'Payload seq is a positive integer', { path: '/seq' });
  const e = json.event;
  if (!e || typeof e !== 'object' || Array.isArray(e))
    return fail('invalid_document', 'Payload event is a CloudEvent object', { path: '/event' });
  return ok(json as unknown as PayloadLine);
}

/** One NDJSON line (with its newline); JSON.stringify suffices because readers re-canonicalize. */
export function encodeLine(doc: unknown): string {
  return JSON.stringify(doc) + '\n';
}

/** The kind of a parsed non-header line, or undefined for anything the reader does not know. */
export function lineKind(json: unknown): LineKind | undefined {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const k = (json as { kind?: unknown }).kind;
  return typeof k === 'string' && (LINE_KINDS as readonly string[]).includes(k) ? (k as LineKind) : undefined;
}
