// executor/events.ts: the CloudEvents a device emits (docs/design.md §9, Cookwala Core 0.2 §6.3, §7, §8):
// `cookwala.execution.<state>` for each status change (subject = execution id, `cookwalaseq` = the
// status seq, id = `<execution id>.<seq>` so a resend is recognisably the same event),
// `cookwala.device.heartbeat` and `cookwala.consent.withdrawn`, each signed with the device key
// (verifier/cloudevent/read.ts signEvent). Safety reports carry `cookwalalatency: "local_safety"`: they
// report what the device already did, they never protect. Privacy (§8): no personal data (no
// names, no free text, only ids, ops and reason codes), and under `open` consent every time that
// leaves the device is coarsened to the day: the `time` attribute AND the signature's signedAt (in
// cookwalasig, copied into the log entry), so the event fits a log declared `timePrecision: "day"`
// (verifier/documents/time-bounds.ts), whose sequencer stamps sequencedAt at the day too. The cost:
// key validity and revocation are judged at the day of signing (device keys are valid from the
// start of their creation day, device-key.ts). Heartbeats keep exact times: they are liveness for
// the hub, never stored in a log or the outbox, and their arrival time tells the hub as much.

import { signEvent, type CloudEvent } from '../verifier/cloudevent/index.ts';
import type { Signer } from '../verifier/signing/index.ts';
import { formatTime } from '../verifier/encoding/index.ts';
import { SAFETY_STATES, type ExecutionState, type Reason } from './lifecycle.ts';
import type { Dataset } from './request.ts';

export const EXECUTION_TYPE_PREFIX = 'cookwala.execution.';
export const HEARTBEAT_TYPE = 'cookwala.device.heartbeat';
export const CONSENT_WITHDRAWN_TYPE = 'cookwala.consent.withdrawn';
export const LOCAL_SAFETY = 'local_safety';

export interface EventContext {
  source: string;
  signer: Signer;
  /** The device consent when the event is made: `open` coarsens `time` to the day. */
  dataset: Dataset;
}

export function eventTime(ms: number, dataset: Dataset): string {
  if (dataset !== 'open') return formatTime(ms);
  const d = new Date(ms);
  return formatTime(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

export function statusEventId(executionId: string, seq: number): string {
  return `${executionId}.${seq}`;
}

export interface StatusEventFields {
  executionId: string;
  recipeId: string;
  status: ExecutionState;
  seq: number;
  at: number;
  step?: number;
  reason?: Reason;
  /** On `accepted`: the sensor-ladder rung chosen for each step (§3 verifiedBy). */
  verifiedBy?: string[];
  /** Mark as a local safety report even outside SAFETY_STATES (e.g. a safety pause). */
  safety?: boolean;
}

export function buildStatusEvent(ctx: EventContext, f: StatusEventFields): CloudEvent {
  const data: Record<string, unknown> = { recipe: f.recipeId };
  if (f.step !== undefined) data.step = f.step;
  if (f.reason) data.reason = f.reason.detail === undefined ? { code: f.reason.code } : { code: f.reason.code, detail: f.reason.detail };
  if (f.verifiedBy) data.verifiedBy = f.verifiedBy;
  const ce: CloudEvent = {
    specversion: '1.0',
    id: statusEventId(f.executionId, f.seq),
    source: ctx.source,
    type: EXECUTION_TYPE_PREFIX + f.status,
    subject: f.executionId,
    time: eventTime(f.at, ctx.dataset),
    datacontenttype: 'application/json',
    cookwalaseq: f.seq,
    data,
  };
  if (f.safety || SAFETY_STATES.has(f.status)) ce.cookwalalatency = LOCAL_SAFETY;
  return signEvent(ce, ctx.signer, eventTime(f.at, ctx.dataset));
}

/** Liveness only: no data (nobody would read it), never stored or queued. */
export function buildHeartbeat(ctx: EventContext, at: number, n: number): CloudEvent {
  const ce: CloudEvent = { specversion: '1.0', id: `heartbeat.${at}.${n}`, source: ctx.source, type: HEARTBEAT_TYPE, time: formatTime(at) };
  return signEvent(ce, ctx.signer, formatTime(at));
}

/** The last event that leaves a device after consent is withdrawn; a hash_only sequencer erases. */
export function buildConsentWithdrawn(ctx: EventContext, at: number, epoch: number, previous: Dataset): CloudEvent {
  const ce: CloudEvent = {
    specversion: '1.0',
    id: `consent.withdrawn.${epoch}`,
    source: ctx.source,
    type: CONSENT_WITHDRAWN_TYPE,
    time: eventTime(at, previous),
    datacontenttype: 'application/json',
    data: { previous },
  };
  return signEvent(ce, ctx.signer, eventTime(at, previous));
}
