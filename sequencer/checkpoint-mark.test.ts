// The checkpoint mark outside the store: a log store restored from an older backup carries its
// own (older) checkpoints with it, so only the mark can tell that seqs beyond it were signed
// already; opening must refuse (store_behind_checkpoint) instead of re-sequencing them, which
// would sign a second head for a signed seq (a fork). A store at or past the mark opens.
import { afterAll, expect, it } from 'vitest';
import { cp, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { startSequencer, TEST_LOG } from '../testkit/sequencer.ts';
import { deviceKey } from '../testkit/keys.ts';
import { eventStream } from '../testkit/events.ts';
import { tempDirs } from '../testkit/tmp.ts';
import { openSequencer } from './app.ts';
import { logStoreDir } from './data-dir.ts';
import { checkpointMarkFile } from './checkpoint-mark.ts';

const dev = deviceKey(41);
const tmp = tempDirs();
afterAll(() => tmp.cleanup());

it('refuses a store restored from a backup older than the last signed checkpoint', async () => {
  const t = await startSequencer({ devices: [dev] });
  const s = eventStream(dev);
  try {
    expect((await t.post(s.next('exec-m'))).statusCode).toBe(201);
    await t.seq.tick();
    await t.seq.close();
    const backup = await tmp.make();
    await cp(logStoreDir(t.dir, TEST_LOG), backup, { recursive: true }); // backup: seq 1, checkpoint at 1

    t.seq = await openSequencer(t.dir, { timers: false });
    for (let i = 0; i < 2; i++) expect((await t.post(s.next('exec-m'))).statusCode).toBe(201);
    await t.seq.tick();
    expect(t.seq.logs.get(TEST_LOG)!.checkpoints.latestSigned()?.seq).toBe(3);
    await t.seq.close();
    const later = await tmp.make();
    await cp(logStoreDir(t.dir, TEST_LOG), later, { recursive: true });

    // restore the old backup: its own checkpoints stop at seq 1, so the store agrees with itself
    await rm(logStoreDir(t.dir, TEST_LOG), { recursive: true, force: true });
    await cp(backup, logStoreDir(t.dir, TEST_LOG), { recursive: true });
    await expect(openSequencer(t.dir, { timers: false })).rejects.toMatchObject({ code: 'store_behind_checkpoint' });

    // the later state put back (at the mark) opens again and goes on from seq 3
    await rm(logStoreDir(t.dir, TEST_LOG), { recursive: true, force: true });
    await cp(later, logStoreDir(t.dir, TEST_LOG), { recursive: true });
    t.seq = await openSequencer(t.dir, { timers: false });
    expect(t.headSeq()).toBe(3);
    expect((await t.post(s.next('exec-m'))).json()).toMatchObject({ seq: 4 });
  } finally {
    await t.seq.close().catch(() => undefined);
    await rm(t.dir, { recursive: true, force: true });
  }
});

it('removes the temp files a writer killed mid-write left beside the mark when the log opens', async () => {
  const t = await startSequencer({ devices: [dev] });
  const s = eventStream(dev);
  try {
    expect((await t.post(s.next('exec-t'))).statusCode).toBe(201);
    await t.seq.tick();
    await t.seq.close();
    const mark = checkpointMarkFile(t.dir, TEST_LOG);
    // What a SIGKILL between open(tmp) and rename leaves: one empty, one half-written.
    await writeFile(`${mark}.tmp-99999-0badc0de`, '');
    await writeFile(`${mark}.tmp-99998-00c0ffee`, '{"kind":"Checkp');
    await writeFile(join(dirname(mark), 'other.example%2Fx.json.tmp-1-00000000'), 'not ours');
    t.seq = await openSequencer(t.dir, { timers: false });
    const names = await readdir(dirname(mark));
    expect(names.filter((n) => n.includes('.tmp-') && n.startsWith(basename(mark)))).toEqual([]);
    expect(names).toContain('other.example%2Fx.json.tmp-1-00000000'); // another log's are not this log's to remove
    expect(names).toContain(basename(mark));
    expect((await t.post(s.next('exec-t'))).statusCode).toBe(201);
  } finally {
    await t.close();
  }
});
