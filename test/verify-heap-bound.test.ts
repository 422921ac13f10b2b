// The auditor's commands bound their own heap (bin/cookwala.js, docs/design.md §13, §14): run as a
// user runs them (`cookwala verify BUNDLE --policy P`, default flags), the process that reads the
// outside file is a node started with a fixed old-space limit, so garbage from hostile lines cannot
// grow the heap past the 256 MB bound on a busy machine. The bundle is a named pipe the test holds
// open, so the verifier is caught waiting on it; the test then reads the process tree from /proc,
// writes the bundle and expects the verdict and the exit code to come through the parent.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { createWriteStream, readFileSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { generateLog, spawnCookwala, tempDirs, waitFor } from '../testkit/index.ts';

const dirs = tempDirs('cookwala-heap-');
afterAll(() => dirs.cleanup());

/** The command lines of `pid` and every process below it. */
function treeCmdlines(pid: number): string[][] {
  const out: string[][] = [];
  const walk = (p: number) => {
    try {
      out.push(readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean));
    } catch {
      return;
    }
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const st = readFileSync(`/proc/${d}/stat`, 'utf8');
        if (Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === p) walk(Number(d));
      } catch {
        // the process ended while we looked
      }
    }
  };
  walk(pid);
  return out;
}

describe('cookwala verify runs under a heap bound it sets for itself', () => {
  it('the reading process has the old-space limit; the verdict and exit code pass through', async () => {
    const dir = await dirs.make();
    const g = generateLog({ events: 30, checkpointEvery: 10 });
    const policy = join(dir, 'policy.json');
    await writeFile(policy, JSON.stringify(g.policy));
    const fifo = join(dir, 'bundle.ndjson');
    execFileSync('mkfifo', [fifo]);
    const v = spawnCookwala(['verify', fifo, '--policy', policy]);
    // The verifier blocks opening the pipe until a writer comes: find the bounded node then.
    const bounded = await waitFor(
      () => treeCmdlines(v.proc.pid!).find((c) => c.some((a) => a === '--max-old-space-size=64') && c.includes('verify')),
      { what: 'the heap-bounded verify process', timeoutMs: 30_000, intervalMs: 50, detail: () => v.err() },
    );
    expect(bounded.some((a) => a.endsWith('cookwala.js'))).toBe(true);
    const ws = createWriteStream(fifo);
    for (const s of g.lines()) if (!ws.write(s)) await once(ws, 'drain');
    ws.end();
    const { code } = await v.exited;
    expect(v.out()).toMatch(/^VALID: /);
    expect(code).toBe(0);
  });

  it('an invalid bundle exits 1 through the parent, as the verifier said', async () => {
    const dir = await dirs.make();
    const g = generateLog({ events: 12, checkpointEvery: 6 });
    const policy = join(dir, 'policy.json');
    await writeFile(policy, JSON.stringify(g.policy));
    const lines = [...g.lines()].join('').split('\n');
    lines.splice(5, 1); // one line gone
    const file = join(dir, 'cut.ndjson');
    await writeFile(file, lines.join('\n'));
    const v = spawnCookwala(['verify', file, '--policy', policy]);
    const { code } = await v.exited;
    expect(v.out()).toMatch(/^INVALID: /);
    expect(code).toBe(1);
  });
});
