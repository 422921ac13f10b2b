// bench/floor-server.test.ts: the ingest floor answers the bench's requests as the sequencer
// does (a batch: 200 with one result per event, 201 new and 200 already stored, each with its
// seq; one event: 201), over real HTTP into a real LevelDB in a temp directory, and keeps what it
// acknowledged across a restart; floorSummary's arithmetic on known figures.
import { afterEach, describe, expect, it } from 'vitest';
import { rm } from 'node:fs/promises';
import { startFloorServer } from './floor-server.ts';
import { floorSingleSummary, floorSummary, type Phase } from './ingest-floor.ts';
import { makeTempDir } from '../testkit/tmp.ts';
import { freePort } from '../testkit/net.ts';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function post(port: number, body: string): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`http://127.0.0.1:${port}/v1/logs/x/events`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  });
  return { status: r.status, json: r.status === 400 ? undefined : await r.json() };
}

describe('bench floor server', () => {
  it('sequences batches and single events, answers a repeat with its seq, refuses bad JSON', async () => {
    const dir = await makeTempDir('cookwala-floor-test-');
    dirs.push(dir);
    const port = await freePort();
    let s = await startFloorServer(dir, port);
    const a = { source: 'dev-a', id: '1', data: { x: 1 } };
    const b = { source: 'dev-a', id: '2', data: { x: 2 } };
    expect(await post(port, JSON.stringify([a, b]))).toEqual({
      status: 200,
      json: {
        results: [
          { status: 201, seq: 1 },
          { status: 201, seq: 2 },
        ],
      },
    });
    expect(await post(port, JSON.stringify({ source: 'dev-b', id: '1' }))).toEqual({ status: 201, json: { seq: 3 } });
    expect((await post(port, '[{"source":')).status).toBe(400);
    await s.close();
    s = await startFloorServer(dir, port);
    try {
      const again = await post(port, JSON.stringify([b, { source: 'dev-c', id: '9' }]));
      // seq 2 is stored (a restart lost nothing) and the new event carries on after seq 3
      expect(again).toEqual({
        status: 200,
        json: {
          results: [
            { status: 200, seq: 2 },
            { status: 201, seq: 4 },
          ],
        },
      });
    } finally {
      await s.close();
    }
  });

  it('floorSummary: the signature share, the budget 0.85 of the floor leaves and the floor ratio bound', () => {
    const phase = (events: number, serverCpu: number, clientCpu: number): Phase => ({
      events,
      secs: 1,
      perSec: events,
      clientCpu,
      sequencerCpu: serverCpu,
      latencies: [],
    });
    // 2 cores, limit 20,000/s: a signature costs 100 µs of CPU.
    const floors = [phase(10_000, 0.3, 0.01), phase(10_000, 0.2, 0.01), phase(10_000, 0.25, 0.01)];
    const r = floorSummary(floors, phase(10_000, 1.5, 0.01), 20_000, 2);
    expect(r.signatureCpuUsPerEvent).toBe(100);
    expect(r.sequencerCpuUsPerEvent).toBe(150);
    expect(r.sequencerBesidesSignatureUsPerEvent).toBe(50);
    expect(r.cpuUsPerEvent).toBe(25); // the median floor phase
    expect(r.cpuUsPerEventSpread).toEqual([20, 30]);
    expect(r.budgetUsPerEvent).toBe(47.2); // 100 / (0.85 x 0.794) - 100 - 1 (client)
    expect(r.ratioBound).toBe(0.794); // 100 / (100 + 25 + 1)
  });

  it('floorSingleSummary: the budget 6,000 posts/s leaves and the floor bound for single posts', () => {
    const phase = (posts: number, serverCpu: number, clientCpu: number, latencies: number[] = [1, 2, 3]): Phase => ({
      events: posts,
      secs: 1,
      perSec: posts,
      clientCpu,
      sequencerCpu: serverCpu,
      latencies,
    });
    // 2 cores, limit 20,000/s: a signature costs 100 µs; the floor posts cost 50-70 µs, 20 µs of client.
    const floors = [phase(1_000, 0.07, 0.02), phase(1_000, 0.05, 0.02, [2, 3, 9]), phase(1_000, 0.06, 0.02, [1, 4, 5])];
    const r = floorSingleSummary(floors, phase(1_000, 0.3, 0.025), 20_000, 2);
    expect(r.cpuUsPerPost).toBe(60); // the median floor phase
    expect(r.cpuUsPerPostSpread).toEqual([50, 70]);
    expect(r.p50Ms).toBe(4); // of that median phase
    expect(r.clientCpuUsPerPost).toBe(20);
    expect(r.sequencerCpuUsPerPost).toBe(300);
    expect(r.sequencerBesidesSignatureUsPerPost).toBe(200);
    expect(r.budgetUsPerPost).toBe(208.3); // 2e6 / 6,000 - 100 - 25 (the sequencer's clients)
    expect(r.boundPostsPerSec).toBe(11_111); // 2e6 / (100 + 60 + 20)
  });
});
