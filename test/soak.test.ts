// The short soak in `npm test` (`npm run soak` runs the long one): one SIGKILL each of
// the sequencer, the witness and the executor under mixed load (single, batch, binary, retries of
// acknowledged events), every invariant of testkit/soak.ts checked after each restart and at the
// end: every acknowledged event exactly once at its seq, no gap, chain and tree verify, no fork or
// rollback of checkpoints, no witness rollback, no executor event lost, no stale temp file.
import { expect, it } from 'vitest';
import { runSoak, summaryLine } from '../testkit/soak.ts';

it('SIGKILL of the sequencer, the witness and the executor under mixed load loses, duplicates and forks nothing', async () => {
  const s = await runSoak({ kills: 3, durationMs: 60_000, order: ['sequencer', 'witness', 'executor'] });
  console.log(summaryLine(s));
  expect(s.failures).toEqual([]);
  expect(s.kills).toMatchObject({ sequencer: 1, witness: 1, executor: 1, total: 3 });
  expect(s.checks).toBe(4);
  expect(s.acknowledged).toBeGreaterThan(0);
  expect(s.byMode.retry).toBeGreaterThan(0);
  expect(s.byMode.binary).toBeGreaterThan(0);
  expect(s.publishedSeq).toBeGreaterThan(0);
  expect(s.executorEvents.written).toBeGreaterThan(0);
}, 120_000);
