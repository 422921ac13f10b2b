// Strict reading of execution requests, the refusal rules of §3/§6 (each reason code), and the
// SafetyLimits merge where the stricter value always wins.
import { describe, expect, it } from 'vitest';
import { readExecutionRequest, stricterDataset } from './request.ts';
import { DEFAULT_PROFILE, planExecution, type DeviceProfile } from './plan.ts';
import { DEFAULT_SAFETY_LIMITS, mergeSafetyLimits, readSafetyLimits } from './safety-limits.ts';
import { RECIPES } from './missions.ts';

const step = (op: string, params: Record<string, number> = {}) => ({ op, params });
const body = (...steps: unknown[]) => ({ recipe: { id: 'r-1', steps } });

function plan(b: unknown, device: Partial<DeviceProfile> = {}, limits = DEFAULT_SAFETY_LIMITS) {
  const r = readExecutionRequest(b);
  if (!r.ok) throw new Error(`${r.code}: ${r.detail}`);
  return planExecution(r.value, { ...DEFAULT_PROFILE, ...device }, limits);
}

describe('readExecutionRequest', () => {
  it('reads a good request and drops x- members', () => {
    const r = readExecutionRequest({
      recipe: {
        id: 'pasta',
        steps: [{ op: 'cw.op.boil', params: { tempC: 98, durationS: 60, 'x-acme-note': 1 }, 'x-acme-ui': 'big' }],
        'x-acme-src': 'a',
      },
      consent: { dataset: 'open' },
    });
    expect(r).toEqual({
      ok: true,
      value: { recipe: { id: 'pasta', steps: [{ op: 'cw.op.boil', params: { tempC: 98, durationS: 60 } }] }, consent: { dataset: 'open' } },
    });
  });
  it.each([
    [{ recipe: { id: 'a', steps: [step('cw.op.boil')] }, mandate: {} }, 'unknown_field', '$.mandate'],
    [{ recipe: { id: 'a', steps: [step('cw.op.boil')], title: 'x' } }, 'unknown_field', '$.recipe.title'],
    [body({ op: 'cw.op.boil', speed: 3 }), 'unknown_field', '$.recipe.steps[0].speed'],
    [body({ op: 'cw.op.boil', params: { tempF: 200 } }), 'unknown_field', '$.recipe.steps[0].params.tempF'],
    [{ recipe: { id: 'a', steps: [step('cw.op.boil')] }, consent: { dataset: 'none', scope: 1 } }, 'unknown_field', '$.consent.scope'],
    [null, 'invalid_document', 'object'],
    [[], 'invalid_document', 'object'],
    [{}, 'invalid_document', '$.recipe'],
    [{ recipe: { id: '', steps: [step('cw.op.boil')] } }, 'invalid_document', '$.recipe.id'],
    [{ recipe: { id: 'a b', steps: [step('cw.op.boil')] } }, 'invalid_document', '$.recipe.id'],
    [{ recipe: { id: 'a', steps: [] } }, 'invalid_document', 'steps'],
    [{ recipe: { id: 'a', steps: Array(201).fill(step('cw.op.stir', { durationS: 1 })) } }, 'invalid_document', 'steps'],
    [body({ op: 'boil' }), 'invalid_document', '.op'],
    [body({ op: 'cw.op.boil', params: { tempC: '98' } }), 'invalid_document', 'tempC'],
    [body({ op: 'cw.op.boil', params: { durationS: 0 } }), 'invalid_document', 'durationS'],
    [body({ op: 'cw.op.boil', params: { durationS: -5 } }), 'invalid_document', 'durationS'],
    [body({ op: 'cw.op.boil', params: [] }), 'invalid_document', 'params'],
    [{ recipe: { id: 'a', steps: [step('cw.op.boil')] }, consent: { dataset: 'public' } }, 'invalid_document', 'dataset'],
  ])('refuses %j', (json, code, detail) => {
    const r = readExecutionRequest(json);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe(code);
      expect(r.detail).toContain(detail);
    }
  });
  it('orders datasets by strictness', () => {
    expect(stricterDataset('open', 'none')).toBe('none');
    expect(stricterDataset('research_only', 'open')).toBe('research_only');
    expect(stricterDataset('open', 'open')).toBe('open');
  });
});

describe('planExecution', () => {
  it('plans every mission recipe but the fries, choosing the first satisfiable rung', () => {
    for (const r of RECIPES.slice(0, 5)) expect(plan({ recipe: r }).ok).toBe(true);
    const p = plan(body(step('cw.op.simmer', { tempC: 90, durationS: 60 }), step('cw.op.saute', { durationS: 60 }), step('cw.op.check')));
    expect(p.ok && p.value.steps.map((s) => s.verifiedBy)).toEqual(['sensor:water_temp', 'sensor:pan_temp', 'human']);
  });
  it('falls back down the ladder: model, then time', () => {
    const noWaterSensor = { sensors: [] as never[] };
    const m = plan(body(step('cw.op.simmer', { durationS: 60 })), noWaterSensor);
    expect(m.ok && m.value.steps[0].verifiedBy).toBe('model');
    const t = plan(body(step('cw.op.simmer', { durationS: 60 })), { ...noWaterSensor, models: [] });
    expect(t.ok && t.value.steps[0].verifiedBy).toBe('time');
  });
  it.each([
    ['unknown_operation', body(step('cw.op.flambe')), {}],
    ['unknown_operation', body(step('cw.op.bake', { durationS: 60 })), { operations: ['cw.op.boil'] }],
    ['outside_envelope', body(step('cw.op.simmer', { tempC: 99 })), {}],
    ['outside_envelope', body(step('cw.op.deep_fry', { tempC: 200 })), { sensors: ['oil_temp'] }],
    ['outside_envelope', body(step('cw.op.stir', { tempC: 40, durationS: 5 })), {}],
    // Simmer at 2400 m: the band is 77–88 °C, so 90 °C is outside it.
    ['outside_envelope', body(step('cw.op.simmer', { tempC: 90 })), { altitudeM: 2400 }],
    ['safety_limit', body(step('cw.op.bake', { durationS: 5 * 3600 })), {}],
    ['missing_sensor_no_fallback', body(step('cw.op.deep_fry', { tempC: 175, durationS: 60 })), {}],
    // Sautéing never falls back to time alone: no pan sensor and no person means no rung.
    ['person_required', body(step('cw.op.saute', { durationS: 60 })), { personReachable: false }],
    ['missing_sensor_no_fallback', body(step('cw.op.rest')), {}],
    ['missing_sensor_no_fallback', body(step('cw.op.simmer')), { sensors: [], models: [] }],
  ] as const)('%s for %j on %j', (code, b, device) => {
    const r = plan(b, device as Partial<DeviceProfile>);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe(code);
      expect(r.detail).toContain('step 0');
      expect(r.step).toBe(0);
    }
  });
  it('altitude shifts water bands down: 80 °C simmers at 2400 m but not at sea level', () => {
    expect(plan(body(step('cw.op.simmer', { tempC: 80 })), { altitudeM: 2400 }).ok).toBe(true);
    expect(plan(body(step('cw.op.simmer', { tempC: 80 }))).ok).toBe(false);
  });
  it('a tighter pack refuses targets the default allows; the second failing step is named', () => {
    const tight = mergeSafetyLimits(DEFAULT_SAFETY_LIMITS, { maxPanSurfaceTempC: 200 });
    const r = plan(body(step('cw.op.saute', { tempC: 190 }), step('cw.op.sear', { tempC: 230 })), {}, tight);
    expect(r.ok).toBe(false);
    if (!r.ok) expect([r.code, r.step]).toEqual(['safety_limit', 1]);
    // An envelope that starts above the limit cannot be met at all.
    const cold = mergeSafetyLimits(DEFAULT_SAFETY_LIMITS, { maxOilTempC: 150 });
    const f = plan(body(step('cw.op.deep_fry')), { sensors: ['oil_temp'] }, cold);
    expect(!f.ok && f.code).toBe('safety_limit');
  });
});

describe('SafetyLimits', () => {
  it('stricter always wins: a looser pack changes nothing, a tighter one lowers only its limit', () => {
    const looser = mergeSafetyLimits(DEFAULT_SAFETY_LIMITS, { maxOilTempC: 400, stopMotionMs: 5000, cutHeatMs: 10_000 });
    expect(looser.limits).toEqual(DEFAULT_SAFETY_LIMITS.limits);
    const tighter = mergeSafetyLimits(DEFAULT_SAFETY_LIMITS, { maxOilTempC: 180 }, { maxOilTempC: 185, cutHeatMs: 400 });
    expect(tighter.limits).toEqual({ ...DEFAULT_SAFETY_LIMITS.limits, maxOilTempC: 180, cutHeatMs: 400 });
    // Nothing can disable a limit: zero, negative and non-numbers are ignored.
    expect(mergeSafetyLimits(DEFAULT_SAFETY_LIMITS, { maxOilTempC: 0 }, { maxAirTempC: -1 }, { maxWaterTempC: NaN }).limits).toEqual(
      DEFAULT_SAFETY_LIMITS.limits,
    );
  });
  it('reads packs strictly', () => {
    expect(
      readSafetyLimits({ kind: 'SafetyLimits', coreVersion: '0.2.7', limits: { maxOilTempC: 170, 'x-acme-note': 'ok' }, 'x-acme': 1 }),
    ).toEqual({ ok: true, value: { kind: 'SafetyLimits', coreVersion: '0.2.7', limits: { maxOilTempC: 170 } } });
    const bad = (j: unknown) => {
      const r = readSafetyLimits(j);
      return r.ok ? 'ok' : r.code;
    };
    expect(bad({ kind: 'SafetyLimits', coreVersion: '0.3.0', limits: {} })).toBe('unsupported_version');
    expect(bad({ kind: 'SafetyLimits', coreVersion: '0.2.1', limits: { maxLaserW: 3 } })).toBe('unknown_field');
    expect(bad({ kind: 'SafetyLimits', coreVersion: '0.2.1', limits: {}, override: true })).toBe('unknown_field');
    expect(bad({ kind: 'SafetyLimits', coreVersion: '0.2.1', limits: { maxOilTempC: -3 } })).toBe('invalid_document');
    expect(bad({ kind: 'Other', coreVersion: '0.2.1', limits: {} })).toBe('invalid_document');
    expect(bad('x')).toBe('invalid_document');
  });
});
