// Unit tests of report-model.ts: the causes come first with what follows from them grouped under
// them (a missing entry: its stranded payload, the shifted subject order, every disagreeing
// checkpoint), a rewrite is labelled by its checkpoint, lone rewrites are one cause, and every
// listed failure appears exactly once.
import { describe, expect, it } from 'vitest';
import { groupFailures } from './report-model.ts';
import type { BundleFailure } from './report.ts';

const rewrite = (from: number, upTo: number, line: number): BundleFailure => ({
  kind: 'rewrite_detected',
  seq: from,
  upTo,
  line,
  detail: `the entries disagree with the witnessed checkpoint at seq ${upTo}; the first differing seq is in ${from}..${upTo}`,
});

describe('groupFailures', () => {
  it('a deleted entry line: chain_broken at seq 50 is the one cause, the rest follows from it', () => {
    const fs: BundleFailure[] = [
      rewrite(41, 60, 220),
      rewrite(41, 80, 221),
      rewrite(41, 107, 224),
      {
        kind: 'misplaced_line',
        seq: 50,
        line: 103,
        found: { kind: 'Payload', seq: 50 },
        detail: 'a payload line comes directly after the entry of its seq',
      },
      {
        kind: 'chain_broken',
        seq: 50,
        line: 104,
        expected: { seq: 50 },
        found: { seq: 51 },
        detail: 'entry seq 51 where seq 50 should follow seq 49',
      },
      { kind: 'out_of_order', seq: 52, line: 106, expected: 25, found: 26, detail: 'entry 52: cookwalaseq 26 after 24' },
    ];
    const causes = groupFailures(fs);
    expect(causes.map((c) => `${c.failure.kind}@${c.failure.seq}`)).toEqual(['chain_broken@50']);
    expect(causes[0].title).toMatch(/^entry 50 missing: line 103; /);
    expect(causes[0].consequences.map((x) => x.where)).toEqual([
      'seq 50, line 103',
      'seq 52, line 106',
      'checkpoint 60, line 220',
      'checkpoint 80, line 221',
      'checkpoint 107, line 224',
    ]);
    expect(causes[0].consequenceCounts).toBe('misplaced_line 1, out_of_order 1, rewrite_detected 3');
  });

  it('rewrites no cause explains are one cause, the first disagreeing checkpoint, labelled by it', () => {
    const causes = groupFailures([rewrite(26, 33, 90), rewrite(26, 40, 91)]);
    expect(causes.length).toBe(1);
    expect(causes[0].where).toBe('checkpoint 33, line 90');
    expect(causes[0].more).toContain('first difference in seq 26..33');
    expect(causes[0].consequences.map((x) => x.where)).toEqual(['checkpoint 40, line 91']);
  });

  it('independent faults stay separate causes, in log order; every failure appears once', () => {
    const fs: BundleFailure[] = [
      rewrite(1, 12, 80),
      { kind: 'entry_hash_mismatch', seq: 8, line: 20, detail: 'entry 8: the hash member is not the hash of its contents' },
      { kind: 'payload_hash_mismatch', seq: 17, line: 40, detail: 'payload 17' },
      rewrite(13, 24, 81),
    ];
    const causes = groupFailures(fs);
    expect(causes.map((c) => `${c.failure.kind}@${c.failure.seq}`)).toEqual(['entry_hash_mismatch@8', 'payload_hash_mismatch@17']);
    expect(causes.flatMap((c) => [c.failure, ...c.consequences.map((x) => x.failure)]).length).toBe(fs.length);
  });
});
