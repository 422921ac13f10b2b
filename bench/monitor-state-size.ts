// bench/monitor-state-size.ts: the monitor's state file at a chosen log size, for the monitor
// section (bench/monitor.ts, docs/design.md §13): built from a caught-up state, with the Merkle
// frontier of `size` synthetic leaves (one node per set bit of the size), the subject list filled
// to `maxSubjects` and the (source, id) window full (monitor/id-window.ts); nothing else in the
// state depends on the size. Leaves out: a monitor run at that size (the state is what it would keep).

import { mkdir, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createFrontier, hashLeaf } from '../verifier/merkle/index.ts';
import { saveState, statePath, type LogState } from '../monitor/index.ts';

export /** The monitor's state at `size` entries built from a caught-up one (see the header): its bytes on disk. */
async function stateBytesAt(dir: string, from: LogState, size: number, maxSubjects: number): Promise<number> {
  const f = createFrontier();
  const leaf = Buffer.alloc(32);
  for (let i = 0; i < size; i++) {
    leaf.writeUInt32BE(i, 0);
    f.append(hashLeaf(leaf));
  }
  const subjects = [...from.subjects];
  for (let i = subjects.length; i < maxSubjects; i++) subjects.push([`bench-subject-${i}`, size]);
  const window = from.ids?.window.slice() ?? [];
  while (window.length < 8192) window.push(randomBytes(8).toString('hex'));
  const s: LogState = {
    ...from,
    size,
    frontier: f.nodes().map((n) => [n.id[0], n.id[1], Buffer.from(n.hash).toString('hex')]),
    subjects,
    ids: { salt: from.ids?.salt ?? randomBytes(16).toString('hex'), window },
  };
  await mkdir(dir, { recursive: true });
  await saveState(dir, s);
  return (await stat(statePath(dir, s.log))).size;
}
