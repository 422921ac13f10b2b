// An erased payload and its erasure entry in two runs of the entry checker, the second resumed
// from the first (as a monitor's steps are): the first run hands back the gap it could not
// explain (unexplainedPayloads), the second matches the erasure entry naming it against the gaps
// it is given (earlierMissing): cleared with no failure when the eventHash agrees, erasure_mismatch
// when it does not, and quiet for a seq the earlier run did not hold as missing.
import { describe, expect, it } from 'vitest';
import { createEntryChecker, type EntryResume } from './entries.ts';
import { createFailureLog } from './report.ts';
import { createTrust } from './trust.ts';
import { createSigQueue } from './signature-batches.ts';
import { createMissingPayloads, type MarkResult } from './missing-payloads.ts';
import { lineKind } from './format.ts';
import { generateLog } from '../../testkit/log-generator.ts';

// Events 1..6, every third erased: entry 3 has no payload and entry 5 erases it; entry 7 has none
// and entry 8 erases it.
const g = generateLog({ events: 6, eraseEvery: 3, witnesses: 0, quorum: 0 });
const lines = [...g.lines()]
  .join('')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as Record<string, unknown>);
const entryLines = lines.filter((l) => lineKind(l) === 'Event' || lineKind(l) === 'Payload');

async function run(o: {
  through: number;
  resume?: EntryResume;
  earlierMissing?: { markErased(seq: number, h: Uint8Array, by: number): MarkResult };
}) {
  const failures = createFailureLog();
  const sigs = createSigQueue();
  const checker = createEntryChecker({
    failures,
    trust: createTrust(g.policy, g.deviceKeys),
    sigs,
    mode: 'hash_only',
    wantsRoot: () => false,
    recordRoot: () => undefined,
    resume: o.resume,
    earlierMissing: o.earlierMissing,
  });
  let line = 0;
  for (const l of entryLines) {
    const seq = l.seq as number;
    if (seq <= (o.resume?.seq ?? 0) || seq > o.through) continue;
    if (lineKind(l) === 'Payload') checker.payload(l, ++line);
    else await checker.entry(l, ++line);
  }
  checker.close();
  await sigs.drain();
  const gaps: Array<[number, Uint8Array]> = [];
  checker.unexplainedPayloads((seq, h) => gaps.push([seq, h.slice()]));
  return { failures: failures.list(), gaps, resume: checker.resumePoint() };
}

describe('erasures across a resume point', () => {
  it('hands back the gap it cannot explain and matches it in the resumed run', async () => {
    const first = await run({ through: 4 });
    expect(first.failures).toEqual([]);
    expect(first.gaps.map((x) => x[0])).toEqual([3]);
    const earlier = createMissingPayloads();
    earlier.add(3, first.gaps[0][1]);
    const second = await run({ through: 8, resume: first.resume, earlierMissing: earlier });
    expect(second.failures).toEqual([]);
    expect(earlier.unexplained).toBe(0);
    // Entry 7's gap and its erasure entry 8 fall in the second run: explained there.
    expect(second.gaps).toEqual([]);
  });

  it('names an erasure entry whose eventHash is not that of the gap, and is quiet for a seq it does not hold', async () => {
    const first = await run({ through: 4 });
    const other = createMissingPayloads();
    other.add(3, new Uint8Array(32).fill(7));
    const wrong = await run({ through: 8, resume: first.resume, earlierMissing: other });
    expect(wrong.failures.map((f) => [f.kind, f.seq])).toEqual([['erasure_mismatch', 5]]);
    const none = await run({ through: 8, resume: first.resume, earlierMissing: createMissingPayloads() });
    expect(none.failures).toEqual([]);
  });
});
