// testkit/tmp.ts: temporary directories under os.tmpdir() with teardown. `tempDirs()` gives a
// tracker per test file: make() as often as needed, cleanup() in afterAll/afterEach removes them.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function makeTempDir(prefix = 'cookwala-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export function tempDirs(prefix = 'cookwala-') {
  const made: string[] = [];
  return {
    async make(): Promise<string> {
      const d = await makeTempDir(prefix);
      made.push(d);
      return d;
    },
    async cleanup(): Promise<void> {
      await Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));
    },
  };
}
