// executor/missions.ts: realistic missions for the simulator (docs/design.md §9): everyday recipes as Core
// execution requests (steps with operations, targets inside their envelopes, durations) plus a
// script of what the people around the device do — open the lid for a while (a local pause, then
// a resume with If-Match), answer a needs_human check, or press stop. Deterministic: mission m of
// device d is always the same, so a simulator restarted after a crash replays the same requests
// (and the Idempotency-Key returns the same execution). Durations are simulated seconds; the
// simulator's fast clock shrinks them. One recipe (fries) needs an oil sensor that the simulated
// devices lack, so it is refused with missing_sensor_no_fallback: refusal, not guessing (§3).

import type { ExecutionRequest } from './request.ts';

type Recipe = ExecutionRequest['recipe'];
const st = (op: string, durationS: number, tempC?: number) => ({ op, params: tempC === undefined ? { durationS } : { tempC, durationS } });

export const RECIPES: readonly Recipe[] = [
  {
    id: 'pasta-al-pomodoro',
    steps: [st('cw.op.boil', 480, 98), st('cw.op.dispense', 15), st('cw.op.simmer', 540, 92), st('cw.op.check', 30), st('cw.op.rest', 60)],
  },
  {
    id: 'vegetable-stir-fry',
    steps: [st('cw.op.saute', 240, 180), st('cw.op.dispense', 20), st('cw.op.sear', 120, 230), st('cw.op.stir', 60), st('cw.op.check', 30)],
  },
  {
    id: 'mushroom-risotto',
    steps: [
      st('cw.op.saute', 120, 170),
      st('cw.op.dispense', 10),
      st('cw.op.simmer', 1080, 90),
      st('cw.op.stir', 60),
      st('cw.op.check', 30),
      st('cw.op.rest', 120),
    ],
  },
  {
    id: 'rye-bread',
    steps: [st('cw.op.dispense', 30), st('cw.op.stir', 300), st('cw.op.rest', 1200), st('cw.op.bake', 1500, 220), st('cw.op.rest', 300)],
  },
  {
    id: 'lentil-soup',
    steps: [st('cw.op.saute', 180, 160), st('cw.op.dispense', 20), st('cw.op.simmer', 1500, 94), st('cw.op.check', 30)],
  },
  { id: 'french-fries', steps: [st('cw.op.dispense', 15), st('cw.op.deep_fry', 240, 175), st('cw.op.rest', 60)] },
];

export interface MissionScript {
  /** Idempotency-Key of the create request: stable per device and mission. */
  key: string;
  request: ExecutionRequest;
  /** Open the lid afterS simulated seconds into running, for pauseS (a local pause, then a resume). */
  pause?: { afterS: number; pauseS: number };
  /** Seconds a person takes to answer a needs_human check. */
  humanS: number;
  /** Press stop this many simulated seconds after the execution starts running. */
  stopAfterS?: number;
}

/** A small deterministic PRNG (mulberry32) so missions repeat exactly. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(s: string): number {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

export function missionFor(device: string, m: number): MissionScript {
  const rnd = prng(hash(`${device}#${m}`));
  // The fifth mission of every six asks for fries (refused); the rest cycle through the cooking recipes.
  const recipe = m % 6 === 4 ? RECIPES[5] : RECIPES[(m + Math.floor(rnd() * 5)) % 5];
  const script: MissionScript = { key: `mission-${device}-${m}`, request: { recipe }, humanS: 20 + Math.floor(rnd() * 60) };
  if (rnd() < 0.5) script.pause = { afterS: 5, pauseS: 30 + Math.floor(rnd() * 90) };
  // Every third mission, someone presses stop a few minutes in.
  if (m % 3 === 2) script.stopAfterS = 60 + Math.floor(rnd() * 240);
  return script;
}
