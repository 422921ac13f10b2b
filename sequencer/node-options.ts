// sequencer/node-options.ts: the node options a sequencer process is started with
// (docs/design.md §13 latency under load, §12a memory). V8's young generation holds every
// request in flight; at its default size (16 MB a semi-space) a sequencer under an open-loop load
// scavenges several times a second, each scavenge stopping the event loop and taking V8's helper
// threads from the cores the requests need. A larger semi-space makes scavenges rarer, with less
// copied in all, so less of both cores goes to the collector. V8 reads the size only when the
// process starts, so it is a start option: the shipped systemd unit sets it in NODE_OPTIONS
// (ops/systemd/cookwala-sequencer.service, test/ops-files.test.ts checks they agree) and the
// bench starts its sequencer with it (bench/ingest.ts). Leaves out: setting it from inside a
// running process (V8 ignores the flag then). Invariant: the young generation this allows stays
// inside the process reserve of sequencer/store-budget.ts.
export const SEQUENCER_NODE_OPTIONS = '--max-semi-space-size=32';
