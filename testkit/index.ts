// testkit/index.ts: the test kit's public surface, for every test and the bench (product code
// never imports it; test/architecture.test.ts holds that). The pieces: wait.ts, the one `waitFor`
// (bounded, names what it waited for; re-checks on `changes()` events, polls only what nothing
// announces); tmp.ts, temp dirs with teardown (`tmpDir` per test, `tempDirs` per file,
// `withTempDir` for the bench); clock.ts, the manual clock implementing platform/clock.ts; keys.ts
// and events.ts, deterministic keys and signed CloudEvents; logs.ts, a capturing logger and a
// child's JSON log lines; net.ts, a free port; witness-procs.ts, `cookwala` as a child process;
// sequencer.ts, executor.ts, witness.ts and logstore.ts, a real sequencer on a temp dir, executor
// fixtures, a fake log for the witness, chained store items; audit.ts, verify-log.ts and
// log-generator.ts, audited logs and bundles; process-tree.ts, the peak memory of a child's
// whole process tree; verifier-fixtures.ts, json-arbitraries.ts, ed25519-adversarial.ts,
// c2sp-log.ts and c2sp-reference.ts, vectors and independent references.
// Left out of the re-exports: the vitest-bound suites (logstore-stores.ts, logstore-compliance.ts),
// the soak and PostgreSQL harnesses (../tools/soak.ts, ../tools/pg-failover.ts, postgres.ts): import those files
// directly. Invariant: one definition per helper; a file here re-exports, never re-implements.

export { waitFor, changes, type Changes, type WaitOptions } from './wait.ts';
export { tmpDir, tempDirs, withTempDir, makeTempDir, removeDir, makeTempDirSync, removeDirSync } from './tmp.ts';
export { createManualClock, type ManualClock } from './clock.ts';
export { deviceKey, signerKey, seedOf, type TestKey } from './keys.ts';
export { makeEvent, signed, eventStream, type EventFields } from './events.ts';
export { captureLogger, logEvents, type LogWatch } from './logs.ts';
export { freePort } from './net.ts';
export { spawnCookwala, runCookwala, startWitnessProcess, stopChild, readInfo, type Child } from './witness-procs.ts';
export { startSequencer, logPath, type TestSequencer } from './sequencer.ts';
export * as executorKit from './executor.ts';
export * as witnessKit from './witness.ts';
export * as logstoreKit from './logstore.ts';
export * as auditKit from './audit.ts';
export { rebuildLog } from './verify-log.ts';
export { generateLog } from './log-generator.ts';
export { processTree, runMeasuredTree, treeRssKiB, type TreeRun } from './process-tree.ts';
export * as verifierFixtures from './verifier-fixtures.ts';
export * as jsonArbitraries from './json-arbitraries.ts';
export * as ed25519Adversarial from './ed25519-adversarial.ts';
export * as c2spLog from './c2sp-log.ts';
export * as c2spReference from './c2sp-reference.ts';
export { startPgCluster } from './pg-cluster.ts';
