// verifier/crypto/default.ts: the default CryptoBackend. Node gets node:crypto (fast); a browser build
// aliases node.ts away and calls setDefaultBackend(createNobleBackend()). The default is
// chosen lazily, so nothing runs at import time.

import type { CryptoBackend } from './backend.ts';
import { createNodeBackend } from './node.ts';

let current: CryptoBackend | undefined;

export function defaultBackend(): CryptoBackend {
  if (!current) current = createNodeBackend();
  return current;
}

export function setDefaultBackend(b: CryptoBackend): void {
  current = b;
}

export function sha256(data: Uint8Array): Uint8Array {
  return defaultBackend().sha256(data);
}

export type { CryptoBackend };
