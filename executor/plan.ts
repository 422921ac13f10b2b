// executor/plan.ts: can this device run this recipe? (Cookwala Core 0.2 §3 "refusal, not guessing",
// §6.1, §6.6.) For every step, in order: the operation is known and supported; a target lies inside
// the envelope (water bands shifted for altitude); the target and the envelope fit the SafetyLimits
// pack; an operation that may not run unattended has a person present or reachable; and some rung
// of the sensor ladder can be satisfied — the first one is recorded as `verifiedBy`. The first
// problem refuses the whole execution before it starts, with a reason code and the step named.
// Pure: the device profile and limits are values. Leaves out allergens, recalls and mandates.

import { fail, ok, type Result } from '../verifier/index.ts';
import type { ExecutionRequest } from './request.ts';
import { maxTempFor, type SafetyLimits } from './safety-limits.ts';
import { OPERATIONS, bandAt, rungName, type Medium, type Rung, type SensorName } from './vocabulary.ts';

export interface DeviceProfile {
  /** Operation ids this device can run; default: every operation in the vocabulary. */
  operations?: readonly string[];
  sensors: readonly SensorName[];
  /** Media for which the device has a (logged) model estimate. */
  models: readonly Medium[];
  /** A responsible person is present or reachable within one minute (§6.6). */
  personReachable: boolean;
  altitudeM: number;
}

export const DEFAULT_PROFILE: DeviceProfile = Object.freeze({
  sensors: ['water_temp', 'pan_temp', 'air_temp', 'scale'] as SensorName[],
  models: ['water', 'air'] as Medium[],
  personReachable: true,
  altitudeM: 0,
});

export interface PlannedStep {
  op: string;
  tempC?: number;
  durationS: number;
  verifiedBy: string;
  unattended: boolean;
}
export interface Plan {
  steps: PlannedStep[];
}

function satisfiable(r: Rung, device: DeviceProfile, medium: Medium, hasDuration: boolean): boolean {
  if (r === 'model') return device.models.includes(medium);
  if (r === 'time') return hasDuration;
  if (r === 'human') return device.personReachable;
  return device.sensors.includes(r.sensor);
}

export function planExecution(req: ExecutionRequest, device: DeviceProfile, pack: SafetyLimits): Result<Plan> {
  const steps: PlannedStep[] = [];
  const limits = pack.limits;
  for (let i = 0; i < req.recipe.steps.length; i++) {
    const s = req.recipe.steps[i];
    const at = `step ${i} (${s.op})`;
    const env = OPERATIONS.get(s.op);
    if (!env || (device.operations && !device.operations.includes(s.op)))
      return fail('unknown_operation', `${at}: not an operation this device runs`, { step: i });
    const band = bandAt(env, device.altitudeM);
    const t = s.params.tempC;
    if (t !== undefined) {
      if (!band) return fail('outside_envelope', `${at}: this operation does not heat, so it takes no tempC`, { step: i });
      if (t < band[0] || t > band[1]) return fail('outside_envelope', `${at}: ${t} °C is outside ${band[0]}–${band[1]} °C`, { step: i });
    }
    const max = maxTempFor(limits, env.medium);
    if (band && max !== undefined) {
      if (t !== undefined && t > max) return fail('safety_limit', `${at}: ${t} °C exceeds the device limit of ${max} °C`, { step: i });
      if (band[0] > max)
        return fail('safety_limit', `${at}: the envelope starts at ${band[0]} °C, above the device limit of ${max} °C`, { step: i });
    }
    const durationS = s.params.durationS ?? env.defaultDurationS;
    if (durationS > limits.maxStepDurationS)
      return fail('safety_limit', `${at}: ${durationS} s exceeds maxStepDurationS ${limits.maxStepDurationS}`, { step: i });
    // A missing sensor is the device's lasting limit, so it is named first (a person arriving would
    // not help); then a step that needs a person needs one now (§6.6).
    const withPerson = { ...device, personReachable: true };
    if (!env.ladder.some((r) => satisfiable(r, withPerson, env.medium, s.params.durationS !== undefined)))
      return fail('missing_sensor_no_fallback', `${at}: no rung of ${env.ladder.map(rungName).join(' > ')} is available`, { step: i });
    if (!env.unattended && !device.personReachable)
      return fail('person_required', `${at}: may not run unattended and no person is present or reachable`, { step: i });
    const rung = env.ladder.find((r) => satisfiable(r, device, env.medium, s.params.durationS !== undefined));
    if (!rung)
      return fail('missing_sensor_no_fallback', `${at}: no rung of ${env.ladder.map(rungName).join(' > ')} is available`, { step: i });
    const p: PlannedStep = { op: s.op, durationS, verifiedBy: rungName(rung), unattended: env.unattended };
    if (t !== undefined) p.tempC = t;
    steps.push(p);
  }
  return ok({ steps });
}
