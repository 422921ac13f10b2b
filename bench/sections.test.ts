// Smoke test of the bench sections (the measured runs are `npm run bench`): each quick run
// completes against the real parts (LevelDB, HTTP, libp2p, hypercore) and reports the keys that
// bench/run.ts tabulates, as positive numbers. No figure is compared with a target here: speed is
// measured, never asserted. The verify section is left to `npm run bench -- --quick` (its quick run
// generates 10^5 events); its generator and reader are tested in verifier/bundle/verifier.test.ts.
import { describe, expect, it } from 'vitest';

const positive = (r: Record<string, unknown>, keys: string[]) => {
  for (const k of keys) expect(r[k], k).toBeGreaterThan(0);
};

describe('bench sections (quick smoke)', () => {
  it('append and proof', async () => {
    const m = await import('./append.ts');
    positive(await m.run({ quick: true }), ['logstoreBlocksPerSec', 'hypercoreBlocksPerSec', 'ratioToHypercore']);
    positive(await m.runProof({ quick: true }), ['inclusionMs', 'bytes']);
  }, 120_000);

  it('ingest', async () => {
    positive(await (await import('./ingest.ts')).run({ quick: true }), ['eventsPerSec', 'verifyPerSecAllCores', 'ratioToVerifyLimit']);
  }, 120_000);

  it('checkpoint and witness', async () => {
    positive(await (await import('./checkpoint.ts')).run({ quick: true }), ['p50Ms', 'p99Ms']);
    positive(await (await import('./witness.ts')).run({ quick: true }), ['addCheckpointPerSec']);
  }, 120_000);

  it('c2sp: the witness over tlog-witness HTTP, every request cosigned', async () => {
    const r = await (await import('./c2sp.ts')).run({ quick: true });
    positive(r, ['witnessAddCheckpointPerSec', 'witnessRequests', 'checkpointP50Ms', 'checkpointP99Ms']);
    expect(r.witnessFailures).toBe(0);
  }, 120_000);
});
