// Smoke test of the bench sections (the measured runs are `npm run bench`): each quick run
// completes against the real parts (LevelDB, HTTP, libp2p, hypercore, a verify child process) and
// reports the keys that bench/run.ts tabulates: the figures as positive numbers, the pair summaries
// of docs/design.md §13 (median ratio, spreads, limitsAgree) with their types. No figure is compared with a
// target here: speed is measured, never asserted. The verify section runs on small bundles
// (2,000 and 5,000 events) without its hostile inputs (bench/verify-hostile.ts, 256 MB lines).
import { describe, expect, it } from 'vitest';
import { keptServedApart, limitsDisagree } from './run.ts';

const positive = (r: Record<string, unknown>, keys: string[]) => {
  for (const k of keys) expect(r[k], k).toBeGreaterThan(0);
};
/** The summary of interleaved pairs (bench/pairs.ts) as a section reports it. */
const pairSummary = (r: Record<string, unknown>, at: string) => {
  expect(r.ratioToVerifyLimit ?? r.ratioToHypercore ?? r.ratioToFloor, `${at}: ratio`).toBeGreaterThan(0);
  const spread = r.ratioSpread as [number, number];
  expect(spread, `${at}: ratioSpread`).toHaveLength(2);
  expect(spread[0], `${at}: ratioSpread`).toBeGreaterThan(0);
  expect(spread[0]).toBeLessThanOrEqual(spread[1]);
  expect(r.limitSpread, `${at}: limitSpread`).toBeGreaterThanOrEqual(1);
  expect(typeof r.limitsAgree, `${at}: limitsAgree`).toBe('boolean');
};

describe('bench sections (quick smoke)', () => {
  it('mldsa (ML-DSA-44 per backend; the witness with both keys, in pairs)', async () => {
    const m = await import('./mldsa.ts');
    const r = await m.run({ quick: true });
    positive(r, ['witnessBothKeysPerSec', 'witnessCryptoLimitPerSec', 'ratioToCryptoLimit']);
    const backends = r.backends as Record<string, Record<string, unknown>>;
    positive(backends.noble, ['signPerSec', 'verifyPerSec']);
    // node:crypto: in this Node, or on a Node 24 child when one is installed; else said to be absent.
    if (r.backend === 'node' || backends.node !== ('absent' as unknown)) positive(backends.node, ['signPerSec', 'verifyPerSec']);
    else expect(r.nobleToNodeSign).toBeUndefined();
    expect(typeof r.limitsAgree).toBe('boolean');
  }, 120_000);

  it('append (both synced, both unsynced, CPU per block, in pairs) and proof', async () => {
    const m = await import('./append.ts');
    const r = await m.run({ quick: true });
    positive(r, [
      'logstoreBlocksPerSec',
      'hypercoreBlocksPerSec',
      'ratioToHypercore',
      'syncedRatioToHypercore',
      'unsyncedRatioToHypercore',
      'cpuPerBlockRatioToHypercore',
      'logstoreCpuUsPerBlock',
      'hypercoreCpuUsPerBlock',
      'pairs',
    ]);
    pairSummary(r, 'append');
    for (const mode of ['synced', 'unsynced'] as const) {
      const x = r[mode] as Record<string, unknown>;
      pairSummary(x, mode);
      positive(x, ['logstoreBlocksPerSec', 'hypercoreBlocksPerSec', 'logstoreCpuUsPerBlock', 'hypercoreCpuUsPerBlock']);
      expect(x.pairs as unknown[]).toHaveLength(r.pairs as number);
    }
    // the LevelDB floor (bench/append-floor.ts), paired with the synced runs of ours
    positive(r, ['ratioToFloor', 'cpuPerBlockRatioToFloor']);
    const fl = r.floor as Record<string, unknown>;
    pairSummary(fl, 'floor');
    positive(fl, ['floorBlocksPerSec', 'floorCpuUsPerBlock', 'floorCpuPerBlockRatioToHypercore']);
    expect(fl.pairs as unknown[]).toHaveLength(r.pairs as number);
    expect((fl.perAppend as { keys: number }).keys).toBeGreaterThan(300);
    // the steady-state pairs (synced), with the main thread's share of each store's CPU
    const st = r.steadyState as Record<string, unknown>;
    pairSummary(st, 'steadyState');
    positive(st, ['blocksPerRun', 'logstoreBlocksPerSec', 'hypercoreBlocksPerSec', 'cpuPerBlockRatioToHypercore']);
    expect(st.blocksPerRun as number).toBeGreaterThan(r.blocksPerRun as number);
    expect(st.pairs as unknown[]).toHaveLength(3);
    if (process.platform === 'linux')
      for (const k of ['logstoreMainThreadCpuUsPerBlock', 'hypercoreMainThreadCpuUsPerBlock']) {
        expect(st[k] as number, k).toBeGreaterThan(0);
        expect(st[k] as number, k).toBeLessThanOrEqual(
          (k.startsWith('logstore') ? st.logstoreCpuUsPerBlock : st.hypercoreCpuUsPerBlock) as number,
        );
      }
    // hypercore's synced runs fdatasync'd its WAL once per awaited append (50 batches a run)
    const hs = r.hypercoreSync as { walSyncs: number; walFiles: number };
    expect(hs.walSyncs).toBe((r.pairs as number) * ((r.blocksPerRun as number) / 100));
    expect(hs.walFiles).toBeGreaterThanOrEqual(r.pairs as number);
    positive(await (await import('./proof.ts')).runProof({ quick: true }), ['inclusionMs', 'bytes']);
  }, 180_000);

  it('ingest: batch and single posts in pairs with the limit, single-post latency', async () => {
    const r = await (await import('./ingest.ts')).run({ quick: true });
    positive(r, [
      'eventsPerSec',
      'verifyPerSecAllCores',
      'ratioToVerifyLimit',
      'singleEventsPerSec',
      'singleP50Ms',
      'singleP99Ms',
      'pairs',
    ]);
    expect(r.pairs).toBeGreaterThanOrEqual(3);
    pairSummary(r, 'ingest');
    for (const mode of ['batch', 'single'] as const) {
      const x = r[mode] as Record<string, unknown>;
      pairSummary(x, mode);
      expect(x.pairs as unknown[]).toHaveLength(r.pairs as number);
      expect(x.p50Ms as number).toBeLessThanOrEqual(x.p99Ms as number);
    }
    // Single posts at each concurrency, the reported one among them.
    const by = r.singleByClients as Record<string, Record<string, unknown>>;
    expect(Object.keys(by)).toEqual(['64', '128', '256']);
    for (const x of Object.values(by)) {
      positive(x, ['eventsPerSec', 'ratioToVerifyLimit', 'p50Ms', 'p99Ms', 'sequencerCpuUsPerPost']);
      expect(x.p50Ms as number).toBeLessThanOrEqual(x.p99Ms as number);
    }
    expect((r.single as { clients: number }).clients).toBe(r.singleClients);
    expect(by[String(r.singleClients)].eventsPerSec).toBe(r.singleEventsPerSec);
    // The floor (bench/floor-server.ts) took the same batches, every one acknowledged.
    const f = r.floor as Record<string, unknown>;
    positive(f, ['eventsPerSec', 'cpuUsPerEvent', 'sequencerCpuUsPerEvent', 'signatureCpuUsPerEvent', 'ratioBound']);
    expect(f.ratioBound as number).toBeLessThan(1);
    // …and the same single posts, every one acknowledged (a 201 each).
    positive(f.single as Record<string, unknown>, ['postsPerSec', 'cpuUsPerPost', 'sequencerCpuUsPerPost', 'boundPostsPerSec']);
    positive(r, ['ratioToFloor']);
    // The open-loop rows (bench/ingest-latency.ts), every request acknowledged.
    const lat = r.latency as Record<string, Record<string, number>>;
    expect(Object.keys(lat)).toEqual(['single50', 'single80', 'batch50', 'batch80']);
    for (const x of Object.values(lat)) {
      positive(x, ['ratePerSec', 'requests', 'p50Ms', 'p99Ms', 'p999Ms']);
      expect(x.p50Ms).toBeLessThanOrEqual(x.p99Ms);
      expect(x.p99Ms).toBeLessThanOrEqual(x.p999Ms);
    }
    expect(lat.single80.ratePerSec).toBeGreaterThan(lat.single50.ratePerSec);
  }, 180_000);

  it('verify: pairs of (limit, verify child), peak RSS of the child, the floor', async () => {
    const r = await (await import('./verify.ts')).run({ quick: true, sizes: [2_000, 5_000], hostile: false });
    positive(r, ['eventsPerSec', 'verifyPerSecAllCores', 'ratioToVerifyLimit', 'peakRssMB', 'medianPairPeakRssMB', 'rssGrowth', 'pairs']);
    expect(r.pairs).toBe(3);
    pairSummary(r, 'verify');
    expect(r.peakRssMB as number).toBeGreaterThanOrEqual(r.medianPairPeakRssMB as number);
    // the floor over the same bundle (verify-floor-child.ts), in pairs of its own
    positive(r.floor as Record<string, unknown>, [
      'eventsPerSec',
      'ratioBound',
      'cpuUsPerEvent',
      'oursCpuUsPerEvent',
      'signatureCpuUsPerEvent',
      'budgetUsPerEvent',
    ]);
  }, 180_000);

  it('checkpoint (reports the interval it used) and witness', async () => {
    positive(await (await import('./checkpoint.ts')).run({ quick: true }), ['p50Ms', 'p99Ms', 'intervalMs']);
    const w = await (await import('./witness.ts')).run({ quick: true });
    positive(w, ['addCheckpointPerSec', 'cryptoLimitPerSec']);
    // Checkpoints with the log's note signature: every one cosigned, against a limit of two verifies.
    const n = w.withLogNote as Record<string, unknown>;
    positive(n, ['addCheckpointPerSec', 'cryptoLimitPerSec']);
    expect(n.failures).toBe(0);
    expect(n.cryptoLimit).toMatch(/^one core: 2 Ed25519 verify/);
    expect(w.cryptoLimit).toMatch(/^one core: 1 Ed25519 verify/);
  }, 120_000);

  it('c2sp: the witness over tlog-witness HTTP, every request cosigned', async () => {
    const r = await (await import('./c2sp.ts')).run({ quick: true });
    positive(r, ['witnessAddCheckpointPerSec', 'witnessRequests', 'checkpointP50Ms', 'checkpointP99Ms']);
    expect(r.witnessFailures).toBe(0);
  }, 120_000);

  it('the table names every section whose limits disagreed by more than 20%, and only those', () => {
    const lines = limitsDisagree({
      ingest: { limitsAgree: true, batch: { limitsAgree: false, limitSpread: 1.4 }, single: { limitsAgree: true } },
      verify: { limitsAgree: true, limitSpread: 1.1 },
      append: { limitsAgree: false, limitSpread: 1.3, pairs: [{ limitsAgree: false }] },
    });
    expect(lines).toEqual(['ingest: ingest.batch (limitSpread 1.4)', 'append: append (limitSpread 1.3)']);
  });

  it('a monitor run without its pairs served apart keeps the ones before, dated; a run with them replaces them', () => {
    const before = { measuredAt: 'T0', servedApart: { ratioToVerify: 0.95 } };
    expect(keptServedApart(before, { ratioToVerify: 0.9 })).toEqual({
      servedApart: { ratioToVerify: 0.95, measuredAt: 'T0' },
      ratioToVerifyServedApart: 0.95,
    });
    expect(keptServedApart(before, { servedApart: { ratioToVerify: 0.97 } })).toEqual({});
    expect(keptServedApart(undefined, { ratioToVerify: 0.9 })).toEqual({});
  });
});
