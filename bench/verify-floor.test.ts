// bench/verify-floor.test.ts: the verify floor (verify-floor-child.ts) really checks every entry
// signature of a generated bundle (real Ed25519 signatures, erasures, checkpoints): a child process
// run over a clean bundle finds them all good (the events' and the sequencer's erasure entries'),
// and a bundle with one event's signature altered counts one fewer, so the floor's time can never
// be that of a reader that checked nothing; verifyFloorSummary's arithmetic on known figures.
import { afterEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateLog } from '../testkit/log-generator.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { runJsonChild } from './json-child.ts';
import { verifyFloor, type FloorResult } from './verify-floor-child.ts';
import { verifyFloorSummary } from './verify.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await removeDir(d);
});

const EVENTS = 2_500;

async function bundle(tamper?: (lines: string[]) => void): Promise<string> {
  const dir = await makeTempDir('cookwala-verify-floor-');
  dirs.push(dir);
  const g = generateLog({ events: EVENTS, checkpointEvery: 1000, eraseEvery: 1000, devices: 4, subjectsPerDevice: 2 });
  const lines = [...g.lines()].join('').split('\n');
  tamper?.(lines);
  const file = join(dir, 'bundle.ndjson');
  await writeFile(file, lines.join('\n'));
  return file;
}

describe('verify floor', () => {
  it('checks every event signature of a clean bundle, in a child process', async () => {
    const file = await bundle();
    const r = await runJsonChild<FloorResult>(join(HERE, 'verify-floor-child.ts'), [file], 'verify floor');
    // Every event, and the sequencer's erasure entries (one per 1,000 events): all signed.
    expect(r.entries).toBe(EVENTS + 2);
    expect(r.good).toBe(r.entries);
    expect(r.cpuMs).toBeGreaterThan(0);
    expect(r.peakRssMB).toBeGreaterThan(0);
  });

  it('counts an altered signature as not good', async () => {
    const file = await bundle((lines) => {
      const i = lines.findIndex((l) => l.startsWith('{"kind":"Event"') && l.includes('"seq":1234,'));
      expect(i).toBeGreaterThan(0);
      const e = JSON.parse(lines[i]) as { eventSignature: { sig: string } };
      const sig = e.eventSignature.sig;
      // Another signature's bytes: well formed, wrong for this entry.
      e.eventSignature.sig = sig.slice(0, 10) + (sig[10] === 'A' ? 'B' : 'A') + sig.slice(11);
      lines[i] = JSON.stringify(e);
    });
    expect(await verifyFloor(file)).toEqual({ entries: EVENTS + 2, good: EVENTS + 1 });
  });

  it('summarises ours against the floor', () => {
    const s = verifyFloorSummary({
      events: 1_000_000,
      cores: 2,
      ours: { ratio: 0.706, limit: 22_000, cpuMs: 116_000 },
      floor: {
        ratio: 0.85,
        limit: 20_000,
        eventsPerSec: 17_000,
        cpuMs: 104_000,
        ratioSpread: [0.84, 0.86],
        limitsAgree: true,
        peakRssMB: 90,
      },
    });
    expect(s).toMatchObject({
      eventsPerSec: 17_000,
      ratioBound: 0.85,
      signatureCpuUsPerEvent: 100, // 2 cores at 20,000/s
      cpuUsPerEvent: 104,
      besidesSignatureUsPerEvent: 4,
      oursCpuUsPerEvent: 116,
      oursBesidesSignatureUsPerEvent: 25.1, // 116 - 2e6 / 22,000
      budgetUsPerEvent: 11.1, // 100 x (1/0.9 - 1)
      oursShareOfBound: 0.831,
    });
  });
});
