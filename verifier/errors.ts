// verifier/errors.ts: the one table of reason codes (docs/design.md §11), with the HTTP status each maps
// to and what it means. Pure functions return a Result carrying one of these codes; transports map
// codes to status here and nowhere else. Spelled as in Cookwala Core 0.2 where the spec names them.
// Invariant: every code below is produced by at least one test or conformance vector
// (errors.test.ts checks the table is well formed; the README mirrors it).

export const REASONS = {
  // Reading documents (docs/design.md §3; Core 0.2 §2, §9)
  bad_json: { status: 400, meaning: 'the body or line is not valid JSON' },
  duplicate_member: {
    status: 400,
    meaning: 'a JSON object names one member twice (I-JSON, RFC 7493 §2.3): two parsers could read it two ways',
  },
  too_deep: { status: 400, meaning: 'JSON nested deeper than the reader allows (64 levels for a document; docs/design.md §3)' },
  too_many_values: {
    status: 413,
    meaning: 'JSON text with more values (2^20) or objects and arrays (2^18) than the reader allows: bounds the memory any text can take',
  },
  unknown_field: { status: 400, meaning: 'a member that the schema does not define (x- members are ignored)' },
  invalid_document: { status: 400, meaning: 'the document breaks its JSON Schema (type, format, required member)' },
  unsupported_version: { status: 400, meaning: 'coreVersion is not 0.2.x' },
  legacy_signature: { status: 400, meaning: 'a 0.2.0 bare-hash signature, refused without --allow-legacy-signatures' },
  invalid_hash: { status: 400, meaning: 'a hash that is not sha256: plus 64 lowercase hex digits (or not 32 bytes)' },
  invalid_event: { status: 400, meaning: 'not a valid CloudEvents 1.0 event' },
  invalid_origin: {
    status: 400,
    meaning:
      'a log origin outside the grammar: 1..200 printable URL ASCII characters, no space, no +, no scheme, no empty, . or .. segment (origins are names, not paths; docs/design.md §4)',
  },
  noncanonical_number: { status: 400, meaning: 'a value that RFC 8785 cannot canonicalize (NaN, Infinity)' },
  // Signatures and keys (docs/design.md §3; Core 0.2 §5)
  bad_signature: { status: 403, meaning: 'the signature does not verify over the rebuilt signing header' },
  unsupported_alg: { status: 400, meaning: 'an algorithm other than EdDSA or ES256' },
  malformed_signature: { status: 400, meaning: 'a Signature object that cannot be decoded' },
  weak_key: {
    status: 400,
    meaning: 'an Ed25519 public key that is small-order, mixed-order, off the curve or non-canonically encoded (docs/design.md §3)',
  },
  unknown_key: { status: 403, meaning: 'no trusted KeyRecord has this kid' },
  key_revoked: {
    status: 403,
    meaning: "signedAt is at or after the key's revokedAt, or an event signed before it arrives more than maxDeliveryDelay after it",
  },
  key_not_valid_at: { status: 403, meaning: "signedAt is outside the key's validity window" },
  key_role_mismatch: { status: 403, meaning: 'the key exists but not in the role this signature needs' },
  source_mismatch: { status: 403, meaning: 'the event source is not the owner of the signing key' },
  bad_disclosure: { status: 400, meaning: 'a revealed [salt, value] does not match its disclosure digest' },
  // Ingest (docs/design.md §5, §10)
  missing_idempotency_key: { status: 400, meaning: 'a POST without an Idempotency-Key header' },
  idempotency_conflict: { status: 422, meaning: 'an Idempotency-Key reused with a different body' },
  body_too_large: { status: 413, meaning: 'the request body, or a JSON text read elsewhere, exceeds its size limit' },
  unsupported_media_type: { status: 415, meaning: 'a content type that the endpoint does not take' },
  duplicate_id_conflict: { status: 409, meaning: 'the same (source, id) was sequenced with a different eventHash' },
  out_of_order: { status: 409, meaning: 'cookwalaseq is not last+1 for its subject; see expected' },
  signed_in_future: {
    status: 422,
    meaning: "signedAt is more than the log's maxClockSkew after the sequencer's time (at ingest) or the entry's sequencedAt (offline)",
  },
  delivery_too_late: {
    status: 422,
    meaning:
      "signedAt is more than the log's maxDeliveryDelay before the sequencer's time or the entry's sequencedAt (a heartbeat: more than maxClockSkew)",
  },
  unauthorized: { status: 401, meaning: 'an operator endpoint without a valid bearer token' },
  not_found: { status: 404, meaning: 'no such resource' },
  payload_erased: { status: 410, meaning: 'the payload was erased (hash_only mode); the entry remains' },
  not_erasable: { status: 409, meaning: 'the payload of a sequencer entry (an erasure or device_lost record) is part of the audit trail' },
  mode_forbids_erasure: { status: 409, meaning: 'erasure asked of a log in full mode' },
  uri_too_long: {
    status: 414,
    meaning: 'the request target, or one path parameter of it, is longer than the server reads (4,096 characters a parameter)',
  },
  headers_too_large: { status: 431, meaning: 'the request headers exceed 16 KiB' },
  request_timeout: { status: 408, meaning: 'the request did not arrive in time: headers within 10 s, the whole request within 30 s' },
  too_many_connections: {
    status: 503,
    meaning: 'the server holds its limit of open connections (4,096 in all, 512 from one address); the connection is closed',
  },
  bad_request: { status: 400, meaning: 'a malformed query or parameter' },
  key_conflict: { status: 409, meaning: 'two KeyRecords for one kid that disagree (beyond a later record adding revokedAt)' },
  log_exists: { status: 409, meaning: 'a log with this origin is already hosted' },
  internal_error: { status: 500, meaning: 'an unexpected server fault; nothing was acknowledged' },
  shutting_down: { status: 503, meaning: 'the server is stopping; retry later (nothing was acknowledged)' },
  // Storage (docs/design.md §6)
  store_locked: { status: 503, meaning: "another process holds this log's store" },
  store_behind_checkpoint: { status: 500, meaning: 'the store is behind its last signed checkpoint; refusing to re-sequence' },
  disk_full: {
    status: 507,
    meaning:
      'the disk is full: nothing of this request was acknowledged; the service takes writes again once space returns (a store LevelDB failed on stays refused until restarted)',
  },
  store_failed: {
    status: 503,
    meaning: 'a write to the store failed; it refuses writes until reopened (the disk holds the old or the new state, never a mix)',
  },
  not_leader: {
    status: 503,
    meaning:
      'this sequencer is a standby for the log (another process holds its PostgreSQL lease, or this one lost it): nothing was written, retry at the leader named in `leader` (dedup makes the retry safe)',
  },
  store_unavailable: {
    status: 503,
    meaning:
      "the log's database cannot be reached now (PostgreSQL restarting or shutting down, the connection refused or cut): nothing was read or written; retry after Retry-After",
  },
  // Log verification (docs/design.md §4, §8)
  chain_broken: { status: 422, meaning: "an entry's prev is not the previous entry's hash, or seq has a gap" },
  entry_hash_mismatch: { status: 422, meaning: "an entry's hash is not the hash of its contents" },
  hash_mismatch: { status: 422, meaning: "a document's hash member (descriptor, checkpoint, KeyRecord) is not the hash of its contents" },
  log_mismatch: { status: 422, meaning: 'a document names another log than the policy or proof it is checked against' },
  not_a_fork: { status: 422, meaning: 'a ForkProof whose checkpoints do not conflict (other log, other seq, or same head and root)' },
  rewrite_detected: { status: 422, meaning: 'entries disagree with a witnessed checkpoint; first differing seq named' },
  fork_detected: { status: 409, meaning: 'two validly signed checkpoints at one seq with different head or root' },
  payload_hash_mismatch: { status: 422, meaning: "a payload whose hash is not the entry's eventHash" },
  payload_missing: { status: 422, meaning: 'a payload absent without an erasure entry' },
  duplicate_id: { status: 422, meaning: 'two entries with the same (source, id)' },
  quorum_not_met: { status: 422, meaning: "fewer valid witness cosignatures than the policy's quorum" },
  root_mismatch: { status: 422, meaning: 'a checkpoint root that is not the Merkle root of the entries' },
  descriptor_mismatch: { status: 422, meaning: 'the log descriptor does not match the policy or the entries' },
  time_regression: {
    status: 422,
    meaning: "an entry's sequencedAt is earlier than the previous entry's (the log's clock never goes backwards)",
  },
  time_bounds_missing: {
    status: 422,
    meaning:
      "the log descriptor declares no timeBounds, and the auditor's policy does not say the log predates them (policy timeBounds.required false)",
  },
  time_bounds_too_wide: {
    status: 422,
    meaning: "the log descriptor declares a maxClockSkew or maxDeliveryDelay above the cap in the auditor's policy (timeBounds)",
  },
  sequenced_before_creation: { status: 422, meaning: "an entry's sequencedAt is earlier than the log descriptor's createdAt" },
  sequenced_after_cosignature: {
    status: 422,
    meaning: "an entry at or below a checkpoint's seq has a sequencedAt later than a witness cosigned that checkpoint (plus maxClockSkew)",
  },
  // Proofs (RFC 6962 / 9162)
  bad_proof: { status: 422, meaning: 'an inclusion or consistency proof that does not verify or is malformed' },
  // Witness protocol (docs/design.md §7, §7a; C2SP tlog-witness)
  unknown_log: { status: 404, meaning: 'the witness does not follow this log' },
  conflict: { status: 409, meaning: "oldSeq does not match the witness's state; see knownSeq" },
  inconsistent: { status: 422, meaning: 'the consistency or head proof does not verify' },
  message_too_large: { status: 413, meaning: 'a frame over the 1 MiB limit' },
  unknown_message_type: { status: 400, meaning: 'a protocol message of an unknown type' },
  malformed_frame: { status: 400, meaning: 'a libp2p frame whose length prefix is not a minimal unsigned varint' },
  witness_unavailable: { status: 503, meaning: 'a witness could not be reached or did not answer in time' },
  rate_limited: { status: 429, meaning: 'a C2SP witness kept answering 429 Too Many Requests after the Retry-After back-offs' },
  // Bundles (docs/design.md §8)
  bad_bundle_type: { status: 400, meaning: 'the first line is not a cookwala-audit-bundle header' },
  unsupported_bundle_version: { status: 400, meaning: 'a bundle schema_version of another major' },
  unknown_line_kind: { status: 400, meaning: 'a bundle line of a kind the reader does not know' },
  header_mismatch: { status: 422, meaning: 'the bundle header disagrees with its lines' },
  truncated: { status: 422, meaning: 'the bundle ends before what its lines promise' },
  misplaced_line: {
    status: 422,
    meaning: 'a bundle line out of the fixed order (header, descriptor, keys, entries with payloads, checkpoints)',
  },
  erasure_mismatch: {
    status: 422,
    meaning: "an erasure entry that names no missing payload of that seq and eventHash, or is not the sequencer's",
  },
  // C2SP signed notes (interop)
  malformed_note: { status: 400, meaning: 'a signed note or checkpoint body that breaks C2SP signed-note/tlog-checkpoint' },
  malformed_vkey: {
    status: 400,
    meaning: 'a C2SP verifier or signer key string that does not parse, or whose key ID does not match its key',
  },
  malformed_policy: {
    status: 400,
    meaning:
      'a C2SP tlog-policy text that breaks the format, or a policy the other format cannot express (nested groups, several logs; a witness without vkey)',
  },
  malformed_proof: {
    status: 400,
    meaning: 'a c2sp.org/tlog-proof@v1 file that breaks the format (header, extra, index, proof lines, checkpoint)',
  },
  origin_mismatch: { status: 422, meaning: 'a checkpoint whose origin line is not the log origin the reader expects' },
  // Executor (docs/design.md §9; Core 0.2 §3, §6, §7)
  illegal_transition: { status: 409, meaning: 'an execution state change that the transition table forbids' },
  precondition_failed: { status: 412, meaning: "If-Match does not match the execution's status seq" },
  precondition_required: { status: 428, meaning: 'a change to an execution without If-Match: <seq>' },
  unknown_operation: { status: 422, meaning: 'a recipe step names an operation this device does not know or cannot run' },
  outside_envelope: { status: 422, meaning: "a step target lies outside its operation's envelope (Core 0.2 §3)" },
  safety_limit: { status: 422, meaning: "a step exceeds the device's SafetyLimits pack (Core 0.2 §6.1; the stricter limit wins)" },
  missing_sensor_no_fallback: { status: 422, meaning: "no rung of the step's sensor ladder can be satisfied (Core 0.2 §3)" },
  time_too_precise: {
    status: 422,
    meaning: "a time finer than the log's declared timePrecision (an open dataset is to the day, Core 0.2 §8)",
  },
  person_required: {
    status: 422,
    meaning: 'an operation that may not run unattended, and no person is present or reachable (Core 0.2 §6.6)',
  },
  interrupted: { status: 503, meaning: 'the device failed an execution safely after a restart or fault cut it short' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ReasonCode = keyof typeof REASONS;

export type Failure = { ok: false; code: ReasonCode; detail: string; [k: string]: unknown };
export type Result<T> = { ok: true; value: T } | Failure;

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** A failed result; `extra` carries structured facts such as `expected`, `knownSeq` or `seq`. */
export function fail(code: ReasonCode, detail = '', extra: Record<string, unknown> = {}): Failure {
  return { ...extra, ok: false, code, detail };
}

export function isReasonCode(x: unknown): x is ReasonCode {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(REASONS, x);
}

export function statusOf(code: ReasonCode): number {
  return REASONS[code].status;
}

/** The one error type; thrown only across I/O boundaries, built from a Failure. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  readonly extra: Record<string, unknown>;
  constructor(
    readonly code: ReasonCode,
    readonly detail = '',
    extra: Record<string, unknown> = {},
  ) {
    super(detail ? `${code}: ${detail}` : code);
    this.extra = extra;
  }
  get status(): number {
    return REASONS[this.code].status;
  }
  static from(f: Failure): ProtocolError {
    const { ok: _ok, code, detail, ...extra } = f;
    return new ProtocolError(code, detail, extra);
  }
}

/** Unwrap a result at an I/O boundary: the value, or a ProtocolError. */
export function unwrap<T>(r: Result<T>): T {
  if (r.ok) return r.value;
  throw ProtocolError.from(r);
}
