// testkit/logstore-stores.ts: the real-LevelDB store fixture the logstore tests share (test-only: it
// registers a vitest afterEach). useStores() hands out stores in fresh temp directories, tracks
// every store it opened and closes it (errors ignored: a test may have broken it on purpose) and
// removes the directories after each test. Leaves out: the test data (testkit/logstore.ts).

import { afterEach } from 'vitest';
import { openLogStore, type LogStore, type OpenOptions } from '../logstore/index.ts';
import { TEST_LOG, makeDescriptor, makeItems, removeDir, tempDir } from './logstore.ts';

export interface FreshOptions extends OpenOptions {
  /** The descriptor's mode (default full). */
  mode?: 'full' | 'hash_only';
  /** Entries appended after init (default none). */
  items?: number;
}

export function useStores() {
  const dirs: string[] = [];
  const open: LogStore[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close().catch(() => undefined);
    for (const d of dirs.splice(0)) removeDir(d);
  });

  const untrack = (s: LogStore) => {
    const i = open.indexOf(s);
    if (i >= 0) open.splice(i, 1);
  };

  const stores = {
    /** A new temp directory, removed after the test. */
    dir(): string {
      const d = tempDir();
      dirs.push(d);
      return d;
    },
    /** openLogStore, closed after the test. */
    async open(dir: string, opts?: OpenOptions): Promise<LogStore> {
      const s = await openLogStore(dir, opts);
      open.push(s);
      return s;
    },
    /** A store in a new directory, initialized with the test descriptor, with `items` entries. */
    async fresh(o: FreshOptions = {}): Promise<LogStore> {
      const { mode = 'full', items = 0, ...opts } = o;
      const s = await stores.open(stores.dir(), opts);
      await s.init(makeDescriptor(mode));
      if (items > 0) await s.append(makeItems(TEST_LOG, s.head(), items));
      return s;
    },
    async close(s: LogStore): Promise<void> {
      await s.close();
      untrack(s);
    },
    /** Close `s` and open its directory again (it must exist). */
    async reopen(s: LogStore, opts: OpenOptions = {}): Promise<LogStore> {
      await stores.close(s);
      return stores.open(s.dir, { createIfMissing: false, ...opts });
    },
  };
  return stores;
}
