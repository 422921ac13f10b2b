// witness/index.ts: the witness's public surface (docs/design.md §2, §7, §7a), for bin/, demo/ and
// tests: the witness service (server/service.ts: createWitness), its durable state, data directory
// and config (server/state.ts, server/data-dir.ts, server/config.ts), the sequencer's side of the
// protocol (client/sequencer-side.ts, client/connection.ts), the wire messages, the libp2p node and
// the witness card (wire/messages.ts, wire/p2p-node.ts, wire/witness-info.ts), and the CLI entry
// (cli.ts). It only re-exports. Left out: the C2SP HTTP side, gossip and fork-proof internals, used
// only inside witness/. Invariant: no file here defines anything.

export * from './server/service.ts';
export * from './server/state.ts';
export * from './server/data-dir.ts';
export * from './server/config.ts';
export * from './client/sequencer-side.ts';
export * from './client/connection.ts';
export * from './wire/messages.ts';
export * from './wire/p2p-node.ts';
export * from './wire/witness-info.ts';
export * from './cli.ts';
