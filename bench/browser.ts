// bench/browser.ts: the `browser` section of bench/results.json (docs/design.md §12b, §13): the
// offline verifier page (web/dist/verifier.html, opened from disk) in headless Debian Chromium with
// the flags of docs/design.md §12b, verifying a generated bundle of 10^5 events (quick: 10^4; the
// testkit/log-generator.ts bundle with real signatures, erasures and cosigned checkpoints) that
// the CLI verifier (bench/verify-child.ts, what `cookwala verify` runs, all cores) verifies in the
// same run. verifyEventsPerSec is the page's, timed by its worker from the first byte read to the
// report; ratioToCli = page / CLI (target >= 0.5). Peak JS heap: the verifier worker's V8 heap
// sampled every 100 ms over the DevTools protocol (Runtime.getHeapUsage on the worker target), the
// signature workers' (summed) and the page's; the bundle's size is given beside it, since streaming must keep the heap well below it.

import { createWriteStream } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { generateLog } from '../testkit/log-generator.ts';
import { benchLogShape } from './verify.ts';
import { ensureWebBuilt, DIST } from '../web/build.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';
import { runJsonChild } from './json-child.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function writeBundle(dir: string, events: number): Promise<{ file: string; policy: string; bytes: number }> {
  const g = generateLog(benchLogShape(events));
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
  return { file, policy, bytes: (await stat(file)).size };
}

function cliVerify(file: string, policy: string): Promise<{ ms: number; entries: number; exitCode: number; peakRssMB: number }> {
  return runJsonChild(join(HERE, 'verify-child.ts'), [file, policy], 'verify');
}

interface PageRun {
  ms: number;
  wallMs: number;
  entries: number;
  exitCode: number;
  crypto: string;
  peakWorkerHeapMB: number;
  peakPageHeapMB: number;
  signatureWorkers: number;
  peakSignatureWorkersHeapMB: number;
}

async function pageVerify(file: string, policy: string): Promise<PageRun> {
  const profile = await makeTempDir('cookwala-bench-chromium-');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    ignoreDefaultArgs: true,
    args: [...FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe', 'about:blank'],
    timeout: 30_000,
  });
  try {
    const page = await browser.newPage();
    await page.goto(pathToFileURL(join(DIST, 'verifier.html')).href);
    await page.waitForFunction(
      () =>
        (globalThis as unknown as { document: { getElementById(id: string): { textContent: string } | null } }).document.getElementById(
          'crypto',
        )?.textContent !== '',
    );
    // The workers' heaps over the DevTools protocol (performance.memory does not exist in workers):
    // the verifier's worker, and the signature workers beside it (summed).
    const cdp = await browser.newBrowserCDPSession();
    const { targetInfos } = (await cdp.send('Target.getTargets')) as {
      targetInfos: Array<{ type: string; targetId: string; title: string }>;
    };
    const workers = targetInfos.filter((t) => t.type === 'worker');
    const verifierWorker = workers.find((t) => t.title === 'cookwala-verifier') ?? workers[0];
    if (!verifierWorker) throw new Error('the verifier page started no worker');
    const sigWorkers = workers.filter((t) => t !== verifierWorker);
    const sessions = new Map<string, string>();
    for (const t of workers) {
      const { sessionId } = (await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false })) as { sessionId: string };
      sessions.set(t.targetId, sessionId);
    }
    let next = 0;
    const waiting = new Map<number, (m: { result?: { usedSize: number } }) => void>();
    cdp.on('Target.receivedMessageFromTarget', (e: { message: string }) => {
      const m = JSON.parse(e.message) as { id?: number; result?: { usedSize: number } };
      if (m.id !== undefined) waiting.get(m.id)?.(m);
    });
    const heapOf = (targetId: string) =>
      new Promise<number>((resolve) => {
        const id = ++next;
        waiting.set(id, (m) => resolve(m.result?.usedSize ?? 0));
        void cdp.send('Target.sendMessageToTarget', {
          sessionId: sessions.get(targetId) ?? '',
          message: JSON.stringify({ id, method: 'Runtime.getHeapUsage' }),
        });
      });
    const workerHeap = () => heapOf(verifierWorker.targetId);
    const sigHeap = async () => (await Promise.all(sigWorkers.map((t) => heapOf(t.targetId)))).reduce((a, b) => a + b, 0);
    const pageCdp = await page.context().newCDPSession(page);
    let peakWorker = await workerHeap();
    let peakPage = 0;
    let peakSig = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakWorker = Math.max(peakWorker, await workerHeap());
        peakSig = Math.max(peakSig, await sigHeap());
        peakPage = Math.max(peakPage, ((await pageCdp.send('Runtime.getHeapUsage')) as { usedSize: number }).usedSize);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await page.setInputFiles('#evidence-file', file);
    await page.setInputFiles('#policy-file', policy);
    await page.waitForFunction(
      () =>
        !(globalThis as unknown as { document: { getElementById(id: string): { disabled: boolean } } }).document.getElementById('verify')
          .disabled,
    );
    const t0 = performance.now();
    await page.click('#verify');
    await page.waitForSelector('#result[data-exit-code] #report-json', { state: 'attached', timeout: 600_000 });
    const wallMs = performance.now() - t0;
    sampling = false;
    await sampler;
    const report = JSON.parse((await page.textContent('#report-json')) ?? '{}') as { entries: number; exitCode: number };
    const note = (await page.textContent('#result .note:last-of-type')) ?? '';
    const secs = Number(/Checked in ([0-9.]+) s/.exec(note)?.[1] ?? NaN);
    return {
      ms: Number.isFinite(secs) ? Math.round(secs * 1000) : Math.round(wallMs),
      wallMs: Math.round(wallMs),
      entries: report.entries,
      exitCode: report.exitCode,
      crypto: (await page.getAttribute('#result', 'data-crypto')) ?? '',
      peakWorkerHeapMB: Math.round(peakWorker / 1e5) / 10,
      peakPageHeapMB: Math.round(peakPage / 1e5) / 10,
      signatureWorkers: sigWorkers.length,
      peakSignatureWorkersHeapMB: Math.round(peakSig / 1e5) / 10,
    };
  } finally {
    await browser.close().catch(() => undefined);
    await removeDir(profile);
  }
}

export async function run(ctx: { quick: boolean }): Promise<Record<string, unknown>> {
  const events = ctx.quick ? 10_000 : 100_000;
  await ensureWebBuilt();
  const dir = await makeTempDir('cookwala-bench-browser-');
  try {
    const b = await writeBundle(dir, events);
    const cli = await cliVerify(b.file, b.policy);
    if (cli.exitCode !== 0) throw new Error(`the CLI did not verify the generated bundle (exit ${cli.exitCode})`);
    const p = await pageVerify(b.file, b.policy);
    if (p.exitCode !== 0 || p.entries !== cli.entries)
      throw new Error(`the page said exit ${p.exitCode} for ${p.entries} entries; the CLI exit 0 for ${cli.entries}`);
    const verifyEventsPerSec = Math.round((events * 1000) / p.ms);
    const cliEventsPerSec = Math.round((events * 1000) / cli.ms);
    return {
      verifyEventsPerSec,
      cliEventsPerSec,
      ratioToCli: Math.round((verifyEventsPerSec / cliEventsPerSec) * 100) / 100,
      peakJsHeapMB: p.peakWorkerHeapMB,
      peakPageHeapMB: p.peakPageHeapMB,
      signatureWorkers: p.signatureWorkers,
      peakSignatureWorkersHeapMB: p.peakSignatureWorkersHeapMB,
      bundleMB: Math.round(b.bytes / 1e5) / 10,
      events,
      crypto: p.crypto,
      pageMs: p.ms,
      pageWallMs: p.wallMs,
      cliMs: cli.ms,
      cliPeakRssMB: cli.peakRssMB,
    };
  } finally {
    await removeDir(dir);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}
