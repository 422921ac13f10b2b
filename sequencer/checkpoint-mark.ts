// sequencer/checkpoint-mark.ts: the high-water mark of signed checkpoints, kept OUTSIDE the log's
// LevelDB (docs/design.md §6 "if the store is behind the last signed checkpoint it refuses to run").
// The store keeps its checkpoints beside its entries, so a store restored from an older backup
// (or a LevelDB directory copied back) rolls both back together and looks consistent to itself;
// re-sequencing from there would sign a second, different head for seqs already signed: a fork.
// So the checkpointer also writes the latest signed checkpoint to DIR/checkpoints/<log>.json
// (durably, after the store has it and before anyone sees it), and opening a log compares the
// store with that file: a head below the mark, or another head or root at the mark's seq, is
// store_behind_checkpoint. Leaves out: signature checks of the mark (it is the sequencer's own
// file; a damaged one can only make it refuse to start, never accept a rollback). Invariant: the
// mark never runs ahead of the store (it is written after putCheckpoint), so a crash anywhere
// leaves a mark the store satisfies. Temp files a killed writer left (`<log>.json.tmp-PID-…`) are
// removed when the log opens, under the store's lock; a failed write removes its own.

import { mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ProtocolError } from '../verifier/index.ts';
import { readJsonIfExists, removeStaleTemps, writeFileDurable } from '../platform/index.ts';
import type { Checkpoint } from '../verifier/documents/index.ts';
import type { LogStore } from '../logstore/index.ts';
import { logDirName } from './config.ts';

export const CHECKPOINT_MARKS_DIR = 'checkpoints';

export interface CheckpointMark {
  /** Record `cp` as the latest signed checkpoint (durable before it resolves). */
  write(cp: Checkpoint): Promise<void>;
}

export function checkpointMarkFile(dataDir: string, origin: string): string {
  return join(dataDir, CHECKPOINT_MARKS_DIR, `${logDirName(origin)}.json`);
}

/** Refuse a store behind (or beside) the recorded mark; then hand back the writer. */
export async function openCheckpointMark(dataDir: string, origin: string, store: LogStore): Promise<CheckpointMark> {
  const file = checkpointMarkFile(dataDir, origin);
  // The store's lock makes this process the mark's one writer: a temp file of a killed one goes.
  await removeStaleTemps(file);
  const mark = (await readJsonIfExists(file)) as Pick<Checkpoint, 'log' | 'seq' | 'head' | 'root'> | undefined;
  if (mark !== undefined) {
    if (!mark || mark.log !== origin || !Number.isSafeInteger(mark.seq) || mark.seq < 0) {
      throw new ProtocolError('invalid_document', `${file} is not a checkpoint of ${origin}`);
    }
    const head = store.head();
    const at = mark.seq > head.seq ? undefined : mark.seq === 0 ? store.descriptor()?.hash : (await store.getEntry(mark.seq))?.hash;
    const root = at === mark.head ? await store.rootAt(mark.seq) : undefined;
    if (at !== mark.head || root !== mark.root) {
      throw new ProtocolError(
        'store_behind_checkpoint',
        `${origin}: a checkpoint was signed at seq ${mark.seq} (head ${mark.head}, recorded in ${file}), but the store ${mark.seq > head.seq ? `ends at seq ${head.seq}` : 'holds another head or root there'}; refusing to re-sequence a signed seq`,
        { seq: mark.seq, headSeq: head.seq },
      );
    }
  } else {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const d = await open(dirname(dirname(file)), 'r');
    await d.sync().finally(() => d.close());
  }
  let last = mark?.seq ?? -1;
  return {
    async write(cp) {
      if (cp.seq < last) return;
      await writeFileDurable(file, JSON.stringify(cp) + '\n');
      last = cp.seq;
    },
  };
}
