// logstore/postgres/index.ts: the public surface of logstore/postgres/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside logstore/ import each other directly.
export { DEFAULT_LEASE_MS, isPostgresUrl, openPostgresLogStore } from './store.ts';
export type { LeaseChange, WipeChange } from './store.ts';
