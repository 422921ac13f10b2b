// witness/client/index.ts: the public surface of witness/client/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside witness/ import each other directly.
export { createWitnessConnection } from './connection.ts';
export type { PublisherStore, WitnessRow } from './publisher.ts';
export { startWitnessing } from './sequencer-side.ts';
export type { WitnessHook } from './sequencer-side.ts';
