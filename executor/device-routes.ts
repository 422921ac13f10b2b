// executor/device-routes.ts: the device's own routes of the executor's Core API (docs/design.md §9;
// Cookwala Core 0.2 §6.1, §6.6, §8): GET /v1/capabilities (what this device runs, its keys,
// consent and privacy), GET /v1/safety-limits (the pack it enforces), GET /v1/attendance and GET
// /v1/consent for anyone, and PUT /v1/attendance and PUT /v1/consent (`none` withdraws) for the
// device owner only (api-context.ts: the owner token from a loopback caller). Left out: the
// execution routes (execution-routes.ts), and storing attendance and consent (the executor's
// Attendance and setConsent, injected). Invariant: what these routes show is read from the
// store and the attendance at each request, never cached here.

import type { FastifyInstance } from 'fastify';
import { fail } from '../verifier/index.ts';
import { formatTime } from '../verifier/encoding/index.ts';
import { sendProblem } from '../platform/index.ts';
import { OPERATIONS } from './vocabulary.ts';
import { readAttendance } from './attendance.ts';
import { isDataset } from './request.ts';
import { CORE_VERSION, json, problems, TAGS, type ApiContext } from './api-context.ts';
import * as S from './api-schemas.ts';

export function registerDeviceRoutes(r: FastifyInstance, ctx: ApiContext): void {
  const { store, opts, ownerFailure } = ctx;
  r.get(
    '/v1/capabilities',
    {
      schema: {
        tags: TAGS.device,
        operationId: 'getCapabilities',
        summary: 'What this device runs, its keys, consent and privacy',
        response: { 200: json(S.CAPABILITIES, 'Capabilities') },
      },
    },
    async () => ({
      kind: 'Capabilities',
      coreVersion: CORE_VERSION,
      device: { source: opts.source },
      keys: opts.keys(),
      operations: [...OPERATIONS.keys()].filter((op) => !opts.profile.operations || opts.profile.operations.includes(op)),
      sensors: opts.profile.sensors,
      consent: { dataset: store.consent().dataset },
      privacy: { personalData: 'none' },
      safetyLimits: '/v1/safety-limits',
      attendance: '/v1/attendance',
    }),
  );

  r.get(
    '/v1/safety-limits',
    {
      schema: {
        tags: TAGS.device,
        operationId: 'getSafetyLimits',
        summary: 'The SafetyLimits pack this device enforces (§6.1)',
        response: { 200: json(S.SAFETY_LIMITS, 'SafetyLimits') },
      },
    },
    async () => opts.limits,
  );

  const attendanceView = () => {
    const a = opts.attendance?.get() ?? { present: false, available: false, since: 0 };
    const v: Record<string, unknown> = { present: a.present };
    if (a.reachableWithinS !== undefined) v.reachableWithinS = a.reachableWithinS;
    return { ...v, available: a.available, since: formatTime(a.since) };
  };
  r.get(
    '/v1/attendance',
    {
      schema: {
        tags: TAGS.device,
        operationId: 'getAttendance',
        summary: 'Is a responsible person present or reachable (§6.6)?',
        response: { 200: json(S.ATTENDANCE, 'attendance') },
      },
    },
    async () => attendanceView(),
  );
  r.put<{ Body: unknown }>(
    '/v1/attendance',
    {
      schema: {
        tags: TAGS.owner,
        operationId: 'putAttendance',
        summary: 'Declare who is around (device owner)',
        description:
          'present:true, or reachableWithinS <= 60, lets steps with unattended:false run. Declaring nobody holds any such running step: the execution moves to needs_human (person_required).',
        security: [{ owner: [] }],
        body: S.ATTENDANCE_REQUEST,
        response: { 200: json(S.ATTENDANCE, 'the attendance now'), ...problems(400, 401) },
      },
    },
    async (req, reply) => {
      const f = ownerFailure(req);
      if (f) return sendProblem(reply, f);
      const a = readAttendance(req.body);
      if (!a.ok) return sendProblem(reply, a);
      if (!opts.attendance) return sendProblem(reply, fail('internal_error', 'no attendance on this executor'));
      opts.attendance.set(a.value);
      return attendanceView();
    },
  );

  const consentView = () => ({ dataset: store.consent().dataset, epoch: store.consent().epoch });
  r.get(
    '/v1/consent',
    {
      schema: {
        tags: TAGS.device,
        operationId: 'getConsent',
        summary: 'The device consent (§8)',
        response: { 200: json(S.CONSENT, 'consent') },
      },
    },
    async () => consentView(),
  );
  r.put<{ Body: unknown }>(
    '/v1/consent',
    {
      schema: {
        tags: TAGS.owner,
        operationId: 'putConsent',
        summary: 'Set or withdraw the device consent (device owner)',
        description:
          '`none` withdraws: one cookwala.consent.withdrawn leaves, the pending outbox is dropped, executions of the old consent never leave again.',
        security: [{ owner: [] }],
        body: S.CONSENT_REQUEST,
        response: { 200: json(S.CONSENT, 'the consent now'), ...problems(400, 401) },
      },
    },
    async (req, reply) => {
      const f = ownerFailure(req);
      if (f) return sendProblem(reply, f);
      const d = (req.body as { dataset?: unknown }).dataset;
      if (!isDataset(d)) return sendProblem(reply, fail('invalid_document', '$.dataset is none, research_only or open'));
      if (!opts.setConsent) return sendProblem(reply, fail('internal_error', 'consent cannot be changed on this executor'));
      const withdrawn = await opts.setConsent(d);
      return { ...consentView(), withdrawn };
    },
  );
}
