// bench/pairs.ts: ratios that survive a noisy machine (docs/design.md §13): a figure and the
// limit it is judged against are measured in interleaved pairs (limit, figure, limit, figure, …,
// at least 3 pairs), each pair's ratio computed from its own limit, and the median pair reported
// with the spread of all ratios. A run whose limits disagree by more than 20% (max/min > 1.2) says
// so (`limitsAgree: false`), so a table built from it can be marked. Shared by the sections that
// report a ratio (ingest, verify, witness, append, c2sp, postgres, logs).

export interface Pair<E = undefined> {
  limit: number;
  figure: number;
  ratio: number;
  /** Whatever else the figure's run measured (kept for the median pair). */
  extra?: E;
}

export interface PairsResult<E = undefined> {
  /** The median pair by ratio (for an even count, the lower middle one). */
  median: Pair<E>;
  ratio: number;
  ratioSpread: [number, number];
  /** max/min of the limits measured in this run. */
  limitSpread: number;
  limitsAgree: boolean;
  pairs: Array<Pair<E>>;
}

export const DEFAULT_PAIRS = 3;
export const LIMITS_AGREE = 1.2;

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

/** Summarise measured pairs: the median by ratio, the spreads, and whether the limits agree. */
export function summarisePairs<E>(pairs: Array<Pair<E>>): PairsResult<E> {
  if (pairs.length === 0) throw new RangeError('no pairs measured');
  const byRatio = [...pairs].sort((a, b) => a.ratio - b.ratio);
  const median = byRatio[Math.floor((byRatio.length - 1) / 2)];
  const limits = pairs.map((p) => p.limit);
  const limitSpread = round(Math.max(...limits) / Math.min(...limits), 3);
  return {
    median,
    ratio: median.ratio,
    ratioSpread: [byRatio[0].ratio, byRatio[byRatio.length - 1].ratio],
    limitSpread,
    limitsAgree: limitSpread <= LIMITS_AGREE,
    pairs,
  };
}

/**
 * Measure `n` interleaved pairs: limit(), then figure(), n times, in that order, never two of a
 * kind in a row. figure() may return extra measurements beside its number.
 */
export async function measurePairs<E = undefined>(
  n: number,
  limit: (i: number) => Promise<number>,
  figure: (i: number) => Promise<number | { value: number; extra: E }>,
): Promise<PairsResult<E>> {
  const pairs: Array<Pair<E>> = [];
  for (let i = 0; i < Math.max(1, n); i++) {
    const l = await limit(i);
    const f = await figure(i);
    const value = typeof f === 'number' ? f : f.value;
    const extra = typeof f === 'number' ? undefined : f.extra;
    pairs.push({ limit: l, figure: value, ratio: round(value / l, 3), ...(extra === undefined ? {} : { extra }) });
  }
  return summarisePairs(pairs);
}
