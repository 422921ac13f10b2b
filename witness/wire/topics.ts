// witness/wire/topics.ts: the gossipsub topic names of docs/design.md §7, shared by both halves: the
// sequencer side publishes cosigned checkpoints on the first, witnesses and monitors publish
// ForkProofs on the second. Names only; what a message on each must hold is witness/server/gossip.ts.

export const CHECKPOINT_TOPIC = '/cookwala/checkpoints/1';
export const FORK_TOPIC = '/cookwala/forks/1';
export const TOPICS = [CHECKPOINT_TOPIC, FORK_TOPIC];
