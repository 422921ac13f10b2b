// bench/ingest-summary.ts: the ingest section's modes from their interleaved pairs (docs/design.md §13,
// bench/pairs.ts): a mode's median pair with the spread of its ratios and limits and the latency
// of its requests (modeSummary), and single posts at each number of clients in flight
// (clientsSummary, `ingest.singleByClients`). Pure arithmetic on measured phases
// (bench/ingest-floor.ts Phase), so bench/ingest-summary.test.ts checks it on known figures.

import { summarisePairs, type Pair } from './pairs.ts';
import { pct, round, type Phase } from './ingest-floor.ts';

export function modeSummary(pairs: Array<Pair<Phase>>) {
  const r = summarisePairs(pairs);
  const lat = r.median.extra!.latencies;
  const all = pairs.flatMap((p) => p.extra!.latencies).sort((a, b) => a - b);
  return {
    eventsPerSec: r.median.figure,
    verifyPerSecAllCores: r.median.limit,
    ratioToVerifyLimit: r.ratio,
    ratioSpread: r.ratioSpread,
    limitSpread: r.limitSpread,
    limitsAgree: r.limitsAgree,
    p50Ms: round(pct(lat, 50), 2),
    p99Ms: round(pct(lat, 99), 2),
    allPairsP50Ms: round(pct(all, 50), 2),
    allPairsP99Ms: round(pct(all, 99), 2),
    median: r.median.extra!,
    // Its event loop in the median pair: on a core, runnable but waiting for one, taken off per event.
    eventLoop: r.median.extra!.eventLoop,
    pairs: pairs.map((p) => ({ limit: p.limit, eventsPerSec: p.figure, ratio: p.ratio, seconds: round(p.extra!.secs, 2) })),
  };
}

/** Single posts by clients in flight: each concurrency's median pair, its spreads, latency and sequencer CPU per post. */
export function clientsSummary(byClients: ReadonlyMap<number, Array<Pair<Phase>>>) {
  return Object.fromEntries(
    [...byClients].map(([n, pairs]) => {
      const m = modeSummary(pairs);
      return [
        String(n),
        {
          eventsPerSec: m.eventsPerSec,
          ratioToVerifyLimit: m.ratioToVerifyLimit,
          ratioSpread: m.ratioSpread,
          limitSpread: m.limitSpread,
          limitsAgree: m.limitsAgree,
          p50Ms: m.p50Ms,
          p99Ms: m.p99Ms,
          sequencerCpuUsPerPost: round((1e6 * m.median.sequencerCpu) / m.median.events, 1),
          eventLoop: m.eventLoop,
        },
      ];
    }),
  );
}
