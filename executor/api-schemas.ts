// executor/api-schemas.ts: the JSON Schemas of the executor's Core API routes (Cookwala Core 0.2 §6,
// §7, §8), from which @fastify/swagger generates GET /openapi.json. Request schemas are enforced (our
// ajv: no coercion, no removeAdditional, no defaults; unknown members refused, `x-` members
// allowed), then request.ts and attendance.ts read the body again into typed values. Response
// schemas are documentation: api.ts serializes with JSON.stringify, so a schema can never silently
// drop a member we send, and test/executor-openapi.test.ts validates real answers against them
// (additionalProperties: false where we know every member), so the document cannot drift from what
// is sent. Headers are documented here and read by the handlers (each with its own reason code).
// Left out: the catalog routes (recalls, incidents) and agent mandates.

import { STATES } from './lifecycle.ts';
import { DATASETS, MAX_STEPS } from './request.ts';
import { SAFETY_LIMIT_KEYS } from './safety-limits.ts';

const X = { '^x-': {} };
const time = { type: 'string', description: 'RFC 3339 UTC time with milliseconds', examples: ['2026-12-01T09:00:00.000Z'] };

export const EXECUTION_REQUEST = {
  description: 'An execution request: the recipe to run (and optionally a stricter dataset consent for this execution).',
  type: 'object',
  required: ['recipe'],
  additionalProperties: false,
  patternProperties: X,
  properties: {
    recipe: {
      type: 'object',
      required: ['id', 'steps'],
      additionalProperties: false,
      patternProperties: X,
      properties: {
        id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$' },
        steps: {
          type: 'array',
          minItems: 1,
          maxItems: MAX_STEPS,
          items: {
            type: 'object',
            required: ['op'],
            additionalProperties: false,
            patternProperties: X,
            properties: {
              op: {
                type: 'string',
                pattern: '^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+$',
                description: 'an operation id from GET /v1/capabilities `operations`, e.g. cw.op.simmer',
              },
              params: {
                type: 'object',
                additionalProperties: false,
                patternProperties: X,
                properties: {
                  tempC: { type: 'number', description: 'target in °C; must lie inside the envelope (§3) and the safety limits' },
                  durationS: { type: 'number', exclusiveMinimum: 0, description: 'seconds' },
                },
              },
            },
          },
        },
      },
    },
    consent: {
      type: 'object',
      required: ['dataset'],
      additionalProperties: false,
      patternProperties: X,
      properties: { dataset: { type: 'string', enum: [...DATASETS], description: 'the stricter of this and the device consent applies' } },
    },
  },
  examples: [{ recipe: { id: 'tea', steps: [{ op: 'cw.op.boil', params: { tempC: 98, durationS: 60 } }] } }],
} as const;

const REASON = {
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: {
    code: {
      type: 'string',
      description:
        'a reason code (docs/reference.md) or a cause: stop_requested, local_stop, paused_locally, pause_requested, human_check, resumed, step_done',
    },
    detail: { type: 'string' },
  },
} as const;

export const EXECUTION = {
  description: 'An execution. `seq` is its status seq: the ETag, the If-Match of a change, and the `cookwalaseq` of its status event.',
  type: 'object',
  required: ['id', 'recipe', 'status', 'seq', 'createdAt', 'updatedAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    recipe: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string' } } },
    status: { type: 'string', enum: [...STATES] },
    seq: { type: 'integer', minimum: 1 },
    step: { type: 'integer', minimum: 0, description: 'the step the status refers to' },
    reason: REASON,
    verifiedBy: { type: 'array', items: { type: 'string' }, description: 'per step, the sensor-ladder rung used (§3)' },
    consent: {
      type: 'object',
      required: ['dataset'],
      additionalProperties: false,
      properties: { dataset: { type: 'string', enum: [...DATASETS] } },
    },
    createdAt: time,
    updatedAt: time,
  },
  examples: [
    {
      id: '0b6c1f8e-4f7e-4a57-9f43-1d0c2f0b9a11',
      recipe: { id: 'tea' },
      status: 'accepted',
      seq: 1,
      verifiedBy: ['sensor:water_temp'],
      createdAt: '2026-12-01T09:00:00.000Z',
      updatedAt: '2026-12-01T09:00:00.000Z',
    },
  ],
} as const;

export const PROBLEM = {
  description:
    'RFC 9457 problem details; `code` is in the reason-code table (docs/reference.md). Extra members carry facts (e.g. `seq` on 412).',
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  additionalProperties: true,
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
  },
  examples: [
    {
      type: 'urn:cookwala:reason:precondition_failed',
      title: "If-Match does not match the execution's status seq",
      status: 412,
      detail: 'If-Match 3, the status seq is 4',
      code: 'precondition_failed',
      seq: 4,
    },
  ],
} as const;

export const REFUSAL = {
  description:
    'The device cannot run this recipe (§3 "refusal, not guessing"): a problem whose `code` is the refusal reason, carrying the refused `execution` (it exists, with its own log: accepted then refused).',
  type: 'object',
  required: [...PROBLEM.required, 'execution'],
  additionalProperties: true,
  properties: { ...PROBLEM.properties, execution: EXECUTION },
  examples: [
    {
      type: 'urn:cookwala:reason:person_required',
      title: 'an operation that may not run unattended, and no person is present or reachable (§6.6)',
      status: 422,
      detail: 'step 0 (cw.op.saute): may not run unattended and no person is present or reachable',
      code: 'person_required',
      step: 0,
      execution: {
        id: '5d1f',
        recipe: { id: 'onions' },
        status: 'refused',
        seq: 2,
        step: 0,
        reason: { code: 'person_required' },
        createdAt: '2026-12-01T09:00:00.000Z',
        updatedAt: '2026-12-01T09:00:00.000Z',
      },
    },
  ],
} as const;

const CLOUDEVENT = {
  type: 'object',
  required: ['specversion', 'id', 'source', 'type'],
  additionalProperties: true,
  properties: {
    specversion: { const: '1.0' },
    id: { type: 'string' },
    source: { type: 'string' },
    type: { type: 'string', description: 'cookwala.execution.<state>' },
    subject: { type: 'string', description: 'the execution id' },
    time: { type: 'string', description: 'to the day under `open` consent (§8)' },
    cookwalaseq: { type: 'integer' },
    cookwalalatency: { const: 'local_safety' },
    cookwalasig: { type: 'string', description: 'the device signature (JWS, detached), signedAt inside' },
    data: { type: 'object' },
  },
} as const;

export const LOG = {
  description: "The execution's signed status events, in status order (application/cloudevents-batch+json).",
  type: 'array',
  items: CLOUDEVENT,
} as const;

export const CAPABILITIES = {
  type: 'object',
  required: ['kind', 'coreVersion', 'device', 'keys', 'operations', 'sensors', 'consent', 'privacy', 'safetyLimits', 'attendance'],
  additionalProperties: false,
  properties: {
    kind: { const: 'Capabilities' },
    coreVersion: { type: 'string' },
    device: { type: 'object', required: ['source'], additionalProperties: false, properties: { source: { type: 'string' } } },
    keys: { type: 'array', items: { type: 'object', description: 'a KeyRecord (role device)' } },
    operations: { type: 'array', items: { type: 'string' } },
    sensors: { type: 'array', items: { type: 'string' } },
    consent: {
      type: 'object',
      required: ['dataset'],
      additionalProperties: false,
      properties: { dataset: { type: 'string', enum: [...DATASETS] } },
    },
    privacy: { type: 'object', required: ['personalData'], additionalProperties: false, properties: { personalData: { const: 'none' } } },
    safetyLimits: { type: 'string', description: 'where the SafetyLimits pack is' },
    attendance: { type: 'string', description: 'where attendance (§6.6) is read and declared' },
  },
} as const;

export const SAFETY_LIMITS = {
  type: 'object',
  required: ['kind', 'coreVersion', 'limits'],
  additionalProperties: false,
  properties: {
    kind: { const: 'SafetyLimits' },
    coreVersion: { type: 'string' },
    limits: {
      type: 'object',
      required: [...SAFETY_LIMIT_KEYS],
      additionalProperties: false,
      properties: Object.fromEntries(SAFETY_LIMIT_KEYS.map((k) => [k, { type: 'number' }])),
    },
  },
} as const;

export const ATTENDANCE_REQUEST = {
  description:
    'Who is around (§6.6): a responsible person present at the device, or reachable within reachableWithinS seconds (60 or less counts).',
  type: 'object',
  required: ['present'],
  additionalProperties: false,
  patternProperties: X,
  properties: { present: { type: 'boolean' }, reachableWithinS: { type: 'integer', minimum: 0, maximum: 86400 } },
  examples: [{ present: true }],
} as const;

export const ATTENDANCE = {
  type: 'object',
  required: ['present', 'available', 'since'],
  additionalProperties: false,
  properties: {
    present: { type: 'boolean' },
    reachableWithinS: { type: 'integer' },
    available: { type: 'boolean', description: 'present, or reachable within 60 s: steps with unattended:false may run' },
    since: time,
  },
  examples: [{ present: true, available: true, since: '2026-12-01T09:00:00.000Z' }],
} as const;

export const CONSENT_REQUEST = {
  description: 'The device consent (§8). `none` withdraws: one cookwala.consent.withdrawn leaves, then nothing more of the old consent.',
  type: 'object',
  required: ['dataset'],
  additionalProperties: false,
  patternProperties: X,
  properties: { dataset: { type: 'string', enum: [...DATASETS] } },
  examples: [{ dataset: 'none' }],
} as const;

export const CONSENT = {
  type: 'object',
  required: ['dataset', 'epoch'],
  additionalProperties: false,
  properties: {
    dataset: { type: 'string', enum: [...DATASETS] },
    epoch: { type: 'integer', minimum: 0, description: 'bumped by each withdrawal; executions of an ended epoch never leave' },
    withdrawn: { type: 'boolean', description: 'on PUT: this change withdrew consent' },
  },
  examples: [{ dataset: 'none', epoch: 1, withdrawn: true }],
} as const;

export const ID_PARAMS = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'string', maxLength: 200 } },
} as const;

const h = (description: string) => ({ type: 'string', description });
export const HEADERS = {
  idempotencyKey: h('1-256 characters; the same key with the same body returns the same answer'),
  ifMatch: h('the status seq you saw, e.g. "3" (quoted or bare); 412 when it moved on'),
  bearer: h('Bearer <token>'),
} as const;
