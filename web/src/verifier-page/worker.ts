// web/src/verifier-page/worker.ts: the Web Worker of the offline verifier page (docs/design.md §12b). It
// runs the pure verifier (web/src/lib/audit-checks.ts over verifier/) off the page's thread: the
// bundle is streamed from the File (never read whole), progress is posted at most every 100 ms,
// and the result is the JSON the CLI prints with --json. Crypto: @noble for the synchronous
// parts (SHA-256 of every document, the checkpoint and KeyRecord signatures), and event signatures,
// the bulk, in batches on WebCrypto when it passes its probe (web/src/lib/webcrypto-batch.ts), else on @noble.
// When the page gives it signature workers' ports (sig-worker.ts), the batches go there
// (web/src/lib/sig-pool.ts), so parsing and hashing here overlap with verifying on other cores.
// The worker does no network I/O (the page's CSP, connect-src 'none', binds it too).

import { setDefaultBackend } from '../../../verifier/crypto/index.ts';
import { createNobleBackend } from '../../../verifier/crypto/index.ts';
import { inlineVerifyBatch, type VerifyBatch } from '../../../verifier/bundle/index.ts';
import { checkBundle, checkEventProof, checkForkProof } from '../lib/audit-checks.ts';
import { createWebCryptoBatch, probeWebCrypto } from '../lib/webcrypto-batch.ts';
import { createPortPool } from '../lib/sig-pool.ts';
import type { CheckRequest, CryptoPath, SigPorts, WorkerMessage } from './messages.ts';

interface WorkerScope {
  postMessage(m: WorkerMessage): void;
  onmessage: ((e: MessageEvent<(CheckRequest & { forceNoble?: boolean }) | SigPorts>) => void) | null;
}
const scope = self as unknown as WorkerScope;
const post = (m: WorkerMessage) => scope.postMessage(m);

setDefaultBackend(createNobleBackend());

const ready: Promise<{ path: CryptoPath; batch: VerifyBatch }> = (async () => {
  const subtle = (globalThis.crypto as Crypto | undefined)?.subtle;
  if (subtle && (await probeWebCrypto(subtle))) return { path: 'webcrypto' as const, batch: createWebCryptoBatch(subtle) };
  return { path: 'noble' as const, batch: inlineVerifyBatch };
})();
void ready.then((r) => post({ type: 'ready', crypto: r.path }));

function heap(): number | undefined {
  const m = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
  return m?.usedJSHeapSize;
}

async function handle(req: CheckRequest & { forceNoble?: boolean }): Promise<void> {
  const r = await ready;
  const path: CryptoPath = req.forceNoble ? 'noble' : r.path;
  const batch = req.forceNoble ? inlineVerifyBatch : (pool ?? r.batch);
  const t0 = performance.now();
  if (req.type === 'bundle') {
    let last = 0;
    let peak = heap() ?? 0;
    const report = await checkBundle(req.bundle, req.policy, req.keys, {
      allowLegacy: req.allowLegacy,
      requireWitnessed: req.requireWitnessed,
      verifyBatch: batch,
      onProgress(bytes, total, entries) {
        const now = performance.now();
        if (now - last < 100 && bytes < total) return;
        last = now;
        peak = Math.max(peak, heap() ?? 0);
        post({ type: 'progress', bytes, total, entries });
      },
    });
    peak = Math.max(peak, heap() ?? 0);
    post({ type: 'bundle-result', report, ms: performance.now() - t0, crypto: path, heapBytes: peak || undefined });
  } else if (req.type === 'event-proof') {
    const output = await checkEventProof(req.proof, req.policy, req.keys, { allowLegacy: req.allowLegacy });
    post({ type: 'event-result', output, ms: performance.now() - t0, crypto: 'noble' }); // one proof: the synchronous @noble path
  } else {
    const output = await checkForkProof(req.proof, req.trust);
    post({ type: 'fork-result', output, ms: performance.now() - t0, crypto: 'noble' });
  }
}

let pool: VerifyBatch | undefined;

scope.onmessage = (e) => {
  if (e.data.type === 'sig-ports') {
    if (e.data.ports.length > 0) pool = createPortPool(e.data.ports);
    return;
  }
  handle(e.data).catch((err: unknown) => post({ type: 'error', message: (err as Error)?.stack ?? String(err) }));
};
