// The auditor's policy pins time (docs/design.md §4), through `cookwala verify --json` as a child
// process on real files: a bundle whose descriptor was re-signed without timeBounds is INVALID
// (time_bounds_missing, exit 1) unless the policy says the log predates them ("timeBounds":
// {"required": false}, exit 0 with the checks reported skipped); declared bounds above the
// policy's caps are time_bounds_too_wide; an entry sequenced before the descriptor's createdAt is
// sequenced_before_creation. Every forgery is re-signed, re-chained and re-sealed with the real
// keys, so only the time rules can catch it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateLog } from '../testkit/log-generator.ts';
import { cookwala, edit, rechain, reseal } from '../testkit/audit.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { DEFAULT_TIME_BOUNDS } from '../verifier/documents/time-bounds.ts';
import { formatTime, timeMs } from '../verifier/encoding/wire.ts';
import type { BundleReport } from '../verifier/bundle/report.ts';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('cookwala-time-policy-');
});
afterAll(async () => removeDir(dir));

const gen = (timeBounds?: Parameters<typeof generateLog>[0]['timeBounds']) =>
  generateLog({ events: 12, checkpointEvery: 4, devices: 2, keysFromMs: -86_400_000, ...(timeBounds !== undefined ? { timeBounds } : {}) });
const linesOf = (g: ReturnType<typeof generateLog>) => [...g.lines()].join('').split('\n').slice(0, -1);

async function verify(name: string, lines: string[], policy: unknown): Promise<{ code: number | null; kinds: string[] }> {
  await writeFile(join(dir, `${name}.ndjson`), lines.join('\n') + '\n');
  await writeFile(join(dir, `${name}.policy.json`), JSON.stringify(policy));
  const r = await cookwala(['verify', join(dir, `${name}.ndjson`), '--policy', join(dir, `${name}.policy.json`), '--json']);
  const report = JSON.parse(r.stdout) as BundleReport;
  return { code: r.code, kinds: report.failures.map((f) => f.kind) };
}

describe("cookwala verify: the auditor's policy pins time", () => {
  it('no timeBounds: refused by default, accepted when the policy says the log predates them', async () => {
    const g = gen(null);
    const lines = linesOf(g);
    expect(await verify('missing', lines, g.policy)).toEqual({ code: 1, kinds: ['time_bounds_missing'] });
    expect(await verify('predates', lines, { ...g.policy, timeBounds: { required: false } })).toEqual({ code: 0, kinds: [] });
  }, 120_000);

  it("bounds above the policy's caps are time_bounds_too_wide; at the caps the bundle verifies", async () => {
    const g = gen({ maxClockSkewMs: DEFAULT_TIME_BOUNDS.maxClockSkewMs, maxDeliveryDelayMs: 366 * 86_400_000 });
    const lines = linesOf(g);
    const caps = { ...g.policy, timeBounds: { maxClockSkewMs: DEFAULT_TIME_BOUNDS.maxClockSkewMs, maxDeliveryDelayMs: 7 * 86_400_000 } };
    expect(await verify('wide', lines, caps)).toEqual({ code: 1, kinds: ['time_bounds_too_wide'] });
    const atCap = { ...g.policy, timeBounds: { required: true, maxDeliveryDelayMs: 366 * 86_400_000 } };
    expect(await verify('at-cap', lines, atCap)).toEqual({ code: 0, kinds: [] });
  }, 120_000);

  it("an entry sequenced before the descriptor's createdAt is sequenced_before_creation", async () => {
    const g = gen();
    const lines = linesOf(g);
    const created = timeMs(JSON.parse(lines[1]).createdAt as string);
    const i = lines.findIndex((l) => JSON.parse(l).kind === 'Event' && JSON.parse(l).seq === 1);
    const forged = reseal(
      rechain(
        edit(lines, i, (d) => (d.sequencedAt = formatTime(created - 1000))),
        i,
      ),
      g.sequencer,
      g.witnessSigners,
    );
    const r = await verify('before', forged, g.policy);
    expect(r.code).toBe(1);
    expect(r.kinds).toContain('sequenced_before_creation');
  }, 120_000);
});
