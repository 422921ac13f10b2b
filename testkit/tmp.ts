// testkit/tmp.ts: temporary directories under os.tmpdir() with teardown, for every test and the
// bench. Inside a test, `tmpDir(prefix)` makes a directory that is removed when the test finishes
// (vitest's onTestFinished). For a directory shared by a file's tests, `tempDirs(prefix)` is a
// tracker: make() as often as needed, cleanup() in afterAll/afterEach. Outside vitest (the bench),
// `withTempDir(prefix, fn)` removes it after fn; `makeTempDir`/`removeDir` are the two halves for a
// caller that owns the lifetime itself. Invariant: every directory made here is removed by
// whoever made it, recursively and without failing on a directory already gone.

import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function makeTempDir(prefix = 'cookwala-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/** The synchronous pair, for helpers that run where nothing can be awaited (testkit/logstore.ts). */
export function makeTempDirSync(prefix = 'cookwala-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeDirSync(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** A directory removed when the current test finishes (call it inside a test or beforeEach). */
export async function tmpDir(prefix = 'cookwala-'): Promise<string> {
  // vitest is imported only here, so the bench can use this module outside the test runner.
  const { onTestFinished } = await import('vitest');
  const d = await makeTempDir(prefix);
  onTestFinished(() => removeDir(d));
  return d;
}

/** Run fn with a fresh directory, removed afterwards whatever fn does. */
export async function withTempDir<T>(prefix: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const d = await makeTempDir(prefix);
  try {
    return await fn(d);
  } finally {
    await removeDir(d);
  }
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
      await Promise.all(made.splice(0).map(removeDir));
    },
  };
}
