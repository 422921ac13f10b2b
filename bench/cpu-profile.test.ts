// bench/cpu-profile.ts: a profile's busy time by layer and by file, on a hand-built profile, and on
// a real one taken of this process.

import { describe, expect, it } from 'vitest';
import { Session } from 'node:inspector/promises';
import { createHash } from 'node:crypto';
import { fromFirstSample, layerOfUrl, timeBy, topSelf, within, NODE_UTILITY_LAYER, type CpuProfile } from './cpu-profile.ts';

const ROOT = 'file:///home/op/cookwala-log';

/** A profile from a list of stacks (outermost first, each frame `name@url`) and each stack's microseconds. */
function profileOf(stacks: Array<[string[], number]>): CpuProfile {
  const nodes: CpuProfile['nodes'] = [{ id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [] }];
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  for (const [frames, us] of stacks) {
    let at = nodes[0];
    for (const f of frames) {
      const [functionName, url = ''] = f.split('@');
      let next = (at.children ?? [])
        .map((id) => nodes[id - 1])
        .find((n) => n.callFrame.functionName === functionName && n.callFrame.url === url);
      if (!next) {
        next = { id: nodes.length + 1, callFrame: { functionName, url, lineNumber: 9 }, children: [] };
        nodes.push(next);
        at.children!.push(next.id);
      }
      at = next;
    }
    samples.push(at.id);
    timeDeltas.push(us);
  }
  return { nodes, samples, timeDeltas };
}

describe('layerOfUrl', () => {
  it('names our folders, packages by name (fastify and level grouped), node by job', () => {
    expect(layerOfUrl(`${ROOT}/sequencer/ingest.ts`)).toBe('sequencer/');
    expect(layerOfUrl(`${ROOT}/verifier/cloudevent/read.ts`)).toBe('verifier/');
    expect(layerOfUrl(`${ROOT}/node_modules/find-my-way/index.js`)).toBe('fastify');
    expect(layerOfUrl(`${ROOT}/node_modules/@fastify/swagger/index.js`)).toBe('fastify');
    expect(layerOfUrl(`${ROOT}/node_modules/classic-level/index.js`)).toBe('level');
    expect(layerOfUrl(`${ROOT}/node_modules/@noble/ed25519/index.js`)).toBe('@noble/ed25519');
    // a package's own "web/" folder is the package's, not ours
    expect(layerOfUrl(`${ROOT}/node_modules/ajv/dist/web/x.js`)).toBe('ajv');
    expect(layerOfUrl('node:_http_server')).toBe('node http');
    expect(layerOfUrl('node:internal/stream_base_commons')).toBe('node sockets and streams');
    expect(layerOfUrl('node:internal/crypto/hash')).toBe('node:crypto');
    expect(layerOfUrl('node:internal/modules/esm/loader')).toBe('module loading (start-up)');
    expect(layerOfUrl('node:zlib')).toBe('node other');
    expect(layerOfUrl('/srv/elsewhere/x.js')).toBe('other scripts');
    // says nothing: native frames and node's utilities
    expect(layerOfUrl('')).toBeUndefined();
    expect(layerOfUrl('node:buffer')).toBeUndefined();
    expect(layerOfUrl('node:internal/process/task_queues')).toBeUndefined();
  });
});

describe('timeBy', () => {
  const p = profileOf([
    [['(idle)'], 5000],
    [['(garbage collector)'], 1000],
    // a native call under node's socket code, under fastify: the socket code's
    [[`send@${ROOT}/node_modules/fastify/lib/reply.js`, 'writevGeneric@node:internal/stream_base_commons', 'writev'], 3000],
    // a Buffer write from our code: ours (node's utilities are transparent)
    [[`send@${ROOT}/platform/sig-pool.ts`, 'write@node:buffer', 'utf8Write'], 2000],
    [[`prepare@${ROOT}/sequencer/ingest.ts`, `readCloudEvent@${ROOT}/verifier/cloudevent/read.ts`], 2500],
    [[`prepare@${ROOT}/sequencer/ingest.ts`], 1500],
    // nothing but node's utilities on the stack
    [['processTicksAndRejections@node:internal/process/task_queues', 'runMicrotasks'], 500],
    [['(program)'], 500],
  ]);

  it('sums busy time by the innermost frame with a layer, idle apart, with µs per unit', () => {
    const s = timeBy(p, 'layer', 10);
    expect(s.idleMs).toBe(5);
    expect(s.busyMs).toBe(11);
    expect(Object.fromEntries(s.rows.map((r) => [r.name, r.ms]))).toEqual({
      'node sockets and streams': 3,
      'verifier/': 2.5,
      'platform/': 2,
      'sequencer/': 1.5,
      'V8 garbage collector': 1,
      [NODE_UTILITY_LAYER]: 0.5,
      'V8 (program: native, no JS frame)': 0.5,
    });
    expect(s.rows[0]).toEqual({ name: 'node sockets and streams', ms: 3, share: 0.273, usPer: 300 });
  });

  it('by file: our files from their folder, packages from their name', () => {
    const s = timeBy(p, 'file');
    const names = s.rows.map((r) => r.name);
    expect(names).toContain('verifier/cloudevent/read.ts');
    expect(names).toContain('sequencer/ingest.ts');
    expect(names).toContain('platform/sig-pool.ts');
    expect(names).toContain('node:internal/stream_base_commons');
  });

  it('topSelf: leaf functions by self time, idle left out', () => {
    const t = topSelf(p, 3);
    expect(t.map((r) => r.name)).toEqual(['writev', 'readCloudEvent verifier/cloudevent/read.ts', 'utf8Write']);
    expect(t[0].share).toBe(0.273);
  });

  it('within: only the samples inside the windows, by the profile clock', () => {
    // a sample is taken at startTime plus the deltas so far: idle at 6000, GC at 7000, writev at 10000, …
    const q = within({ ...p, startTime: 1000 }, [{ target: 'sequencer', mode: 'single', events: 1, startUs: 9500, endUs: 10500 }]);
    const s = timeBy(q);
    expect(s.idleMs).toBe(0);
    expect(s.rows.map((r) => [r.name, r.ms])).toEqual([['node sockets and streams', 3]]);
  });

  it('fromFirstSample: the time before the first sample counts to no layer, and every sample keeps its time', () => {
    // the first sample's 150 ms are the profiler starting (a profile started in-process)
    const raw = profileOf([
      [['dispatch@'], 150_000],
      [['(garbage collector)'], 1000],
      [['parse@file:///home/op/cookwala-log/verifier/note/signed.ts'], 2000],
    ]);
    const q = fromFirstSample({ ...raw, startTime: 1000 });
    expect(q.leadUs).toBe(150_000);
    expect(timeBy(raw).busyMs).toBe(153);
    const s = timeBy(q);
    expect(s.busyMs).toBe(3);
    expect(s.rows.map((r) => r.name)).toEqual(['verifier/', 'V8 garbage collector']);
    expect(topSelf(q, 5).map((r) => r.name)).not.toContain('dispatch');
    // the samples stay where they were on the clock: GC at 152000, the parse at 154000
    const w = [{ target: 'sequencer', mode: 'batch', events: 1, startUs: 151_500, endUs: 152_500 }];
    expect(timeBy(within(q, w)).rows.map((r) => [r.name, r.ms])).toEqual([['V8 garbage collector', 1]]);
    expect(fromFirstSample(q)).toMatchObject({ leadUs: 0, startTime: q.startTime, timeDeltas: q.timeDeltas });
  });

  it('reads a real profile of this process: hashing shows as node:crypto', async () => {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    let h = Buffer.alloc(32);
    const end = performance.now() + 300;
    while (performance.now() < end) for (let i = 0; i < 1000; i++) h = createHash('sha256').update(h).digest();
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    const s = timeBy(fromFirstSample(profile as unknown as CpuProfile));
    expect(s.busyMs).toBeGreaterThan(100);
    expect(s.rows.find((r) => r.name === 'node:crypto')?.share ?? 0).toBeGreaterThan(0.2);
  });
});
