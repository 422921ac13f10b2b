// web/src/lib/sig-pool.ts: the browser's counterpart of the CLI's worker pool (platform/sig-pool.ts,
// docs/design.md §12b, §13): a VerifyBatch that hands each batch of raw signature checks to one of a
// few signature workers (web/src/verifier-page/sig-worker.ts) over MessagePorts, packed into one
// transferred ArrayBuffer (sig-transfer.ts). WebCrypto's verify runs on the thread that calls it,
// so without this the verifier's worker would parse, hash and verify on one core while the others
// idle. Batches go to the port with the fewest outstanding; answers come back as one byte a check.
// Left out: starting the workers (the page does, and passes the ports). Invariant: every batch gets
// exactly its own verdicts, in order; a worker error rejects that batch, never resolves it wrongly.

import type { RawCheck, VerifyBatch } from '../../../verifier/bundle/index.ts';
import { packChecks } from './sig-transfer.ts';

export interface SigAnswer {
  id: number;
  verdicts?: Uint8Array;
  error?: string;
}

export function createPortPool(ports: readonly MessagePort[]): VerifyBatch {
  if (ports.length === 0) throw new Error('createPortPool needs at least one port');
  let next = 0;
  const pending = new Map<number, { port: number; count: number; resolve: (v: boolean[]) => void; reject: (e: Error) => void }>();
  const load = ports.map(() => 0);
  ports.forEach((port, i) => {
    port.onmessage = (e: MessageEvent<SigAnswer>) => {
      const p = pending.get(e.data.id);
      if (!p) return;
      pending.delete(e.data.id);
      load[i]--;
      const v = e.data.verdicts;
      if (!v || v.length !== p.count) p.reject(new Error(e.data.error ?? 'the signature worker gave no verdicts'));
      else p.resolve(Array.from(v, (b) => b === 1));
    };
  });
  return (items: readonly RawCheck[]) =>
    new Promise<boolean[]>((resolve, reject) => {
      if (items.length === 0) return resolve([]);
      let best = 0;
      for (let i = 1; i < load.length; i++) if (load[i] < load[best]) best = i;
      const id = ++next;
      load[best]++;
      pending.set(id, { port: best, count: items.length, resolve, reject });
      const buf = packChecks(items);
      ports[best].postMessage({ id, buf }, [buf]);
    });
}
