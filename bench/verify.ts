// bench/verify.ts: the `verify` section of bench/results.json (DESIGN §13): the offline
// verifier over generated bundles (testkit/log-generator.ts: real signatures, erasures, checkpoints
// cosigned by 3 witnesses) of 10^5 and 10^6 events (quick: 10^4 and 10^5), each verified in a
// child process (bench/verify-child.ts, the code path of `cookwala verify`) that reports its wall
// time and peak RSS. eventsPerSec is that of the largest bundle; the limit it is compared with is
// node:crypto Ed25519 verify/s on all cores, measured in the same run (or by the crypto section).
// Targets: ratio >= 0.7, peak RSS <= 256 MB and flat as the bundle grows.

import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { rm, writeFile, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateLog } from '../testkit/log-generator.ts';
import { verifyPerSecAllCores } from './crypto.ts';
import { runHostile } from './verify-hostile.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

interface ChildResult {
  ms: number;
  entries: number;
  exitCode: number;
  failures: number;
  peakRssMB: number;
}

async function writeBundle(dir: string, events: number): Promise<{ file: string; policy: string; genMs: number; bytes: number }> {
  const t0 = performance.now();
  const g = generateLog({
    events,
    checkpointEvery: Math.max(1000, Math.floor(events / 100)),
    eraseEvery: 1000,
    devices: 16,
    subjectsPerDevice: 8,
  });
  const file = join(dir, `bundle-${events}.ndjson`);
  const policy = join(dir, `policy-${events}.json`);
  const ws = createWriteStream(file);
  let buf = '';
  for (const line of g.lines()) {
    buf += line;
    if (buf.length > 1 << 20) {
      if (!ws.write(buf)) await once(ws, 'drain');
      buf = '';
    }
  }
  ws.write(buf);
  await new Promise<void>((r) => ws.end(r));
  await writeFile(policy, JSON.stringify(g.policy));
  return { file, policy, genMs: Math.round(performance.now() - t0), bytes: (await stat(file)).size };
}

function verifyInChild(file: string, policy: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'verify-child.ts'), file, policy], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() as string));
      } catch {
        reject(new Error(`verify child exited ${code}: ${out.slice(0, 300)}`));
      }
    });
  });
}

export async function run(ctx: { quick: boolean; limits?: { ed25519VerifyPerSecAllCores?: number } }): Promise<Record<string, unknown>> {
  const sizes = ctx.quick ? [10_000, 100_000] : [100_000, 1_000_000];
  const dir = await makeTempDir('cookwala-bench-verify-');
  try {
    const runs: Array<ChildResult & { events: number; genMs: number; bytes: number }> = [];
    for (const events of sizes) {
      const b = await writeBundle(dir, events);
      const r = await verifyInChild(b.file, b.policy);
      if (r.exitCode !== 0) throw new Error(`the generated bundle of ${events} events did not verify (${r.failures} failures)`);
      runs.push({ ...r, events, genMs: b.genMs, bytes: b.bytes });
      await rm(b.file, { force: true });
    }
    const limit = ctx.limits?.ed25519VerifyPerSecAllCores ?? (await verifyPerSecAllCores(ctx.quick ? 500 : 2000));
    const big = runs[runs.length - 1];
    const small = runs[0];
    const eventsPerSec = Math.round((big.events * 1000) / big.ms);
    return {
      eventsPerSec,
      verifyPerSecAllCores: limit,
      ratioToVerifyLimit: Math.round((eventsPerSec / limit) * 100) / 100,
      peakRssMB: big.peakRssMB,
      [`peakRssMBAt${small.events === 100_000 ? '1e5' : '1e4'}`]: small.peakRssMB,
      peakRssMBAt1e5: runs.find((r) => r.events === 100_000)?.peakRssMB,
      rssGrowth: Math.round((big.peakRssMB / small.peakRssMB) * 100) / 100,
      events: big.events,
      runs: runs.map((r) => ({
        events: r.events,
        entries: r.entries,
        ms: r.ms,
        eventsPerSec: Math.round((r.events * 1000) / r.ms),
        peakRssMB: r.peakRssMB,
        bundleMB: Math.round(r.bytes / 1e5) / 10,
        generateMs: r.genMs,
      })),
      // hostilePeakRssMB and the hostile cases (bench/verify-hostile.ts, issue 14)
      ...(await runHostile(ctx)),
    };
  } finally {
    await removeDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
