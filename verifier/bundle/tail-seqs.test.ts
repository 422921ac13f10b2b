// verifier/bundle/tail-seqs.ts: the checkpoint read-ahead over an in-memory range reader: the lines
// it takes, the lines that stop it (I-JSON and UTF-8 included) and its byte bound.

import { describe, expect, it } from 'vitest';
import { checkpointSeqOf, MAX_TAIL_BYTES, readCheckpointSeqsFromTail, type ReadRange } from './tail-seqs.ts';

const enc = new TextEncoder();

/** A range reader over `bytes` that counts what it was asked for. */
function reader(bytes: Uint8Array): { read: ReadRange; asked: () => number } {
  let asked = 0;
  return {
    read: (start, end) => {
      asked += end - start;
      return Promise.resolve(bytes.subarray(start, end));
    },
    asked: () => asked,
  };
}

const cp = (seq: number, pad = 0) => JSON.stringify({ kind: 'Checkpoint', seq, pad: 'x'.repeat(pad) });

describe('readCheckpointSeqsFromTail', () => {
  it('takes the last k checkpoint lines in file order, across slices, with or without a final newline', async () => {
    const lines = ['{"type":"h","checkpoints":3}', '{"kind":"Event","seq":9}', cp(3, 700_000), cp(6, 700_000), cp(9)];
    for (const text of [lines.join('\n') + '\n', lines.join('\n')]) {
      const b = enc.encode(text);
      const r = reader(b);
      expect(await readCheckpointSeqsFromTail(b.length, r.read, 3)).toEqual([3, 6, 9]);
      expect(await readCheckpointSeqsFromTail(b.length, r.read, 1)).toEqual([9]);
      expect(await readCheckpointSeqsFromTail(b.length, r.read, 8)).toEqual([3, 6, 9]);
      expect(await readCheckpointSeqsFromTail(b.length, r.read, 0)).toEqual([]);
    }
  });

  it('stops at a line with a repeated member or bytes that are not UTF-8', async () => {
    const dup = enc.encode(['h', cp(3), '{"kind":"Checkpoint","seq":5,"seq":6}', cp(9)].join('\n') + '\n');
    expect(await readCheckpointSeqsFromTail(dup.length, reader(dup).read, 3)).toEqual([9]);
    const bad = Uint8Array.of(...enc.encode(`h\n${cp(3)}\n{"kind":"Checkpoint","seq":5,"x":"`), 0xff, ...enc.encode(`"}\n${cp(9)}\n`));
    expect(await readCheckpointSeqsFromTail(bad.length, reader(bad).read, 3)).toEqual([9]);
  });

  it('reads at most MAX_TAIL_BYTES from the end', async () => {
    // one line longer than the bound: no newline within it, so no seq and no more than the bound read
    const big = new Uint8Array(MAX_TAIL_BYTES + (3 << 20)).fill(0x20);
    big[0] = 0x0a;
    const r = reader(big);
    expect(await readCheckpointSeqsFromTail(big.length, r.read, 2)).toEqual([]);
    expect(r.asked()).toBe(MAX_TAIL_BYTES);
  });
});

describe('checkpointSeqOf', () => {
  it('is the seq of a checkpoint line and nothing else', () => {
    expect(checkpointSeqOf(enc.encode(cp(12)))).toBe(12);
    expect(checkpointSeqOf(enc.encode('{"kind":"Event","seq":12}'))).toBeUndefined();
    expect(checkpointSeqOf(enc.encode('{"kind":"Checkpoint","seq":1.5}'))).toBeUndefined();
    expect(checkpointSeqOf(enc.encode('{"kind":"Checkpoint","seq":12'))).toBeUndefined();
    expect(checkpointSeqOf(enc.encode('{"__proto__":1,"kind":"Checkpoint","seq":4}'))).toBe(4);
  });
});
