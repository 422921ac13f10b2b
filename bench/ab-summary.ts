// bench/ab-summary.ts: the pure half of bench/ab.ts (a change judged by two builds measured at the
// same time, each pinned to a core of its own, cores swapped every round). Which figure of a
// section's result is compared (HEADLINE, or a key path given), how it is read out of a result,
// and what the rounds say: each round's B/A, their median and spread, and a verdict that only
// calls B better or worse when every round agrees by more than the threshold; anything less is
// "within noise". Leaves out: running anything (ab.ts).

/** The figure compared per section when none is named: a ratio to a limit measured in the same run. */
export const HEADLINE: Record<string, { key: string; higherIsBetter: boolean }> = {
  ingest: { key: 'ingest.batch.ratioToVerifyLimit', higherIsBetter: true },
  verify: { key: 'verify.ratioToVerifyLimit', higherIsBetter: true },
  witness: { key: 'witness.ratioToCryptoLimit', higherIsBetter: true },
  c2sp: { key: 'c2sp.witnessRatioToCryptoLimit', higherIsBetter: true },
  append: { key: 'append.synced.cpuPerBlockRatioToHypercore', higherIsBetter: false },
  postgres: { key: 'postgres.ratioToLevel', higherIsBetter: true },
};

/** A number at a dotted key path of a results object (`{section: {...}}`), else undefined. */
export function valueAt(results: unknown, key: string): number | undefined {
  let cur: unknown = results;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return typeof cur === 'number' && Number.isFinite(cur) ? cur : undefined;
}

export interface AbRound {
  a: number;
  b: number;
  /** b / a */
  ratio: number;
  /** The core each build ran on this round. */
  coreA: number;
  coreB: number;
}

export interface AbSummary {
  rounds: AbRound[];
  /** Median of the rounds' B/A (the lower middle one for an even count). */
  medianRatio: number;
  ratioSpread: [number, number];
  /** "b better", "b worse" (every round beyond the threshold, the same way) or "within noise". */
  verdict: 'b better' | 'b worse' | 'within noise';
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * Summarise rounds. `threshold` is the relative change every round must show (0.03: 3%) for a
 * verdict other than "within noise"; with higherIsBetter false (a cost), a B/A below 1 is better.
 */
export function summariseAb(rounds: AbRound[], higherIsBetter: boolean, threshold = 0.03): AbSummary {
  if (rounds.length === 0) throw new RangeError('no rounds measured');
  const ratios = rounds.map((r) => r.ratio).sort((x, y) => x - y);
  const medianRatio = round3(ratios[Math.floor((ratios.length - 1) / 2)]);
  const up = ratios.every((r) => r > 1 + threshold);
  const down = ratios.every((r) => r < 1 - threshold);
  const verdict = up ? (higherIsBetter ? 'b better' : 'b worse') : down ? (higherIsBetter ? 'b worse' : 'b better') : 'within noise';
  return { rounds, medianRatio, ratioSpread: [round3(ratios[0]), round3(ratios[ratios.length - 1])], verdict };
}

/** One round's record from the two results read back; undefined when either lacks the figure. */
export function roundOf(resultA: unknown, resultB: unknown, key: string, coreA: number, coreB: number): AbRound | undefined {
  const a = valueAt(resultA, key);
  const b = valueAt(resultB, key);
  if (a === undefined || b === undefined || a === 0) return undefined;
  return { a, b, ratio: round3(b / a), coreA, coreB };
}
