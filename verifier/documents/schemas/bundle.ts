// verifier/documents/schemas/bundle.ts: the one JSON Schema bundle (draft-07) of the Cookwala log documents
// (docs/design.md §3, §4; Core 0.2 §2, §5): Log (with its optional TimeBounds), Event (a log entry),
// Checkpoint (whose signature array may also hold C2SP note-ed25519 and cosignature/v1 entries,
// docs/design.md §4), KeyRecord (a witness's optional C2SP `vkey` and `url`), ForkProof, Signature,
// WitnessPolicy and KeyCache. Kept as data in a TS
// module so it ships with the code and is used offline; nothing is ever fetched. Every object is
// closed (`additionalProperties: false`) except for `x-<vendor>-…` members, which any level may
// carry and readers ignore. Formats name the project's own checks (validate.ts registers
// them): `hash`, `time`, `base64url`, `origin`. What a schema cannot say (public-key length per
// alg, roles in a policy, the coreVersion rule) is checked by verifier/documents/read.ts and verifier/documents/policy.ts after validation.

import { VENDOR_MEMBER_PATTERN } from '../../signing/document-hash.ts';
import { MAX_CLOCK_SKEW_LIMIT_MS, MAX_DELIVERY_DELAY_LIMIT_MS } from '../time-bounds.ts';

export const SCHEMA_ID = 'https://cookwala.org/schemas/log-0.2/documents.json';

/** Largest integer a seq may take: JSON numbers beyond it lose precision in every reader. */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;
/** A bound on signatures per checkpoint and witnesses per policy, so loops over them stay bounded. */
export const MAX_SIGNATURES = 256;

const vendor = { [VENDOR_MEMBER_PATTERN]: {} };

function closed(properties: Record<string, unknown>, required: string[]) {
  return { type: 'object', properties, required, patternProperties: vendor, additionalProperties: false };
}

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });

export const SCHEMA_BUNDLE = {
  $id: SCHEMA_ID,
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Cookwala log documents (Core 0.2)',
  definitions: {
    hash: { type: 'string', format: 'hash' },
    time: { type: 'string', format: 'time' },
    base64url: { type: 'string', format: 'base64url' },
    origin: { type: 'string', format: 'origin' },
    name: { type: 'string', minLength: 1 },
    alg: { type: 'string', enum: ['EdDSA', 'ES256'] },
    seq: { type: 'integer', minimum: 0, maximum: MAX_SEQ },
    // The log's time window (time-bounds.ts), milliseconds; the limits keep the window meaningful.
    TimeBounds: closed(
      {
        maxClockSkewMs: { type: 'integer', minimum: 0, maximum: MAX_CLOCK_SKEW_LIMIT_MS },
        maxDeliveryDelayMs: { type: 'integer', minimum: 0, maximum: MAX_DELIVERY_DELAY_LIMIT_MS },
      },
      ['maxClockSkewMs', 'maxDeliveryDelayMs'],
    ),
    Signature: closed({ alg: ref('alg'), kid: ref('name'), signedAt: ref('time'), sig: ref('base64url') }, [
      'alg',
      'kid',
      'signedAt',
      'sig',
    ]),
    // A checkpoint's signature array also holds C2SP signatures over its C2SP form (docs/design.md §4, §7a):
    // the log's note signatures (note-ed25519, note-mldsa44) and witness cosignatures (cosignature/v1, subtree/v1).
    CheckpointSignature: closed(
      {
        alg: { type: 'string', enum: ['EdDSA', 'ES256', 'note-ed25519', 'note-mldsa44', 'cosignature/v1', 'subtree/v1'] },
        kid: ref('name'),
        signedAt: ref('time'),
        sig: ref('base64url'),
      },
      ['alg', 'kid', 'signedAt', 'sig'],
    ),
    KeyRecord: closed(
      {
        kind: { const: 'KeyRecord' },
        kid: ref('name'),
        alg: { type: 'string', enum: ['EdDSA', 'ES256', 'ML-DSA-44'] },
        publicKey: ref('base64url'),
        owner: ref('name'),
        role: { type: 'string', enum: ['sequencer', 'witness', 'device', 'operator', 'catalog'] },
        validFrom: ref('time'),
        validUntil: ref('time'),
        revokedAt: ref('time'),
        hash: ref('hash'),
        signature: ref('Signature'),
        // A witness's C2SP verifier key (cosignature/v1 0x04 or ML-DSA-44 0x06) and tlog-witness submission prefix.
        vkey: { type: 'string', minLength: 1, maxLength: 4096 },
        url: { type: 'string', pattern: '^https?://[^\\s]+$', maxLength: 2048 },
      },
      ['kind', 'kid', 'alg', 'publicKey', 'owner', 'role', 'validFrom'],
    ),
    Log: closed(
      {
        kind: { const: 'Log' },
        coreVersion: { type: 'string' },
        log: ref('origin'),
        mode: { type: 'string', enum: ['full', 'hash_only'] },
        sequencer: ref('name'),
        createdAt: ref('time'),
        timeBounds: ref('TimeBounds'),
        timePrecision: { const: 'day' },
        hash: ref('hash'),
        signature: ref('Signature'),
      },
      ['kind', 'coreVersion', 'log', 'mode', 'sequencer', 'createdAt', 'hash', 'signature'],
    ),
    EntryCe: closed(
      {
        source: ref('name'),
        id: ref('name'),
        type: ref('name'),
        subject: ref('name'),
        // A CloudEvents Integer is a signed 32-bit value; a sequence number is never negative.
        cookwalaseq: { type: 'integer', minimum: 0, maximum: 2147483647 },
      },
      ['source', 'id', 'type'],
    ),
    Event: closed(
      {
        kind: { const: 'Event' },
        log: ref('origin'),
        seq: { type: 'integer', minimum: 1, maximum: MAX_SEQ },
        prev: ref('hash'),
        sequencedAt: ref('time'),
        ce: ref('EntryCe'),
        eventHash: ref('hash'),
        eventSignature: ref('Signature'),
        hash: ref('hash'),
      },
      ['kind', 'log', 'seq', 'prev', 'sequencedAt', 'ce', 'eventHash', 'eventSignature', 'hash'],
    ),
    Checkpoint: closed(
      {
        kind: { const: 'Checkpoint' },
        log: ref('origin'),
        seq: ref('seq'),
        head: ref('hash'),
        root: ref('hash'),
        hash: ref('hash'),
        signature: { type: 'array', items: ref('CheckpointSignature'), minItems: 1, maxItems: MAX_SIGNATURES },
      },
      ['kind', 'log', 'seq', 'head', 'root', 'hash', 'signature'],
    ),
    ForkProof: closed({ kind: { const: 'ForkProof' }, log: ref('origin'), a: ref('Checkpoint'), b: ref('Checkpoint') }, [
      'kind',
      'log',
      'a',
      'b',
    ]),
    WitnessPolicy: closed(
      {
        kind: { const: 'WitnessPolicy' },
        log: ref('origin'),
        sequencer: ref('KeyRecord'),
        witnesses: { type: 'array', items: ref('KeyRecord'), maxItems: MAX_SIGNATURES },
        quorum: { type: 'integer', minimum: 0, maximum: MAX_SIGNATURES },
        logMldsaVkey: { type: 'string', minLength: 1, maxLength: 4096 },
        timeBounds: closed(
          {
            required: { type: 'boolean' },
            maxClockSkewMs: { type: 'integer', minimum: 0, maximum: MAX_CLOCK_SKEW_LIMIT_MS },
            maxDeliveryDelayMs: { type: 'integer', minimum: 0, maximum: MAX_DELIVERY_DELAY_LIMIT_MS },
          },
          [],
        ),
      },
      ['kind', 'log', 'sequencer', 'witnesses'],
    ),
    KeyCache: closed({ kind: { const: 'KeyCache' }, keys: { type: 'array', items: ref('KeyRecord') } }, ['kind', 'keys']),
  },
} as const;

export const DOCUMENT_KINDS = ['Log', 'Event', 'Checkpoint', 'KeyRecord', 'ForkProof', 'Signature', 'WitnessPolicy', 'KeyCache'] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
