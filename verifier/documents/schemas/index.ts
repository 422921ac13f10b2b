// verifier/documents/schemas/index.ts: the public surface of verifier/documents/schemas/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside verifier/ import each other directly.
export { SCHEMA_BUNDLE } from './bundle.ts';
