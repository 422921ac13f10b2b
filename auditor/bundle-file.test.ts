// Reading bundle files: lines split on 0x0A across read chunks (multi-byte UTF-8 intact), a last
// line without a newline flagged, invalid UTF-8 flagged, an over-long line skipped without being
// held, early stop; and the checkpoint seqs read back from the tail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { forEachLine, readCheckpointSeqsAhead, readFirstLine, MAX_LINE_BYTES, type LineFlags } from './bundle-file.ts';
import { makeTempDir, removeDir } from '../testkit/tmp.ts';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('cookwala-bundle-file-');
});
afterAll(async () => {
  await removeDir(dir);
});

async function collect(content: string | Buffer, stopAfter = Infinity): Promise<Array<[string, LineFlags]>> {
  const file = join(dir, `f-${Math.random().toString(36).slice(2)}`);
  await writeFile(file, content);
  const out: Array<[string, LineFlags]> = [];
  await forEachLine(file, (t, f) => {
    out.push([t.length > 40 ? `${t.length} chars` : t, f]);
    return out.length >= stopAfter ? false : undefined;
  });
  return out;
}

describe('forEachLine', () => {
  it('splits lines across 1 MiB reads and keeps multi-byte characters whole', async () => {
    const long = '€'.repeat(700_000); // 2.1 MB of 3-byte characters
    const got = await collect(`a\n${long}\n𝄞\n`);
    expect(got).toEqual([
      ['a', {}],
      ['700000 chars', {}],
      ['𝄞', {}],
    ]);
  });
  it('flags a last line without newline, and invalid UTF-8', async () => {
    expect(await collect('x\ny')).toEqual([
      ['x', {}],
      ['y', { unterminated: true }],
    ]);
    expect((await collect(Buffer.from([0x7b, 0xff, 0x7d, 0x0a])))[0][1]).toEqual({ notUtf8: true });
    expect(await collect('')).toEqual([]);
  });
  it('skips an over-long line without holding it, then goes on', async () => {
    const got = await collect(Buffer.concat([Buffer.from('a\n'), Buffer.alloc(MAX_LINE_BYTES + 5, 0x61), Buffer.from('\nb\n')]));
    expect(got).toEqual([
      ['a', {}],
      ['', { tooLong: true }],
      ['b', {}],
    ]);
  });
  it('stops when the callback says so', async () => {
    expect((await collect('1\n2\n3\n', 2)).map(([t]) => t)).toEqual(['1', '2']);
  });
});

describe('readCheckpointSeqsAhead', () => {
  it('reads the last k checkpoint lines from the end, stopping at anything else', async () => {
    const cp = (seq: number) => JSON.stringify({ kind: 'Checkpoint', seq, pad: 'x'.repeat(300_000) });
    const file = join(dir, 'tail.ndjson');
    await writeFile(file, ['{"type":"h","checkpoints":4}', '{"kind":"Event","seq":9}', cp(3), cp(6), cp(9), cp(9)].join('\n') + '\n');
    expect(await readCheckpointSeqsAhead(file, 4)).toEqual([3, 6, 9, 9]);
    expect(await readCheckpointSeqsAhead(file, 2)).toEqual([9, 9]);
    expect(await readCheckpointSeqsAhead(file, 9)).toEqual([3, 6, 9, 9]);
    expect(await readCheckpointSeqsAhead(file, 0)).toEqual([]);
    expect(await readFirstLine(file)).toBe('{"type":"h","checkpoints":4}');
  });
});
