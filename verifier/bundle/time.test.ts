// The log's clock, offline (verifier/documents/time-bounds.ts through entries.ts and checkpoints.ts): on
// generated bundles whose forgeries are re-signed by the device key, re-chained and re-sealed by
// the sequencer and witness keys (so no signature, hash or root check can catch them), a
// backdated and a forward-dated signedAt, a sequencedAt going backwards and a sequencedAt after a
// witness cosigned are each named with their code and seq; the bounds themselves are inclusive;
// a descriptor without timeBounds is refused (time_bounds_missing) unless the auditor's policy says the
// log predates them, and then says which time checks it skipped; declared bounds above the policy's
// caps are time_bounds_too_wide; an entry before the descriptor's createdAt is sequenced_before_creation.
import { describe, expect, it } from 'vitest';
import { generateLog, type GenOptions } from '../../testkit/log-generator.ts';
import { createBundleVerifier } from './verifier.ts';
import type { BundleReport } from './report.ts';
import { formatReport } from './report.ts';
import { formatTime, timeMs } from '../encoding/wire.ts';
import { DEFAULT_TIME_BOUNDS } from '../documents/time-bounds.ts';
import { edit, rechain, reseal, resign, type Doc } from '../../testkit/audit.ts';

const SKEW = DEFAULT_TIME_BOUNDS.maxClockSkewMs;
const DELAY = DEFAULT_TIME_BOUNDS.maxDeliveryDelayMs;

function bundle(o: Partial<GenOptions> = {}) {
  // Keys valid a week before the log starts, so backdated signatures stay inside their windows.
  const g = generateLog({ events: 60, checkpointEvery: 10, devices: 4, keysFromMs: -7 * 86_400_000, ...o });
  const lines = [...g.lines()].join('').split('\n');
  lines.pop();
  return { g, lines };
}

const parse = (l: string) => {
  try {
    return JSON.parse(l) as Doc;
  } catch {
    return undefined;
  }
};
const idx = (lines: string[], kind: string, seq: number) => lines.findIndex((l) => parse(l)?.kind === kind && parse(l)?.seq === seq);
const entry = (lines: string[], seq: number) => JSON.parse(lines[idx(lines, 'Event', seq)]) as Doc;

async function verify(lines: string[], policy: Parameters<typeof createBundleVerifier>[0]['policy'], ahead = true): Promise<BundleReport> {
  const seqs = lines
    .map(parse)
    .filter((d) => d?.kind === 'Checkpoint')
    .map((d) => d!.seq as number);
  const v = createBundleVerifier({ policy, checkpointSeqs: ahead ? seqs : undefined });
  for (const l of lines) {
    const p = v.line(l);
    if (p) await p;
  }
  return v.end();
}
const kinds = (r: BundleReport) => r.failures.map((f) => `${f.kind}@${f.seq ?? '-'}`);

/** The signer of entry `seq`'s device key (generator kids are the signers'). */
function deviceOf(g: ReturnType<typeof generateLog>, lines: string[], seq: number) {
  const kid = entry(lines, seq).eventSignature.kid;
  return g.deviceSigners.find((s) => s.kid === kid)!;
}

/** A device re-signs entry `seq` at `signedAt`; the sequencer re-chains and re-seals the log. */
function withSignedAt(g: ReturnType<typeof generateLog>, lines: string[], seq: number, signedAt: string): string[] {
  const out = resign(lines, seq, deviceOf(g, lines, seq), signedAt);
  return reseal(rechain(out, idx(out, 'Event', seq)), g.sequencer, g.witnessSigners);
}

/** The sequencer gives entry `seq` another sequencedAt, then re-chains and re-seals the log. */
function withSequencedAt(
  g: ReturnType<typeof generateLog>,
  lines: string[],
  seq: number,
  sequencedAt: string,
  cosignAt?: Parameters<typeof reseal>[3],
): string[] {
  const i = idx(lines, 'Event', seq);
  return reseal(
    rechain(
      edit(lines, i, (d) => (d.sequencedAt = sequencedAt)),
      i,
    ),
    g.sequencer,
    g.witnessSigners,
    cosignAt,
  );
}

describe('time bounds, offline', () => {
  const { g, lines } = bundle();

  it('an untouched bundle declares its bounds and meets them; the re-sealing helpers alone change nothing', async () => {
    const r = await verify(lines, g.policy);
    expect(kinds(r)).toEqual([]);
    expect(r.timeBounds).toEqual(DEFAULT_TIME_BOUNDS);
    expect(r.skipped).toEqual([]);
    expect(formatReport(r)).toMatch(/time bounds\s+signedAt within 3d before and 5m after sequencedAt/);
    const same = withSignedAt(g, lines, 15, entry(lines, 15).eventSignature.signedAt);
    expect(same.map(parse)).toEqual(lines.map(parse)); // member order aside, the same documents
  });

  it('a backdated signedAt (more than maxDeliveryDelay before sequencedAt) is delivery_too_late at its seq; exactly the bound passes', async () => {
    const seqAt = timeMs(entry(lines, 15).sequencedAt);
    const late = await verify(withSignedAt(g, lines, 15, formatTime(seqAt - DELAY - 1)), g.policy);
    expect(kinds(late)).toEqual(['delivery_too_late@15']);
    expect(late.failures[0]).toMatchObject({ found: formatTime(seqAt - DELAY - 1), expected: formatTime(seqAt - DELAY) });
    expect(late.exitCode).toBe(1);
    expect(kinds(await verify(withSignedAt(g, lines, 15, formatTime(seqAt - DELAY)), g.policy))).toEqual([]);
  });

  it('a forward-dated signedAt (more than maxClockSkew after sequencedAt) is signed_in_future at its seq; exactly the bound passes', async () => {
    const seqAt = timeMs(entry(lines, 33).sequencedAt);
    const r = await verify(withSignedAt(g, lines, 33, formatTime(seqAt + SKEW + 1)), g.policy);
    expect(kinds(r)).toEqual(['signed_in_future@33']);
    expect(kinds(await verify(withSignedAt(g, lines, 33, formatTime(seqAt + SKEW)), g.policy))).toEqual([]);
    expect(kinds(await verify(withSignedAt(g, lines, 34, '2999-01-01T00:00:00.000Z'), g.policy))).toEqual(['signed_in_future@34']);
  });

  it("a sequencedAt earlier than the previous entry's is time_regression at its seq; an equal one is not", async () => {
    const prev = entry(lines, 24).sequencedAt;
    const r = await verify(withSequencedAt(g, lines, 25, formatTime(timeMs(prev) - 1)), g.policy);
    expect(kinds(r)).toEqual(['time_regression@25']);
    expect(r.failures[0]).toMatchObject({ found: formatTime(timeMs(prev) - 1) });
    expect(kinds(await verify(withSequencedAt(g, lines, 25, prev), g.policy))).toEqual([]);
  });

  it('a sequencedAt later than a witness cosigned the checkpoint covering it (plus maxClockSkew) is sequenced_after_cosignature at that entry', async () => {
    // The witnesses cosigned checkpoint 20 earlier than its last entry says it was sequenced.
    const last = timeMs(entry(lines, 20).sequencedAt);
    const early = (by: number) => (cp: Doc, old: string) => (cp.seq === 20 ? formatTime(last - SKEW - by) : old);
    const r = await verify(withSequencedAt(g, lines, 20, entry(lines, 20).sequencedAt, early(1)), g.policy);
    expect(kinds(r)).toEqual(['sequenced_after_cosignature@20']);
    expect(r.failures[0]).toMatchObject({ expected: { checkpoint: 20, cosignedAt: formatTime(last - SKEW - 1) }, found: { seq: 20 } });
    expect(kinds(await verify(withSequencedAt(g, lines, 20, entry(lines, 20).sequencedAt, early(0)), g.policy))).toEqual([]);
  });

  it('the bound is the quorum-th earliest cosignature: one witness with a slow clock fails nothing, a quorum of them does', async () => {
    expect(g.policy.quorum).toBe(2);
    const last = timeMs(entry(lines, 20).sequencedAt);
    const slow = (kids: string[]) => (cp: Doc, old: string, kid: string) =>
      cp.seq === 20 && kids.includes(kid) ? formatTime(last - SKEW - 1) : old;
    const [w0, w1] = g.witnessSigners.map((w) => w.kid);
    const one = await verify(withSequencedAt(g, lines, 20, entry(lines, 20).sequencedAt, slow([w0])), g.policy);
    expect(kinds(one)).toEqual([]);
    const two = await verify(withSequencedAt(g, lines, 20, entry(lines, 20).sequencedAt, slow([w0, w1])), g.policy);
    expect(kinds(two)).toEqual(['sequenced_after_cosignature@20']);
  });

  it("the last entry pushed past its checkpoint's cosignatures is found without read-ahead too, and named once", async () => {
    const cosigned = JSON.parse(lines[idx(lines, 'Checkpoint', 60)]).signature[1].signedAt as string;
    const later = formatTime(timeMs(cosigned) + SKEW + 1);
    const forged = withSequencedAt(g, lines, 60, later);
    const header = edit(forged, 0, (d) => (d.exportedAt = formatTime(timeMs(later) + 1000)));
    for (const ahead of [true, false]) {
      const r = await verify(header, g.policy, ahead);
      expect(kinds(r).filter((k) => !k.startsWith('skipped'))).toContain('sequenced_after_cosignature@60');
      expect(kinds(r).filter((k) => k.startsWith('sequenced_after'))).toHaveLength(1);
    }
  });

  it("a forward-dated entry that the sequencer also forward-sequenced is still caught by the witnesses' times", async () => {
    const i = idx(lines, 'Event', 60);
    const future = '2999-01-01T00:00:00.000Z';
    let out = resign(lines, 60, deviceOf(g, lines, 60), future);
    out = edit(out, idx(out, 'Event', 60), (d) => (d.sequencedAt = future));
    out = reseal(rechain(out, i), g.sequencer, g.witnessSigners);
    out = edit(out, 0, (d) => (d.exportedAt = future));
    expect(kinds(await verify(out, g.policy))).toEqual(['sequenced_after_cosignature@60']);
  });
});

describe("the auditor's policy pins time", () => {
  it('a descriptor without timeBounds is refused unless the policy says the log predates them', async () => {
    // A log re-signed without timeBounds by whoever holds the keys: every signature verifies.
    const { g, lines } = bundle({ timeBounds: null });
    const r = await verify(lines, g.policy);
    expect(kinds(r)).toEqual(['time_bounds_missing@0']);
    expect(r.skipped).toEqual([]);
    const withCaps = { ...g.policy, timeBounds: { maxClockSkewMs: SKEW, maxDeliveryDelayMs: DELAY } };
    expect(kinds(await verify(lines, withCaps))).toEqual(['time_bounds_missing@0']);
  });

  it("declared bounds above the policy's caps are refused, each bound by itself; at the cap they pass", async () => {
    const wide = { maxClockSkewMs: 86_400_000, maxDeliveryDelayMs: 366 * 86_400_000 };
    const { g, lines } = bundle({ timeBounds: wide });
    expect(kinds(await verify(lines, g.policy))).toEqual([]);
    const caps = { ...g.policy, timeBounds: { maxClockSkewMs: SKEW, maxDeliveryDelayMs: DELAY } };
    const r = await verify(lines, caps);
    expect(kinds(r)).toEqual(['time_bounds_too_wide@0', 'time_bounds_too_wide@0']);
    expect(r.failures.map((f) => f.detail).join('\n')).toMatch(/maxDeliveryDelayMs 366d is above the policy's cap 3d/);
    expect(kinds(await verify(lines, { ...g.policy, timeBounds: { maxDeliveryDelayMs: wide.maxDeliveryDelayMs } }))).toEqual([]);
    expect(kinds(await verify(lines, { ...g.policy, timeBounds: { maxClockSkewMs: SKEW } }))).toEqual(['time_bounds_too_wide@0']);
  });

  it("an entry sequenced before the descriptor's createdAt is named", async () => {
    const { g, lines } = bundle();
    const created = timeMs((JSON.parse(lines[1]) as Doc).createdAt as string);
    const first = timeMs(entry(lines, 1).sequencedAt);
    expect(first).toBeGreaterThanOrEqual(created);
    const before = withSequencedAt(g, lines, 1, formatTime(created - 1));
    expect(kinds(await verify(before, g.policy))).toContain('sequenced_before_creation@1');
    expect(kinds(await verify(withSequencedAt(g, lines, 1, formatTime(created)), g.policy))).toEqual([]);
  });
});

describe('a descriptor without timeBounds (a log from before them)', () => {
  const { g, lines } = bundle({ timeBounds: null });

  it('verifies when the policy says the log predates them, and says which time checks it skipped; regression is still checked', async () => {
    const predates = { ...g.policy, timeBounds: { required: false } };
    const r = await verify(lines, predates);
    expect(kinds(r)).toEqual([]);
    expect(r.timeBounds).toBeUndefined();
    expect(r.skipped).toEqual([expect.objectContaining({ check: 'time bounds' })]);
    const seqAt = timeMs(entry(lines, 15).sequencedAt);
    expect(kinds(await verify(withSignedAt(g, lines, 15, formatTime(seqAt - DELAY - 1)), predates))).toEqual([]);
    const prev = entry(lines, 24).sequencedAt;
    expect(kinds(await verify(withSequencedAt(g, lines, 25, formatTime(timeMs(prev) - 1)), predates))).toEqual(['time_regression@25']);
  });
});
