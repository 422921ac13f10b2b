// verifier/crypto/index.ts: the public surface of verifier/crypto/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside verifier/ import each other directly.
export type { CryptoBackend } from './backend.ts';
export { defaultBackend, setDefaultBackend, sha256 } from './default.ts';
export { ed25519InputsPass } from './ed25519-rules.ts';
export { createNobleBackend } from './noble.ts';
export { createNodeBackend } from './node.ts';
