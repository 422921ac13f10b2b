// web/src/verifier-page/sig-worker.ts: a signature worker of the offline verifier page (docs/design.md
// §12b). The page starts it beside the verifier's worker and gives both ends of a MessageChannel;
// on it arrive packed batches of raw checks (web/src/lib/sig-transfer.ts) and back go their verdicts,
// one byte each. It checks them with the same WebCrypto batch as the verifier's worker would
// (web/src/lib/webcrypto-batch.ts: the project's Ed25519 rules first), or with @noble when WebCrypto
// fails its probe, so the verdicts are the same wherever a batch runs. Left out: everything that
// decides what to check (keys, roles, validity: the verifier's worker). No network I/O.

import { createNobleBackend, setDefaultBackend } from '../../../verifier/crypto/index.ts';
import { inlineVerifyBatch, type VerifyBatch } from '../../../verifier/bundle/index.ts';
import { createWebCryptoBatch, probeWebCrypto } from '../lib/webcrypto-batch.ts';
import { unpackChecks } from '../lib/sig-transfer.ts';
import type { SigAnswer } from '../lib/sig-pool.ts';

setDefaultBackend(createNobleBackend());

const batch: Promise<VerifyBatch> = (async () => {
  const subtle = (globalThis.crypto as Crypto | undefined)?.subtle;
  return subtle && (await probeWebCrypto(subtle)) ? createWebCryptoBatch(subtle) : inlineVerifyBatch;
})();

function serve(port: MessagePort): void {
  port.onmessage = (e: MessageEvent<{ id: number; buf: ArrayBuffer }>) => {
    const { id, buf } = e.data;
    const answer = (a: SigAnswer, transfer: Transferable[] = []) => port.postMessage(a, transfer);
    batch
      .then((b) => b(unpackChecks(buf)))
      .then(
        (res) => {
          const verdicts = Uint8Array.from(res, (ok) => (ok === true ? 1 : 0));
          answer({ id, verdicts }, [verdicts.buffer]);
        },
        (err: unknown) => answer({ id, error: String(err) }),
      );
  };
}

(self as unknown as { onmessage: ((e: MessageEvent<{ type: string; port: MessagePort }>) => void) | null }).onmessage = (e) => {
  if (e.data?.type === 'port') serve(e.data.port);
};
