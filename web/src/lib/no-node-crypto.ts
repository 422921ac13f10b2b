// web/src/lib/no-node-crypto.ts: what the browser build (web/build.ts) puts in place of
// verifier/crypto/node.ts, which needs node:crypto. A page must call setDefaultBackend (the
// @noble backend) before any check; reaching this is a programmer error, said loudly.
import type { CryptoBackend } from '../../../verifier/crypto/index.ts';

export function createNodeBackend(): CryptoBackend {
  throw new Error('node:crypto is not available in a browser: call setDefaultBackend(createNobleBackend()) first');
}
