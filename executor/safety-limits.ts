// executor/safety-limits.ts: the SafetyLimits pack that an executor enforces on the device (Cookwala
// Core 0.2 §6.1). No recipe, agent or remote message can raise or disable a limit, and a stricter
// limit always wins: packs are merged field by field toward the stricter value (the lower maximum,
// the shorter reaction time), so a looser pack can be merged in and changes nothing. The built-in
// default is this project's draft starting point (profiles/core/safety-limits.default.json is not
// in this repository); device makers tighten it from their own safety case. Reading a pack is strict:
// unknown members are refused (x- members ignored), every limit is a positive finite number.

import { fail, ok, type Result } from '../verifier/index.ts';
import type { Medium } from './vocabulary.ts';

export const SAFETY_LIMIT_KEYS = [
  'maxWaterTempC',
  'maxOilTempC',
  'maxAirTempC',
  'maxPanSurfaceTempC',
  'maxStepDurationS',
  'stopMotionMs',
  'cutHeatMs',
] as const;
export type SafetyLimitKey = (typeof SAFETY_LIMIT_KEYS)[number];
export type Limits = Record<SafetyLimitKey, number>;

export interface SafetyLimits {
  kind: 'SafetyLimits';
  coreVersion: string;
  limits: Limits;
}

/** Every limit here is an upper bound, so "stricter" is always the smaller number. */
export const DEFAULT_SAFETY_LIMITS: SafetyLimits = Object.freeze({
  kind: 'SafetyLimits',
  coreVersion: '0.2.1',
  limits: Object.freeze({
    maxWaterTempC: 100,
    maxOilTempC: 190,
    maxAirTempC: 250,
    maxPanSurfaceTempC: 260,
    maxStepDurationS: 4 * 3600,
    stopMotionMs: 500, // §6.2: motion stops within 0.5 s
    cutHeatMs: 1000, //   §6.2: heat is cut within 1 s
  }),
}) as SafetyLimits;

export function maxTempFor(limits: Limits, medium: Medium): number | undefined {
  switch (medium) {
    case 'water':
      return limits.maxWaterTempC;
    case 'oil':
      return limits.maxOilTempC;
    case 'air':
      return limits.maxAirTempC;
    case 'pan_surface':
      return limits.maxPanSurfaceTempC;
    default:
      return undefined;
  }
}

/** The stricter of each limit over all packs; the first pack supplies coreVersion. */
export function mergeSafetyLimits(base: SafetyLimits, ...more: Array<Partial<Limits> | SafetyLimits | undefined>): SafetyLimits {
  const limits: Limits = { ...base.limits };
  for (const p of more) {
    if (!p) continue;
    const l: Partial<Limits> = 'kind' in p ? (p as SafetyLimits).limits : (p as Partial<Limits>);
    for (const k of SAFETY_LIMIT_KEYS) {
      const v = l[k];
      if (typeof v === 'number' && Number.isFinite(v) && v > 0 && v < limits[k]) limits[k] = v;
    }
  }
  return { kind: 'SafetyLimits', coreVersion: base.coreVersion, limits };
}

/** Read a device maker's pack strictly; `limits` may name any subset (the rest come from the default). */
export function readSafetyLimits(json: unknown): Result<{ kind: 'SafetyLimits'; coreVersion: string; limits: Partial<Limits> }> {
  const o = json as Record<string, unknown>;
  if (!o || typeof o !== 'object' || Array.isArray(o)) return fail('invalid_document', 'a SafetyLimits pack is an object');
  for (const k of Object.keys(o))
    if (!['kind', 'coreVersion', 'limits'].includes(k) && !k.startsWith('x-')) return fail('unknown_field', `SafetyLimits.${k}`);
  if (o.kind !== 'SafetyLimits') return fail('invalid_document', 'kind must be SafetyLimits');
  if (typeof o.coreVersion !== 'string' || !/^0\.2\.\d+$/.test(o.coreVersion))
    return fail('unsupported_version', `coreVersion ${String(o.coreVersion)}`);
  const l = o.limits as Record<string, unknown>;
  if (!l || typeof l !== 'object' || Array.isArray(l)) return fail('invalid_document', 'limits is an object');
  const out: Partial<Limits> = {};
  for (const [k, v] of Object.entries(l)) {
    if (k.startsWith('x-')) continue;
    if (!(SAFETY_LIMIT_KEYS as readonly string[]).includes(k)) return fail('unknown_field', `SafetyLimits.limits.${k}`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return fail('invalid_document', `limits.${k} must be a positive number`);
    out[k as SafetyLimitKey] = v;
  }
  return ok({ kind: 'SafetyLimits', coreVersion: o.coreVersion, limits: out });
}
