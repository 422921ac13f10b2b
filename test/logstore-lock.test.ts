// One process per log store: a child process holding the store makes this process's open fail
// with store_locked, and the reverse; once the holder closes, the other side opens.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { ProtocolError } from '../verifier/errors.ts';
import { openLogStore, type LogStore } from '../logstore/index.ts';
import { makeDescriptor, removeDir, spawnChild, tempDir } from '../testkit/logstore.ts';

async function nextJson(lines: AsyncIterator<string>): Promise<Record<string, unknown>> {
  const r = await lines.next();
  if (r.done) throw new Error('child ended without output');
  return JSON.parse(r.value) as Record<string, unknown>;
}

const dirs: string[] = [];
const stores: LogStore[] = [];
const kids: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const k of kids.splice(0)) if (k.exitCode === null) k.kill('SIGKILL');
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) removeDir(d);
});

describe('store_locked across processes', () => {
  it('a child holds the store: this process gets store_locked, then opens once the child closed', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const { child, lines, exited } = spawnChild(['hold', dir]);
    kids.push(child);
    expect(await nextJson(lines)).toEqual({ ready: true });
    const e = await openLogStore(dir).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as ProtocolError).code).toBe('store_locked');
    child.stdin.end();
    expect(await exited).toBe(0);
    const s = await openLogStore(dir);
    stores.push(s);
    expect(s.descriptor()?.log).toBe(makeDescriptor('hash_only').log); // the child's init is there
  });

  it('this process holds the store: the child gets store_locked, and opens after close', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const s = await openLogStore(dir);
    await s.init(makeDescriptor('full'));
    const a = spawnChild(['try', dir]);
    kids.push(a.child);
    expect(await nextJson(a.lines)).toEqual({ code: 'store_locked' });
    expect(await a.exited).toBe(0);
    await s.close();
    const b = spawnChild(['try', dir]);
    kids.push(b.child);
    expect(await nextJson(b.lines)).toEqual({ ok: true });
  });
});
