// sequencer/api-schemas.ts: the JSON Schemas of the sequencer's HTTP bodies (docs/design.md §10) that the
// route modules cite in their `describe(...)` (platform/openapi.ts), and the components of its
// GET /openapi.json: the Core documents come from verifier/documents/schemas/bundle.ts unchanged
// (Log, Event, Checkpoint, KeyRecord, KeyCache, WitnessPolicy, …); the answers that are not Core
// documents (ingest results, proofs, erasure, liveness) are described here. Schemas document, they
// never validate or serialize an answer (platform/openapi.ts), so what a route sends is exactly what
// it built. Invariant: every member a route sends is named here; objects the sequencer builds are
// closed, a CloudEvent is open (extension attributes).

import { SCHEMA_BUNDLE } from '../verifier/documents/schemas/index.ts';
import { VENDOR_MEMBER_PATTERN } from '../verifier/signing/index.ts';
import type { ReasonCode } from '../verifier/index.ts';
import { componentsFromDefinitions, problems, ref, type JsonSchema } from '../platform/index.ts';

const str = (description?: string): JsonSchema => (description ? { type: 'string', description } : { type: 'string' });
const int = (minimum = 0, description?: string): JsonSchema => ({ type: 'integer', minimum, ...(description ? { description } : {}) });
const closed = (properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): JsonSchema => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const hashes: JsonSchema = { type: 'array', items: ref('hash') };

/** CloudEvents 1.0 in the JSON event format, as Cookwala carries them (verifier/cloudevent/read.ts). */
const CloudEvent: JsonSchema = {
  type: 'object',
  description: 'A CloudEvent 1.0 (JSON format). Members beyond the named ones are extension attributes and are kept as sent.',
  required: ['specversion', 'id', 'source', 'type'],
  properties: {
    specversion: { const: '1.0' },
    id: { type: 'string', minLength: 1 },
    source: { type: 'string', minLength: 1, description: 'URI-reference; the device (KeyRecord owner) for device events' },
    type: { type: 'string', minLength: 1 },
    subject: { type: 'string', minLength: 1 },
    time: { type: 'string', description: 'RFC 3339' },
    datacontenttype: { type: 'string' },
    dataschema: { type: 'string' },
    data: { description: 'any JSON value (a JSON datacontenttype) or a string' },
    data_base64: { type: 'string', description: 'base64 binary data' },
    cookwalasig: { type: 'string', description: 'base64url(JCS(Signature)) over the event hash (Core 0.2 §5)' },
    cookwalaseq: { type: 'integer', minimum: 0, maximum: 2147483647 },
  },
  additionalProperties: true,
};

const Appended = closed({ seq: int(1), hash: ref('hash'), eventHash: ref('hash') });
const Heartbeat = closed({ heartbeat: { const: true }, eventHash: ref('hash') });
/** One item of a batch answer: appended, a heartbeat, or the problem of that event (with its HTTP status). */
const IngestItem: JsonSchema = {
  oneOf: [
    closed({ status: { enum: [200, 201] }, seq: int(1), hash: ref('hash'), eventHash: ref('hash') }),
    closed({ status: { const: 200 }, heartbeat: { const: true }, eventHash: ref('hash') }),
    {
      type: 'object',
      required: ['status', 'code', 'detail'],
      properties: { status: { type: 'integer', minimum: 400, maximum: 599 }, code: { type: 'string' }, detail: { type: 'string' } },
      additionalProperties: true,
    },
  ],
};
const BatchAnswer = closed({ results: { type: 'array', items: ref('IngestItem') } });

const ErasureRecord = closed(
  { seq: int(1), eventHash: ref('hash'), reason: str(), erasedAt: ref('time'), erasureSeq: int(1, 'seq of the cookwala.log.erased entry') },
  ['seq', 'eventHash', 'reason', 'erasedAt'],
);
const EraseRequest = closed({ reason: { type: 'string', minLength: 1, maxLength: 1000 } });
const EraseAnswer = closed({
  seq: int(1, 'the cookwala.log.erased entry'),
  hash: ref('hash'),
  eventHash: ref('hash'),
  erased: ref('ErasureRecord'),
});

const InclusionProof = closed({ seq: int(1), size: int(1), leafIndex: int(0), proof: hashes, root: ref('hash') });
const ConsistencyProof = closed({ from: int(0), to: int(0), proof: hashes, root1: ref('hash'), root2: ref('hash') }, [
  'from',
  'to',
  'proof',
  'root2',
]);

const NewLogRequest: JsonSchema = {
  type: 'object',
  required: ['log', 'mode'],
  properties: {
    log: ref('origin'),
    mode: { enum: ['full', 'hash_only'] },
    timePrecision: {
      const: 'day',
      description: 'an open dataset (§8): every time in the log is a UTC midnight; timeBounds are rounded up to whole days',
    },
  },
  patternProperties: { [VENDOR_MEMBER_PATTERN]: {} },
  additionalProperties: false,
};
const NewLogAnswer = closed({ log: ref('origin'), mode: { enum: ['full', 'hash_only'] }, descriptor: ref('Log') });

const Devices = closed({
  devices: {
    type: 'array',
    items: closed({
      log: ref('origin'),
      source: str('the device (CloudEvents source)'),
      lastSeen: ref('time'),
      state: { enum: ['alive', 'lost'] },
    }),
  },
});
const WellKnown = closed({
  keys: { type: 'array', items: ref('KeyRecord'), minItems: 1 },
  logs: { type: 'array', items: ref('origin') },
  // docs/design.md §7a: each hosted log's C2SP signed-note verifier key (key name = origin, Ed25519 0x01), for tlog-witness and tiles clients.
  c2sp: {
    type: 'array',
    items: closed({
      log: ref('origin'),
      vkey: { type: 'string' },
      mldsaVkey: { type: 'string', description: "the log's ML-DSA-44 vkey (type 0x06), when the sequencer signs with one" },
      tiles: { type: 'string', description: 'the tlog-tiles prefix of the log on this sequencer' },
    }),
  },
});

const nullable = (s: JsonSchema): JsonSchema => ({ oneOf: [s, { type: 'null' }] });
const Witnesses = closed({
  log: ref('origin'),
  quorum: int(0),
  witnessed: {
    type: 'boolean',
    description: 'false when the policy asks for no witness (quorum 0): checkpoints carry the sequencer signature alone',
  },
  witnesses: {
    type: 'array',
    description: 'one row per policy witness (a witness is its key), with its live state',
    items: closed({
      name: str('its display name: C2SP key name (or owner) and key fingerprint'),
      kid: str(),
      owner: str(),
      transports: { type: 'array', items: closed({ transport: { type: 'string', enum: ['libp2p', 'http'] }, addr: str() }) },
      state: str('cosigned, unreachable: <why>, refused: <code>, cosignature not counted: <why>, or not asked yet'),
      lastTriedAt: nullable(str()),
      lastCosignedSeq: nullable(int(0)),
      lastCosignedAt: nullable(str()),
      lastError: nullable(str()),
      latencyMs: nullable({ type: 'number' }),
    }),
  },
  publisher: nullable(
    closed({
      quorumMissing: { type: 'boolean' },
      reason: nullable(str()),
      connections: {
        type: 'array',
        items: closed({
          addr: str('multiaddr'),
          kid: nullable(str()),
          knownSeq: nullable(int(0)),
          lastCosignedSeq: nullable(int(0)),
          lastError: nullable(str()),
        }),
      },
    }),
  ),
  vkey: nullable(str("the sequencer's C2SP signed-note verifier key for this log")),
});

/** components/schemas of the sequencer's document. */
export const SEQUENCER_SCHEMAS: Record<string, JsonSchema> = {
  ...componentsFromDefinitions(SCHEMA_BUNDLE.definitions),
  CloudEvent,
  Appended,
  Heartbeat,
  IngestItem,
  BatchAnswer,
  ErasureRecord,
  EraseRequest,
  EraseAnswer,
  InclusionProof,
  ConsistencyProof,
  NewLogRequest,
  NewLogAnswer,
  Devices,
  WellKnown,
  Witnesses,
};

export const NDJSON = 'application/x-ndjson';
export const CE_JSON = 'application/cloudevents+json';
export const CE_BATCH = 'application/cloudevents-batch+json';
/** One JSON document per line; each line's schema is named in the description. */
export const NDJSON_BODY: JsonSchema = { type: 'string', contentMediaType: NDJSON };
export const OPERATOR = [{ operatorToken: [] }];
export const OPERATOR_SCHEME = { operatorToken: { type: 'http' as const, scheme: 'bearer' as const, description: 'DATA/operator.token' } };

/** What registerOpenApi needs for the sequencer's document. */
export const SEQUENCER_OPENAPI = {
  title: 'Cookwala sequencer',
  version: '0.2.1',
  description:
    'Hash-chained CloudEvents log: ingest, checkpoints, proofs, erasure (Cookwala Core 0.2, docs/design.md §10). ' +
    'Errors are RFC 9457 problem+json with a reason code.',
  schemas: SEQUENCER_SCHEMAS,
  securitySchemes: OPERATOR_SCHEME,
};

/** problems(...) plus what any route of the sequencer can answer (a fault; the process stopping). */
export const errors = (...codes: ReasonCode[]) => problems(...codes, 'internal_error', 'shutting_down');
