// executor/vocabulary.ts: the operations this executor knows, each with its envelope (Cookwala Core 0.2
// §3): the medium, its temperature band in °C, whether it may run unattended, and its sensor ladder
// (ways to verify the step, best first). A small built-in subset of vocab/ops.json, written from the
// spec's rules and examples (simmer = water 85–96 °C, deep_fry = oil 160–190 °C); pressure,
// agitation, lids and test methods are left out. Invariants from §3: operations that may not run
// unattended never fall back to time alone (their last rung is a person), and deep frying has no
// fallback at all (no oil sensor, no frying). Water bands shift by −1 °C per 300 m of altitude.

export type Medium = 'water' | 'oil' | 'air' | 'pan_surface' | 'none';
export type SensorName = 'water_temp' | 'oil_temp' | 'air_temp' | 'pan_temp' | 'scale';
/** A rung of the sensor ladder: a named sensor, a logged model estimate, elapsed time, or a person. */
export type Rung = { sensor: SensorName } | 'model' | 'time' | 'human';

export interface Envelope {
  op: string;
  medium: Medium;
  /** Inclusive band in °C at sea level; absent for operations that do not heat. */
  band?: readonly [number, number];
  unattended: boolean;
  ladder: readonly Rung[];
  /** Used when a step gives no durationS (the simulator needs one; a real device ends on its rung). */
  defaultDurationS: number;
}

const E = (e: Envelope): Envelope => Object.freeze(e);

export const OPERATIONS: ReadonlyMap<string, Envelope> = new Map(
  [
    E({
      op: 'cw.op.boil',
      medium: 'water',
      band: [95, 100],
      unattended: true,
      ladder: [{ sensor: 'water_temp' }, 'model', 'time'],
      defaultDurationS: 600,
    }),
    E({
      op: 'cw.op.simmer',
      medium: 'water',
      band: [85, 96],
      unattended: true,
      ladder: [{ sensor: 'water_temp' }, 'model', 'time'],
      defaultDurationS: 900,
    }),
    E({
      op: 'cw.op.bake',
      medium: 'air',
      band: [120, 250],
      unattended: true,
      ladder: [{ sensor: 'air_temp' }, 'model', 'time'],
      defaultDurationS: 1800,
    }),
    E({
      op: 'cw.op.saute',
      medium: 'pan_surface',
      band: [150, 220],
      unattended: false,
      ladder: [{ sensor: 'pan_temp' }, 'human'],
      defaultDurationS: 300,
    }),
    E({
      op: 'cw.op.sear',
      medium: 'pan_surface',
      band: [200, 260],
      unattended: false,
      ladder: [{ sensor: 'pan_temp' }, 'human'],
      defaultDurationS: 180,
    }),
    E({
      op: 'cw.op.reduce',
      medium: 'water',
      band: [90, 100],
      unattended: false,
      ladder: [{ sensor: 'water_temp' }, 'model', 'human'],
      defaultDurationS: 600,
    }),
    E({
      op: 'cw.op.deep_fry',
      medium: 'oil',
      band: [160, 190],
      unattended: false,
      ladder: [{ sensor: 'oil_temp' }],
      defaultDurationS: 240,
    }),
    E({ op: 'cw.op.dispense', medium: 'none', unattended: true, ladder: [{ sensor: 'scale' }, 'time'], defaultDurationS: 20 }),
    E({ op: 'cw.op.stir', medium: 'none', unattended: true, ladder: ['time'], defaultDurationS: 60 }),
    E({ op: 'cw.op.rest', medium: 'none', unattended: true, ladder: ['time'], defaultDurationS: 300 }),
    // A person checks doneness (taste, look): the step waits in needs_human until they confirm.
    E({ op: 'cw.op.check', medium: 'none', unattended: false, ladder: ['human'], defaultDurationS: 30 }),
  ].map((e) => [e.op, e]),
);

/** The band at a kitchen altitude: water (and steam) shift by −1 °C per 300 m (§3). */
export function bandAt(env: Envelope, altitudeM: number): readonly [number, number] | undefined {
  if (!env.band) return undefined;
  if (env.medium !== 'water') return env.band;
  const shift = altitudeM / 300;
  return [env.band[0] - shift, env.band[1] - shift];
}

export function rungName(r: Rung): string {
  return typeof r === 'string' ? r : `sensor:${r.sensor}`;
}
