// The soak's incremental audit (tools/soak-audit.ts) on a generated log served from memory: it
// passes an honest log read in steps, and names a rewrite of an old entry (on a full check), a
// gap, a duplicate, an acknowledgement at the wrong seq, a checkpoint off the tree, and a shrink.
import { describe, expect, it } from 'vitest';
import { generateLog } from '../testkit/log-generator.ts';
import { createLogAudit, type AuditAck } from './soak-audit.ts';
import { buildEntry, type Entry } from '../verifier/documents/entry.ts';
import type { Checkpoint } from '../verifier/documents/checkpoint.ts';

const gen = generateLog({ events: 60, checkpointEvery: 10 });
const lines = [...gen.lines()]
  .join('')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { kind?: string });
const all = lines.filter((l) => l.kind === 'Event') as unknown as Entry[];
const checkpoints = lines.filter((l) => l.kind === 'Checkpoint') as unknown as Checkpoint[];
const acks: AuditAck[] = all.map((e) => ({ ce: e.ce as AuditAck['ce'], seq: e.seq, hash: e.hash }));

/** An audit over a served log `served` (mutable), with pages of 7 and a fixed sample. */
function setUp(served: Entry[]) {
  return createLogAudit({
    descriptorHash: all[0].prev,
    keys: gen.deviceKeys,
    readPage: async (from, to) => {
      const last = Math.min(to ?? Infinity, from + 6, served.length);
      return { entries: served.slice(from - 1, last), head: served.length };
    },
    sample: (size) => (size >= 3 ? [1, 2, 3] : []),
  });
}

describe('soak audit', () => {
  it('passes an honest log read in steps, incremental and full', async () => {
    const served = all.slice(0, 20);
    const audit = setUp(served);
    expect(await audit.check(acks.slice(0, 20), checkpoints.slice(0, 2), false, 'step 1')).toEqual([]);
    served.push(...all.slice(20, 45));
    expect(await audit.check(acks.slice(0, 45), checkpoints.slice(0, 4), false, 'step 2')).toEqual([]);
    served.push(...all.slice(45));
    expect(await audit.check(acks, checkpoints, true, 'the end')).toEqual([]);
    expect(audit.size).toBe(60);
    expect(audit.fullChecks).toBe(1);
  });

  it('names an old entry rewritten, on the next full check', async () => {
    const served = all.slice();
    const audit = setUp(served);
    expect(await audit.check(acks, [], false, 'first')).toEqual([]);
    served[29] = { ...served[29], hash: served[30].hash };
    expect(await audit.check(acks, [], false, 'incremental')).toEqual([]); // seq 30 is not sampled
    const faults = await audit.check(acks, [], true, 'full');
    expect(faults.join('\n')).toMatch(/entry 30/);
  });

  it('names a sampled entry that changed in an incremental check', async () => {
    const served = all.slice();
    const audit = setUp(served);
    expect(await audit.check([], [], false, 'first')).toEqual([]);
    served[1] = served[2];
    expect((await audit.check([], [], false, 'second')).join('\n')).toMatch(/entry 2 is 3/);
  });

  it('names a gap, a duplicate, a wrong acknowledgement, a checkpoint off the tree and a shrink', async () => {
    expect((await setUp([...all.slice(0, 10), ...all.slice(11)]).check([], [], false, 'gap')).join('\n')).toMatch(
      /gap: entry 11 has seq 12/,
    );
    const wrongAck = [{ ...acks[4], seq: 6 }];
    expect((await setUp(all.slice()).check(wrongAck, [], false, 'ack')).join('\n')).toMatch(/acknowledged .* at 6 is at 5/);
    const offTree = [{ ...checkpoints[0], root: checkpoints[1].root }];
    expect((await setUp(all.slice()).check([], offTree, false, 'cp')).join('\n')).toMatch(/checkpoint 10 root is not/);
    const ahead = [{ ...checkpoints[0], seq: 61 }];
    expect((await setUp(all.slice()).check([], ahead, false, 'cp')).join('\n')).toMatch(/checkpoint 61/);
    const served = all.slice();
    const audit = setUp(served);
    expect(await audit.check([], [], false, 'first')).toEqual([]);
    served.length = 50;
    expect((await audit.check([], [], false, 'shrunk')).join('\n')).toMatch(/shrank from 60 to 50/);
    const twice = setUp(all.slice());
    expect(await twice.check([], checkpoints.slice(0, 1), false, 'one')).toEqual([]);
    expect((await twice.check([], [{ ...checkpoints[0], root: checkpoints[1].root }], false, 'fork')).join('\n')).toMatch(/fork/);
  });

  it('names one event at two seqs', async () => {
    // The first CloudEvent sequenced again at 61, in an entry that is valid in every other respect.
    const served = all.slice();
    const audit = setUp(served);
    expect(await audit.check([], [], false, 'first')).toEqual([]);
    const { kind: _k, hash: _h, ...fields } = all[0];
    served.push(buildEntry({ ...fields, seq: 61, prev: all[59].hash }));
    expect((await audit.check([], [], false, 'dup')).join('\n')).toMatch(/one event at seqs 1,61/);
  });
});
