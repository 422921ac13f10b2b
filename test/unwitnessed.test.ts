// A log nobody witnesses is said to be so wherever it is shown. A real
// sequencer (LevelDB in a temp dir, built by `init`, whose policy has quorum 0), read through its
// HTTP API (fastify inject): /metrics has cookwala_witness_quorum 0, the explorer's …/witnesses
// has "witnessed": false, and its exported bundle, verified against its policy by the offline
// verifier, is VALID with "UNWITNESSED" on the verdict line and in the skipped checks.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logPath, startSequencer, type TestSequencer } from '../testkit/sequencer.ts';
import { createBundleVerifier, UNWITNESSED_REASON } from '../verifier/bundle/verifier.ts';
import { formatReport } from '../verifier/bundle/report.ts';
import { readWitnessPolicy } from '../verifier/documents/policy.ts';

let t: TestSequencer;
beforeAll(async () => {
  t = await startSequencer();
  await t.seq.tick(); // the checkpoint of seq 0, published as signed (quorum 0)
});
afterAll(() => t.close());

describe('an unwitnessed log says so', () => {
  it('on /metrics and in the explorer API', async () => {
    const m = await t.get('/metrics');
    expect(m.body).toMatch(new RegExp(`^cookwala_witness_quorum\\{log="${t.log.replace(/\./g, '\\.')}"\\} 0$`, 'm'));
    const w = await t.get(logPath(t.log, '/witnesses'));
    expect(w.statusCode).toBe(200);
    expect(w.json()).toMatchObject({ log: t.log, quorum: 0, witnessed: false, witnesses: [] });
  });

  it('in the offline verdict on its bundle', async () => {
    const b = await t.get(logPath(t.log, '/bundle'));
    expect(b.statusCode).toBe(200);
    const p = readWitnessPolicy(JSON.parse(await readFile(join(t.dir, 'policy.json'), 'utf8')));
    expect(p.ok && p.value.quorum).toBe(0);
    if (!p.ok) return;
    const v = createBundleVerifier({ policy: p.value });
    for (const line of b.body.split('\n').filter(Boolean)) await v.line(line);
    const report = await v.end();
    expect(report.failures).toEqual([]);
    expect(report.valid).toBe(true);
    expect(report.skipped).toContainEqual({ check: 'witnessing', reason: UNWITNESSED_REASON });
    expect(formatReport(report).split('\n')[0]).toBe(
      `VALID: ${t.log} (hash_only) (UNWITNESSED: the policy has quorum 0, no witness checked anything)`,
    );
  });
});
