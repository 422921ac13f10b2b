// witness/wire/index.ts: the public surface of witness/wire/ for the other layers (docs/design.md §2): what
// other folders may import from here. Files inside witness/ import each other directly.
export { loadOrCreatePeerKey } from './identity.ts';
export type { AddCheckpointRequest } from './messages.ts';
export { createP2pNode } from './p2p-node.ts';
export type { P2pNode } from './p2p-node.ts';
export { TOPICS } from './topics.ts';
export { readWitnessInfo } from './witness-info.ts';
export type { WitnessInfoCard } from './witness-info.ts';
