// web/src/verifier-page/messages.ts: what the verifier page and its Web Worker say to each other
// (docs/design.md §12b). The page posts one request with the auditor's File objects (structured clone
// shares the file, never copies its bytes); the worker answers with progress, then exactly one
// result: the same JSON the CLI prints with --json, or an error for a bug. Besides, once at the start,
// the ports of the signature workers the page started. Nothing else crosses.

import type { BundleReport } from '../../../verifier/bundle/index.ts';
import type { EventProofOutput, ForkVerdict, Unusable } from '../lib/audit-checks.ts';

export type CheckRequest =
  | { type: 'bundle'; bundle: File; policy: File; keys?: File; allowLegacy?: boolean; requireWitnessed?: boolean }
  | { type: 'event-proof'; proof: File; policy: File; keys?: File; allowLegacy?: boolean }
  | { type: 'fork-proof'; proof: File; trust: File };

/** Sent once, first: the ports of the signature workers (sig-worker.ts) the page started, maybe none. */
export interface SigPorts {
  type: 'sig-ports';
  ports: MessagePort[];
}

export type CryptoPath = 'webcrypto' | 'noble';

export type WorkerMessage =
  | { type: 'ready'; crypto: CryptoPath }
  | { type: 'progress'; bytes: number; total: number; entries: number }
  | { type: 'bundle-result'; report: BundleReport | Unusable; ms: number; crypto: CryptoPath; heapBytes?: number }
  | { type: 'event-result'; output: EventProofOutput | Unusable; ms: number; crypto: CryptoPath }
  | { type: 'fork-result'; output: ForkVerdict | Unusable; ms: number; crypto: CryptoPath }
  | { type: 'error'; message: string };
